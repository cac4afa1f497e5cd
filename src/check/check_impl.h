/*
 * check_impl.h - what the files of src/check/ share (internal): a branch
 * check (check.c opens it), the blame cache (check_needs.c), and the
 * look-ups one file makes of another's.
 */
#ifndef SS_CHECK_IMPL_H
#define SS_CHECK_IMPL_H

#include <git2.h>

#include "check/check.h"
#include "labels/carried.h"
#include "source/git_repo.h"
#include "util/strmap.h"
#include "util/u64map.h"

struct ss_check {
	ss_repo *handle;     /* the repository, a reference: shared with idx
				and, with a blame cache, the checks of path */
	git_repository *repo; /* handle's */
	git_commit *branch;
	git_tree *tree;
	char id[41];
	char ref[256];       /* what --onto named: a full ref name or the id */
	char name[128];      /* the branch's short name ("22.11") */
	char *ambiguity;     /* NULL, or which of several candidates was taken */
	char *path;          /* the repository as opened */
	int prereqs;         /* opts.prereqs */
	const ss_carried *carried; /* borrowed, NULL */
	ss_u64map ancestors; /* the branch's commits (first 64 bits of each id),
				built on the first look-up; cap 0: not yet */
	int no_ancestors;    /* the walk failed: ask libgit2's graph each time */
	ss_histidx *idx;     /* no commits, the repository attached: Fixes:
				and revert targets are resolved there */
	ss_check_blame_cache *bc; /* borrowed, NULL: blames not shared */
	int shared_repo;     /* handle is bc's: ck's branch registered there */
};

/* One blamed hunk: its owners, whichever branch asked. */
struct blame_entry {
	git_oid boundary;    /* the blame's oldest commit */
	int bounded;         /* 0: walked down to the root */
	git_oid *own;        /* the owners, newest first, same time in line order */
	size_t nown;
};

struct ss_check_blame_cache {
	ss_repo *repo;       /* the repository of the first check registered,
				shared by the checks of its path: one object
				cache, not one per branch */
	git_oid *tips;       /* the registered branches */
	size_t ntips, tipcap;
	ss_strmap *keys;     /* "<id> <start> <lines> <path>" -> index into e */
	struct blame_entry *e;
	size_t cap;
	size_t blamed, reused;
};

/* Is the commit id in the branch (check.c)?  ss_check_in_branch without
 * its time. */
int ss_check_in_branch_id(ss_check *ck, const char *id, char full_out[41]);

/* Is path a blob in the branch's tree (check_apply.c)? */
int ss_check_has_path(ss_check *ck, const char *path);

/* Does c's patch apply to the branch's tree: out's apply, path and hunk
 * (check_apply.c). */
int ss_check_apply_tree(ss_check_result *out, ss_check *ck, const ss_commit *c);

#endif
