/*
 * layout.h - a repository's layout found from its graph, not assumed from
 * HEAD or from names: which branch is the mainline, what each other
 * branch is (stable, a staging area of one, a remote-tracking copy, end
 * of life), and the kind of each release tag (mainline, stable, release
 * candidate).  The index records what it finds (index.h); docs/index.md
 * says how.
 *
 * One walk of the history from every branch tip marks each commit with
 * the branches reaching it.  The mainline is the branch (staging areas
 * and copies left out) reaching the most commits, when it stands out
 * against every other branch: its own commits are more than twice the
 * other's own (or more, when it reaches more release tags), and it
 * reaches at least as many of the release tags that another branch
 * reaches too (the ones branches fork from).  HEAD's
 * branch is only a tie-breaker, and the choice when none stands out.  A
 * release tag the mainline reaches is a mainline release, one only other
 * branches reach a stable release (one no branch reaches: as its name
 * says), an rc form a release candidate.
 */
#ifndef SS_LABELS_LAYOUT_H
#define SS_LABELS_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "source/git_repo.h"  /* ss_repo */

typedef enum {
	SS_ROLE_STABLE = 0,   /* a stable branch: a default target */
	SS_ROLE_MAINLINE,     /* the mainline */
	SS_ROLE_STAGING,      /* X-staging, X-next, X-rc, X-test: X's staging area */
	SS_ROLE_EOL,          /* no commit for a year before the newest tip */
	SS_ROLE_COPY,         /* a remote-tracking copy of a branch counted already */
	SS_ROLE_UNNAMED,      /* left out by an explicit --branches glob */
	SS_ROLE_RELEASES      /* X-stable beside X-test: holds the releases of the
	                       * series whose other branch takes the backports */
} ss_layout_role;

typedef struct {
	char *name;        /* short name: "21.11", "origin/21.11" */
	char *ref;         /* full ref: "refs/heads/21.11" */
	char tip[41];
	int64_t time;      /* the tip's committer time */
	ss_layout_role role;
	size_t of;         /* staging, copy, releases: the branch (index) it belongs to */
	size_t commits;    /* commits it reaches (0 for a copy) */
	size_t tags;       /* release tags it reaches */
} ss_layout_branch;

typedef struct {
	char *tag;
	char sha[41];
	int64_t time;      /* the tagged commit's committer time */
	const char *kind;  /* "mainline", "stable", "rc" */
} ss_layout_release;

typedef struct ss_layout_s {
	ss_layout_branch *branches;  /* sorted by name */
	size_t nbranches;
	char *mainline;       /* the mainline's ref to read: a full ref, or what
	                       * --mainline named when it is no branch */
	char *mainline_name;  /* its short name ("main") */
	char mtip[41];
	int found;            /* the mainline was found, not named */
	char *head;           /* HEAD's branch (short), NULL when detached */
	char *note;           /* why HEAD's branch is not the mainline, NULL when it is
	                       * (or the mainline was named) */
	char *warning;        /* a branch and a tag with one name, NULL when none */
	char *series;         /* release series with two branches: which takes the
	                       * backports and why, NULL when none */
	int64_t newest;       /* the newest branch tip's committer time */
	int explicit_branches; /* --branches or stablesel.branches chose them */
	char *eol_note;       /* what end of life was measured from when a setting
	                       * (--eol, stablesel.eol) gave it, NULL without one */
	ss_layout_release *releases;  /* sorted by tag */
	size_t nreleases;
	char key[41];         /* ss_layout_key() of the inputs it was found from,
	                       * read before them ("" when not known) */
	int head_decided;     /* HEAD's branch broke a tie of the mainline's
	                       * candidates or was taken as none stood out: the
	                       * layout holds again only while HEAD is the mainline */
	int note_from_head;   /* note is what HEAD alone makes of the mainline
	                       * ("HEAD is X, the mainline is Y"): not kept by
	                       * ss_layout_save(), said again by ss_layout_load() */
} ss_layout;

typedef struct ss_layout_options_s {
	const char *mainline;      /* named mainline (NULL: found) */
	const char *branches;      /* fnmatch glob of stable branches (NULL: git config
	                            * stablesel.branches, else every branch by role) */
	const char *release_tags;  /* fnmatch glob of release tags (NULL: version-shaped) */
	const char *eol;           /* end of life: AGE without a commit before the
	                            * newest stable release ("180d", "2y", "never";
	                            * ss_layout_parse_age); NULL: git config
	                            * stablesel.eol, else a year before the newest
	                            * branch tip */
} ss_layout_options;

#define SS_LAYOUT_OPTIONS_INIT { NULL, NULL, NULL, NULL }

/*
 * An age: digits and a unit, d (days), w (weeks), m (months of 30 days)
 * or y (years of 365 days), "365d", "18m", "2y"; or "never" (*out -1).
 * 0 with *out in seconds, SS_EINVALID with the message set.
 */
int ss_layout_parse_age(int64_t *out, const char *s);

/*
 * Find the layout of the repository at repo ("git:" prefix allowed).  0,
 * or < 0 with the message set: SS_EINVALID when no branch stands out as
 * the mainline and HEAD is no branch (the message names the candidates
 * and --mainline) or the repository has no branch, SS_ENOTFOUND when a named mainline is no
 * commit.
 */
int ss_layout_find(ss_layout **out, const char *repo, const ss_layout_options *o);
/* The same in the repository of the handle repo (messages name its path),
 * opened once however often the layout reads it. */
int ss_layout_find_repo(ss_layout **out, ss_repo *repo, const ss_layout_options *o);
void ss_layout_free(ss_layout *l); /* NULL is a no-op */

/*
 * What a layout is found from, as a key (40 hex digits, into out): the
 * options, git config stablesel.branches and stablesel.eol, every ref
 * under refs/heads/, refs/remotes/ and refs/tags/ with what it points to
 * (sorted: packing the refs changes nothing), a named mainline's commit,
 * the shallow boundary, and SS_LAYOUT_VERSION.  Not HEAD: a layout HEAD
 * decided says so (head_decided), so that an index records the same
 * rows whatever HEAD is.  The commits the refs reach are not read: a
 * commit's parents never change, so two equal keys give one layout (a
 * commit object fetched later into a damaged repository aside).  A few
 * milliseconds where finding the layout walks the whole history.  0, or
 * < 0 with the message set.
 */
int ss_layout_key(char out[41], ss_repo *repo, const ss_layout_options *o);

/* Raised whenever ss_layout_find_repo() may find another layout from the
 * same refs (a rule changed), so that no kept layout (ss_layout_load)
 * of an older rule is taken. */
#define SS_LAYOUT_VERSION 1

/*
 * The layout as text for ss_layout_load() (malloc'd, NULL when out of
 * memory): every field but head, and note when HEAD alone made it.
 */
char *ss_layout_save(const ss_layout *l);

/*
 * The layout text (ss_layout_save()) keeps, into *out, when it was found
 * from the inputs of key (ss_layout_key() now) and still holds with
 * HEAD as repo has it now: head read again, HEAD's note said again.  0;
 * SS_ENOTFOUND when it was found from other inputs or HEAD now decides
 * otherwise, SS_EINVALID when text is no layout of this version (the
 * text may come from a damaged file: every field is checked), both with
 * the message set; SS_ENOMEM.
 */
int ss_layout_load(ss_layout **out, const char *text, const char *key, ss_repo *repo);

/* The kind of release tag in l ("mainline", "stable", "rc"), NULL when l
 * (NULL allowed) does not list it. */
const char *ss_layout_release_kind(const ss_layout *l, const char *tag);

/* "stable", "mainline", "staging", "end-of-life", "copy", "unnamed",
 * "releases". */
const char *ss_layout_role_name(ss_layout_role role);

/*
 * What was found, in one line without a newline (malloc'd, NULL when out
 * of memory): "mainline main (found; HEAD is v255-stable), 641 release
 * tags: 256 mainline, 300 stable, 85 rc; branches: 20 stable, 2 staging,
 * 14 end-of-life, 1 copy".
 */
char *ss_layout_describe(const ss_layout *l);

/* Whether branch name (short) is a default target of l: a stable branch. */
int ss_layout_is_target(const ss_layout *l, const char *name);

#endif
