/*
 * impl.h - what the files of src/history/ share (internal).
 *
 * The index keeps one hist_entry per commit; resolve and blame reach the
 * attached repository and the entries' source positions through these
 * functions.  Entries live as long as the index (an arena owns strings
 * and entries made for repository look-ups).
 */
#ifndef SS_HISTORY_IMPL_H
#define SS_HISTORY_IMPL_H

#include <stdint.h>

#include <git2.h>

#include "history/histidx.h"
#include "source/git.h"

#define HIST_NO_SOURCE UINT32_MAX

struct hist_entry {
	char id[41];
	unsigned char has_fixes, is_revert, from_repo;
	unsigned char indexed;  /* from a project index: the graph knows it */
	uint32_t src;         /* source number, HIST_NO_SOURCE for repository look-ups */
	uint32_t seq;         /* c->index within that source */
	uint32_t order;       /* order of adding, so that the first copy wins */
	int64_t time;
	const char *subject;
};

/* Commits whose id starts with prefix (validated, lower case): like
 * ss_histidx_lookup_prefix() but giving the entries. */
int hist_lookup(const struct hist_entry **out, size_t max, ss_histidx *h, const char *prefix,
		size_t len);

/* The added commit with exactly this id, or NULL. */
const struct hist_entry *hist_find_added(ss_histidx *h, const char *id);

/* The number of a source commits were added from, or HIST_NO_SOURCE. */
uint32_t hist_source_find(const ss_histidx *h, const char *name);

/* The attached repository, or NULL. */
git_repository *hist_repo(ss_histidx *h);

/* An entry for a commit of the attached repository (cached in the index's
 * arena); NULL with the message set on failure. */
const struct hist_entry *hist_entry_from_repo(ss_histidx *h, const git_oid *oid);

void hist_entry_view(ss_histidx_commit *out, const struct hist_entry *e);

/* Lines that carry no logic: blank, braces, comment text (what blame and
 * the release-lines check skip). */
int hist_line_trivial(const ss_line *l);

/*
 * The lines of hunk h that say where a bug was, by change block: its
 * non-trivial removed lines (weight 1), or, for a block that only adds,
 * the nearest non-trivial context line above and below it (the code the
 * addition guards; weight 1/2).  fn gets each one's index in h->lines;
 * the walk stops at the first non-zero it returns, which is returned.
 * Blame (hist_blame.c) and the release-lines check (hist_lines.c) look at
 * these lines.
 */
int hist_hunk_evidence(const ss_hunk *h, int (*fn)(void *ud, size_t j, double weight),
		       void *ud);

/* Committer time, or author time when the source has none (mail). */
int64_t hist_commit_time(const ss_commit *c);


#endif
