/*
 * git.h - repository helpers beyond the commit iterator.  Each reader
 * of a repository comes twice: ss_repo_<verb>() on an open handle
 * (source/git_repo.h), what a caller that reads it several times uses, and
 * ss_git_<verb>() on a path, which opens the repository as given (a "git:"
 * prefix is not dropped), calls the first and closes it.
 */
#ifndef SS_GIT_H
#define SS_GIT_H

#include <stddef.h>

#include "source/git_repo.h"  /* the repository handle, libgit2's settings */

/*
 * libgit2's last error message of this thread, or "unknown libgit2 error"
 * (never NULL): the one helper every module that calls libgit2 uses.
 */
const char *ss_git_error(void);

/*
 * List the local branches (refs/heads/...) and remote-tracking branches
 * (refs/remotes/...) of the repository at repo whose short name matches the
 * fnmatch(3) glob (NULL: all).  *out is a malloc'd array of malloc'd short
 * names, sorted; free with ss_git_free_names().  0 or < 0 with message set.
 */
int ss_git_branches(char ***out, size_t *n, const char *repo, const char *glob);
/* The same in the repository of the handle r (messages name its path). */
int ss_repo_branches(char ***out, size_t *n, ss_repo *r, const char *glob);
void ss_git_free_names(char **names, size_t n);

/* A branch's short name as a local branch would have it: the part after
 * the first '/' ("origin/21.11" -> "21.11"), else name itself.  Points
 * into name. */
const char *ss_git_branch_local(const char *name);

/*
 * The commit rev names in the repository at repo (a branch, tag, "HEAD",
 * full or abbreviated id; tags peeled), as 40 hex digits and a NUL in out.
 * 0; SS_ENOTFOUND with a message when rev names no commit there.
 */
int ss_git_resolve(char out[41], const char *repo, const char *rev);
/* The same in the repository of the handle r (messages name its path). */
int ss_repo_resolve(char out[41], ss_repo *r, const char *rev);
/*
 * The commit rev's line had at time t: rev's commit, or the newest of its
 * first parents committed by t (seconds since the epoch; --as-of).
 * SS_ENOTFOUND when rev names no commit, or none of the line is that old.
 */
int ss_git_resolve_as_of(char out[41], const char *repo, const char *rev, int64_t t);

/*
 * Whether the history of the commit top (a full id) in the repository at
 * repo holds the commit id (a full id): *yes = 1 when id is top or one of
 * its ancestors, else 0.  0; < 0 with a message when either is not a
 * commit there.
 */
int ss_git_contains(int *yes, const char *repo, const char *top, const char *id);
/* The same in the repository of the handle r (messages name its path). */
int ss_repo_contains(int *yes, ss_repo *r, const char *top, const char *id);

/*
 * One walk of ss_git_check_walks(): the commits of tip (40 hex digits)
 * minus the history of each of the nhide ids of hide (absent ones left
 * out by the caller), as the git source walks "tip ^h...".
 */
typedef struct {
	const char *tip;
	const char *hide[2];
	size_t nhide;
} ss_git_check;

/*
 * Walk the n walks over the repository at repo ("git:" prefix allowed) as
 * the git source would before listing anything (its object store, no
 * hash check, a shallow clone's grafted commits as roots), with one graph
 * for them all (each commit read once), listing nothing: 0 when every
 * commit they reach can be taken, else the walk's error, as a source
 * opened on those revisions gives it ("cannot walk history of '<repo>':
 * commit <id>: ...", source/git_graph.h).  For a writer that must refuse
 * bad input before it writes anything.
 */
int ss_git_check_walks(const char *repo, const ss_git_check *walks, size_t n);

/*
 * Where the repository at repo keeps its data (its common git directory,
 * the main repository's for a worktree, with a trailing slash; *gitdir
 * malloc'd) and the short name of HEAD's branch (*head malloc'd; "HEAD"
 * when detached).  Either may be NULL.  0 or < 0
 * with a message set.
 */
int ss_git_locate(char **gitdir, char **head, const char *repo);
/* The same for the repository of the handle r. */
int ss_repo_locate(char **gitdir, char **head, ss_repo *r);

/*
 * How many changed files the git sources of this process could not diff
 * because their blob is missing from the object store (a partial clone:
 * each is in its commit as an unreadable file, SS_FILE_UNREADABLE), and
 * the one of the smallest commit id ("'path' (blob <id>) of commit <id>")
 * into first (may be NULL).
 */
size_t ss_git_missing_objects(char *first, size_t size);

#endif
