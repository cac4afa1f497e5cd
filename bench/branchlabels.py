# branchlabels.py - what the scoring scripts of bench/ share: the rows of a
# "stablesel" TSV (ranking or labels) and the commits one stable branch
# took, from "stablesel label --db" (sha in_stable stable_branches).
# Imported by untagged-score.py and verdict-score.py.  Standard library only.


def tsv_rows(path):
    """Each row of a TSV with a "sha" header, as a list of fields."""
    for line in open(path):
        x = line.rstrip('\n').split('\t')
        if x[0] != 'sha':
            yield x


def taken_by(labels, branch):
    """The ids of the commits the stable branch BRANCH carries."""
    return {x[0] for x in tsv_rows(labels) if branch in x[2].split(',')}
