/*
 * check_impl.h - what the files of src/check/ share (internal): a branch
 * check (check_branch.c opens it), the blame cache (check_needs.c), and the
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
	size_t walked;       /* commits read one by one for ancestors (no
				commit-graph file gave them) */
	struct ss_index *index; /* opts.index: borrowed, NULL */
	size_t keep_min;     /* opts.ancestry_keep_min, 0 taken as the default */
	ss_check_kept kept;  /* where ancestors came from (check_ancestry.c) */
	size_t kept_added;   /* commits read to extend a kept one */
	char *kept_error;    /* NULL, or why it could not be kept (owned) */
	ss_histidx *idx;     /* no commits, the repository attached: Fixes:
				and revert targets are resolved there */
	ss_check_blame_cache *bc; /* borrowed, NULL: blames not shared */
	int shared_repo;     /* handle is bc's: ck's branch registered there */
	/* the batch ss_check_plan_needs() announced: its picks' parents and
	 * their hunks' files; the walk of their history built from it on
	 * the first blame (check_lines.c), NULL until then */
	git_oid *plan_tops;
	char **plan_paths;
	size_t nplan;
	struct ss_check_lines *lines;
	int lines_failed;    /* the walk failed: git_blame_file() each hunk */
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
	/* the last common ancestor of the tips and a commit found, and the
	 * tips' count then: a commit of the history check_lines.c walked
	 * down to it blames down to it too, without a merge base each */
	git_oid last_base;
	size_t last_ntips;   /* 0: none yet */
	struct blame_entry *e;
	size_t cap;
	size_t blamed, reused;
};

/*
 * The batch's history, for the blames of its hunks (check_lines.c): the
 * commits the tops hold and bottom does not, walked once, and for each of
 * paths[0..npaths) the ones that changed it.  0 or < 0 with the message
 * set.
 */
typedef struct ss_check_lines ss_check_lines;
/* ix: NULL, or the repository's project index, whose rows give the files
 * of the commits it holds (the others' trees are compared). */
int ss_check_lines_new(ss_check_lines **out, git_repository *repo, const git_oid *bottom,
		       const git_oid *tops, size_t ntops, const char *const *paths, size_t npaths,
		       struct ss_index *ix);
void ss_check_lines_free(ss_check_lines *h); /* NULL is a no-op */
/* The fork h was walked down to. */
const git_oid *ss_check_lines_bottom(const ss_check_lines *h);
/* Can h blame path at parent down to bottom: bottom is its bottom,
 * parent one of its commits, path one of its files?  (bottom NULL, path
 * NULL: any.) */
int ss_check_lines_covers(const ss_check_lines *h, const git_oid *bottom, const git_oid *parent,
			  const char *path);
/*
 * The commits that last changed lines start .. start + lines - 1 of path
 * at parent, down to h's bottom (older lines have none), newest first
 * (author time; the same time in line order), each once: *own malloc'd,
 * *nown of them, none when path is not a file at parent.  As
 * blame_owners() in check_needs.c, whose git_blame_file() it replaces for
 * a covered hunk.  0 or < 0 with the message set.
 */
int ss_check_lines_owners(ss_check_lines *h, git_oid **own, size_t *nown, const git_oid *parent,
			  const char *path, int start, int lines);

/* An id's first 64 bits, never 0 (ss_u64map's empty key): the key of
 * the branch's commits (check_branch.c) and of a batch's walk (check_lines.c). */
uint64_t ss_check_oid_key(const git_oid *oid);

/* Is the commit id in the branch (check_branch.c)?  ss_check_in_branch without
 * its time. */
int ss_check_in_branch_id(ss_check *ck, const char *id, char full_out[41]);

/* Is path a blob in the branch's tree (check_apply.c)? */
int ss_check_has_path(ss_check *ck, const char *path);

/* Does c's patch apply to the branch's tree: out's apply, path and hunk
 * (check_apply.c). */
int ss_check_apply_tree(ss_check_result *out, ss_check *ck, const ss_commit *c);

/*
 * The branch's ancestry kept by an earlier run (check_ancestry.c): read
 * into ck->ancestors, extended to the branch's tip when it moved on: 1,
 * or 0 when there is none to use (ck->ancestors left empty), < 0 out of
 * memory.  ss_check_ancestry_write() keeps ck->ancestors for the next
 * run when it is big enough; a failure is recorded in ck->kept_error.
 */
int ss_check_ancestry_read(ss_check *ck);
void ss_check_ancestry_write(ss_check *ck);

#endif
