/*
 * check.h - a commit checked against a stable branch: does its patch
 * apply to the branch's tree, is the commit already in the branch, and is
 * the bug it fixes there at all.
 *
 * The branch is a revision of a git repository (a stable tree checkout
 * such as linux-6.6.y, or a tag such as v6.6.60); the commits may come
 * from any source (mainline repository, format-patch mails, a lore
 * archive): each commit's parsed hunks are placed on the blobs of the
 * branch's tree the way "git apply --check" places them (check_apply.c), in
 * memory, no working directory touched.
 *
 * "Already there" means the commit's own id is the branch revision or an
 * ancestor of it (a mainline commit from before the fork); backports
 * carry new ids and are found by the labeler instead (labels/backports.h,
 * rank's --stable).  "The bug is there" means a Fixes: target (or a
 * reverted commit) names a commit of the repository that is the branch
 * revision or an ancestor of it.  "What must come first" (opt-in: a
 * blame per conflicting commit) is the commits that last touched the
 * lines the conflicting hunk expects, at the commit's parent, and are not
 * in the branch.
 */
#ifndef SS_CHECK_H
#define SS_CHECK_H

#include "commit/commit.h"
#include "history/histidx.h"

typedef struct ss_check ss_check;

/*
 * The blames of conflicting hunks, shared by the checks of several
 * branches of one repository (rank --onto A --onto B): a hunk's blame
 * happens at the commit's parent in the repository and does not depend on
 * the branch, only the filter applied after it (owners the branch lacks,
 * or carries under another id) does.  Each (commit, path, hunk start,
 * hunk lines) is blamed once, down to a common ancestor of every
 * registered branch and the commit (the branches' forks: a line older than
 * that is in each of them), and every branch filters the owners itself,
 * with the result a blame of its own would give.
 *
 * The checks sharing it also read one repository object, which the
 * cache opens and owns (one object cache of libgit2, not one per branch
 * holding the same commits and blobs).
 *
 * The caller owns the cache: it must outlive every check opened with it
 * and be freed after them.  Checks sharing it must open the same
 * repository (one opening another path does not use it).  Not
 * thread-safe: the checks sharing it are used from one thread.
 */
typedef struct ss_check_blame_cache ss_check_blame_cache;
int ss_check_blame_cache_new(ss_check_blame_cache **out);
void ss_check_blame_cache_free(ss_check_blame_cache *bc); /* NULL is a no-op */
/* Blames run and blames reused so far (for tests and benchmarks). */
void ss_check_blame_cache_stats(const ss_check_blame_cache *bc, size_t *blamed, size_t *reused);

struct ss_index;

typedef struct {
	const char *rev;  /* the branch: local, remote-tracking, tag or id ("HEAD") */
	int prereqs;      /* name what a conflicting commit needs first (0) */
	/* NULL, or blames shared with the other branches' checks (borrowed:
	 * it must outlive the check); the check registers its branch in it */
	ss_check_blame_cache *blame_cache;
	/* NULL, or the repository at path already open (a run's, borrowed:
	 * the check takes a reference of its own), read instead of opening
	 * path again; a handle of another path is not used */
	ss_repo *repo;
	/* keep the branch's ancestry in the repository for the next run
	 * (check_ancestry.c) when it holds at least this many commits; 0:
	 * SS_CHECK_ANCESTRY_KEEP_MIN, SIZE_MAX: never keep nor read one */
	size_t ancestry_keep_min;
	/* NULL, or the project index of the repository (borrowed: it must
	 * outlive the check): the walk of a batch's history for the
	 * prerequisites takes the files each commit changed from its rows
	 * instead of comparing the commit's trees (check_lines.c) */
	struct ss_index *index;
} ss_check_options;

#define SS_CHECK_OPTIONS_INIT { "HEAD", 0, NULL, NULL, 0, NULL }

/* A branch's ancestry below this is read again each run: DPDK's and
 * systemd's (under 100,000 commits) in well under a second. */
#define SS_CHECK_ANCESTRY_KEEP_MIN 100000

/*
 * Open the repository at path and resolve opts->rev (opts NULL: the
 * defaults) to the commit whose tree patches are applied to.  *out is
 * NULL on failure.  Returns 0 or < 0 with the message set.
 */
int ss_check_open(ss_check **out, const char *path, const ss_check_options *opts);
void ss_check_free(ss_check *ck); /* NULL is a no-op */

/*
 * Read commit id (40 hex digits) of the repository with its diff, for a
 * prerequisite the batch lacks.  *out NULL and SS_ENOTFOUND (message set)
 * when it is not there.
 */
int ss_check_read_commit(ss_commit **out, ss_check *ck, const char *id);

/* The full id of the branch revision (40 hex digits). */
const char *ss_check_branch_id(const ss_check *ck);

/*
 * What opts->rev was taken as.  The revision is looked up as a maintainer
 * means it: a local branch, else a remote-tracking branch of that name
 * (origin's first: in a fresh clone "22.11" is "origin/22.11"), else a
 * tag, else anything git rev-parse takes (an id, "origin/22.11").
 * ss_check_branch_ref() is the full ref taken ("refs/remotes/origin/22.11")
 * or the revision as written when it is an id or an expression;
 * ss_check_branch_name() the short name verdicts use ("22.11");
 * ss_check_ambiguity() NULL, or a message naming the candidates that
 * name different commits and the one taken (for a warning).  Never NULL
 * but the last; they live as long as ck.
 */
const char *ss_check_branch_ref(const ss_check *ck);
const char *ss_check_branch_name(const ss_check *ck);
const char *ss_check_ambiguity(const ss_check *ck);

#define SS_CHECK_MAX_NEEDS 4

/* Enum values only grow. */
typedef enum {
	SS_APPLY_CLEAN = 0,     /* every hunk applies to the branch's tree */
	SS_APPLY_CONFLICT = 1,  /* a hunk does not apply (path, hunk) */
	SS_APPLY_MISSING = 2,   /* a file it changes is not in the branch (path) */
	SS_APPLY_EXISTS = 3,    /* a file it adds is already there (path) */
	SS_APPLY_UNKNOWN = 4    /* cannot tell: no diff, binary or capped diff */
} ss_apply_status;

typedef struct {
	ss_apply_status apply;
	char path[512];     /* the file that stopped it ("" when clean) */
	int hunk;           /* 1-based hunk of that file for CONFLICT, else 0 */
	int in_branch;      /* the commit itself is in the branch: 1, 0 */
	int in_repo;        /* the repository has the commit itself: 1, 0 (mail) */
	/* the bug: 1 a Fixes:/revert target is in the branch, 0 every target
	 * was found in the repository and none is, -1 no target or none
	 * found in the repository */
	int bug_in_branch;
	char target[41];    /* the target that decided (full id), or the
			       first one written ("" when none) */
	/* with opts.prereqs, for a conflict of a commit the repository has:
	 * the commits that last touched the lines the conflicting hunk
	 * expects (its context and removed lines, blamed at the commit's
	 * parent) and are not in the branch, most recent first: what must
	 * come first */
	char needs[SS_CHECK_MAX_NEEDS][41];
	int nneeds;
	/* for a conflict: the preimage lines of the conflicting hunk (1-based
	 * start in the commit's parent, count), what ss_check_needs() blames */
	int hunk_start, hunk_lines;
	int files_in_branch;  /* every file it modifies or deletes is in the branch */
	/* with ss_check_set_carried: the branch commit carrying it under
	 * another id (backport line or patch id), "" when none; such a
	 * commit is not blamed for prerequisites */
	char carried_as[41];
} ss_check_result;

/*
 * Check c against the branch.  Returns 0 (the result in *out), or < 0 with
 * the message set on a repository error.  Not thread-safe.
 */
int ss_check_commit(ss_check_result *out, ss_check *ck, const ss_commit *c);

/*
 * ss_check_commit(), also handing back the Fixes:/revert targets it
 * resolved in the history index (ss_check_history), so that a caller
 * needing them does not resolve c a second time.  *facts is filled when
 * 0 is returned; its pointers live as long as c and ck.
 */
int ss_check_commit_facts(ss_check_result *out, ss_histidx_facts *facts, ss_check *ck,
			  const ss_commit *c);

/*
 * What a conflict found by ss_check_commit() needs first, asked later
 * (the verdicts ask it only for the picks they propose): blame the
 * conflicting hunk (res->path, hunk_start, hunk_lines) at the parent of
 * commit id in the repository, down to the fork of the branch only (older
 * lines are in the branch anyway), and fill res->needs with the owners the
 * branch lacks, newest first (owners of the same time in line order);
 * owners the branch carries under another id (ss_check_set_carried) are
 * left out.  With a blame cache (ss_check_options), a hunk another branch
 * had blamed is not blamed again: the same result, from its owners.  Nothing when res is not a
 * conflict or id is not in the repository.  0 or < 0 with the message set.
 */
int ss_check_needs(ss_check_result *res, ss_check *ck, const char *id);

/*
 * The conflicting commits whose needs (ss_check_needs) will be asked next:
 * ids[i], its conflicting hunk in file paths[i].  Their history down to
 * the branch's fork is then walked once for all of them, on the first
 * blame, instead of once for each hunk (check_lines.c: a week of the
 * kernel's picks against a branch forked years back); a commit not
 * announced is blamed alone as before.  Replaces the plan before it; n 0
 * forgets it.  0 or < 0 with the message set (no memory).
 */
int ss_check_plan_needs(ss_check *ck, const char *const *ids, const char *const *paths, size_t n);

/* Backports the branch carries, for ss_check_commit() (carried_as) and
 * ss_check_needs() (borrowed; NULL: only the branch's ancestry counts). */
struct ss_carried;
void ss_check_set_carried(ss_check *ck, const struct ss_carried *cr);

/*
 * Is the commit named by id (full or abbreviated) the branch revision or
 * an ancestor of it?  1 yes, 0 no, -1 not a commit of the repository;
 * full (may be NULL) gets its full id when found.  *time (may be NULL)
 * its committer time.
 */
int ss_check_in_branch(ss_check *ck, const char *id, char full[41], int64_t *time);

/*
 * How many commits ss_check_in_branch() read one by one for the branch's
 * ancestry: 0 when it asked none, or when git's commit-graph file gave
 * the ancestry (source/commit_graph.h).  NULL: 0.
 */
size_t ss_check_ancestry_walked(const ss_check *ck);

/*
 * Where the branch's ancestry came from, for a big one kept between runs
 * (check_ancestry.c, ss_check_options.ancestry_keep_min): nothing kept
 * (NONE), the file of an earlier run as it was (READ), that file and the
 * *added commits the branch gained since, then written again (EXTENDED),
 * or built here and written for the next run (WRITTEN).  *error (may be
 * NULL) is NULL, or why the file could not be written (the run goes on
 * without it); both live as long as ck.  NULL ck: NONE.
 */
typedef enum {
	SS_CHECK_KEPT_NONE,
	SS_CHECK_KEPT_READ,
	SS_CHECK_KEPT_EXTENDED,
	SS_CHECK_KEPT_WRITTEN,
} ss_check_kept;
ss_check_kept ss_check_ancestry_kept(const ss_check *ck, size_t *added, const char **error);

/*
 * The history index the check resolves Fixes:/revert targets with (the
 * repository attached); commits added to it (ss_histidx_add_commit) are
 * found as targets too.  Borrowed, lives as long as ck.
 */
struct ss_histidx;
struct ss_histidx *ss_check_history(ss_check *ck);

/*
 * The repository the check reads (opened once by ss_check_open(), its
 * path without "git:"), for a caller's further lookups in it
 * (ss_repo_resolve() ...) instead of opening it again.  Borrowed, lives
 * as long as ck (ss_repo_ref() to keep it longer).
 */
ss_repo *ss_check_repo(const ss_check *ck);

/*
 * A series: commits applied in memory one after another on the branch's
 * tree, as git am would apply a queue.  ss_check_series_apply() places c
 * on the branch plus every commit applied so far: 0 when it applies (and
 * joins the series), 1 when it does not (out says why: conflict with path
 * and hunk, missing, exists, unknown for binary or capped diffs; the
 * series is unchanged), < 0 on error.  The series borrows ck.
 */
typedef struct ss_check_series ss_check_series;
int ss_check_series_new(ss_check_series **out, ss_check *ck);
void ss_check_series_free(ss_check_series *s); /* NULL is a no-op */
int ss_check_series_apply(ss_check_result *out, ss_check_series *s, const ss_commit *c);

/* The content of path after the series so far: 1 with a malloc'd copy
 * (NUL-terminated, *len bytes before it), 0 when the file is not there,
 * < 0 on error. */
int ss_check_series_file(char **out, size_t *len, ss_check_series *s, const char *path);

/* "applies", "conflict", "missing", "exists", "unknown" */
const char *ss_apply_status_name(ss_apply_status s);

#endif
