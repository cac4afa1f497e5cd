/*
 * review_share.c - "stablesel review --export FILE / --import FILE": the
 * review decisions as JSON a team keeps in git (review_share.h; the file's
 * writer and reader are run/decisions_json.c's: one concept split
 * across two floors): the output file, the index,
 * the conflicts and counts on stderr.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "decisions_cli.h"
#include "review_share.h"
#include "run/decisions_json.h"
#include "util/atomic.h"
#include "util/error.h"

static void conflict(const ss_decision *theirs, const ss_decision *ours, int theirs_won, void *ud)
{
	ss_strbuf e[5] = { SS_STRBUF_INIT, SS_STRBUF_INIT, SS_STRBUF_INIT, SS_STRBUF_INIT,
			   SS_STRBUF_INIT };
	char a[16], b[16];

	(void)ud;
	/* names and notes from a file reach the terminal escaped */
	warning("conflict: %.12s on %s: file %s (%s, %s%s%s) vs index %s (%s, %s%s%s): %s kept",
		theirs->commit, cli_escaped(&e[0], theirs->branch), ss_decision_state_name(theirs->state),
		cli_escaped(&e[1], theirs->who), cli_decision_date(a, theirs->time),
		*theirs->note ? ": " : "", cli_escaped(&e[2], theirs->note),
		ss_decision_state_name(ours->state), cli_escaped(&e[3], ours->who),
		cli_decision_date(b, ours->time), *ours->note ? ": " : "", cli_escaped(&e[4], ours->note),
		theirs_won ? "the file's (newer)" : "the index's");
	for (int i = 0; i < 5; i++)
		ss_strbuf_release(&e[i]);
}

/* The index's message for a branch of the file it does not know, escaped
 * (the name is the file's). */
static void unknown_branch(void)
{
	ss_strbuf e = SS_STRBUF_INIT;

	warning("%s: imported under that name", cli_escaped(&e, ss_error_last()));
	ss_strbuf_release(&e);
}

/* Each decision's branch under the index's name for it ("origin/21.11"
 * is "21.11"); one the index does not know is imported as it is, said
 * once a branch. */
static void branch_identities(ss_run_decision_file *ds, ss_index *ix)
{
	char name[256];

	for (size_t i = 0; i < ds->n; i++) {
		int rc = ss_index_branch_identity(name, sizeof(name), ix, ds->d[i].branch, NULL);
		int said = 0;

		if (rc == SS_ENOTFOUND) {
			for (size_t j = 0; j < i && !said; j++)
				said = !strcmp(ds->d[j].branch, ds->d[i].branch);
			if (!said)
				unknown_branch();
			continue;
		}
		if (rc)
			die("%s", ss_error_last());
		if (strcmp(name, ds->d[i].branch)) {
			free(ds->owned[i][0]);
			if (!(ds->owned[i][0] = strdup(name)))
				die("out of memory");
			ds->d[i].branch = ds->owned[i][0];
		}
	}
}

int review_share(const char *export_file, const char *import_file, const char *db,
		 const char *repo)
{
	char *path = NULL;
	ss_index *ix;

	if (export_file) {
		ss_atomic *out = cli_output_open(export_file);
		size_t n = 0;

		ix = cli_decisions_open(db, repo, 0, &path, NULL);
		if (ss_run_decisions_export(ss_atomic_file(out), ix, &n)) {
			ss_atomic_abort(out);
			die("%s", ss_error_last());
		}
		cli_output_commit(out, SIZE_MAX, "decisions");
		note("%zu %s exported from '%s'", n, cli_decisions_word(n), path);
	} else {
		ss_run_decision_file ds;
		size_t stats[3];

		/* the whole file is read and checked before the index is opened
		 * for writing */
		if (ss_run_decisions_read(&ds, import_file))
			die("%s", ss_error_last());
		ix = cli_decisions_open(db, repo, 1, &path, NULL);
		branch_identities(&ds, ix);
		if (ss_index_decisions_import(ix, ds.d, ds.n, conflict, NULL, stats))
			die("%s", ss_error_last());
		note("%zu %s read from '%s': %zu written, %zu kept as they were, %zu %s", ds.n,
		     cli_decisions_word(ds.n), import_file, stats[0], stats[1], stats[2],
		     stats[2] == 1 ? "conflict" : "conflicts");
		ss_run_decision_file_release(&ds);
	}
	ss_index_free(ix);
	free(path);
	return 0;
}
