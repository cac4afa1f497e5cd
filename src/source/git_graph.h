/*
 * git_graph.h - a compact commit walk: the commits of pushed tips minus
 * the history of hidden ones, in the order libgit2 1.5's revwalk gives
 * (unsorted, or GIT_SORT_TOPOLOGICAL | GIT_SORT_TIME | GIT_SORT_REVERSE:
 * `git log --reverse --date-order`), ties and clock skew included.
 *
 * libgit2's revwalk keeps about 320 bytes of heap a commit at its peak
 * (its nodes, its id map, the commit objects it parsed); this graph keeps
 * each commit's id, committer time, parents (as indexes into its own
 * table) and walk flags: about 50 bytes.  Commits are read through the
 * repository's odb, so through the git source's object store when one is
 * attached, and each is read once for the graph's lifetime.
 */
#ifndef SS_SOURCE_GIT_GRAPH_H
#define SS_SOURCE_GIT_GRAPH_H

#include <stddef.h>

#include <git2.h>

typedef struct ss_git_graph ss_git_graph;

enum ss_git_graph_order {
	SS_GIT_GRAPH_UNSORTED = 0,     /* libgit2's GIT_SORT_NONE */
	SS_GIT_GRAPH_DATE_REVERSE = 1  /* topological, by time, reversed */
};

/*
 * A graph over repo's objects (repo must outlive it); path names repo in
 * messages.  0, or SS_ENOMEM / < 0 with the message set.
 */
int ss_git_graph_new(ss_git_graph **out, git_repository *repo, const char *path);
/* NULL is a no-op. */
void ss_git_graph_free(ss_git_graph *g);

/*
 * Start the walk from commit oid (push), or hide commit oid and its
 * history (hide), as git_revwalk_push()/git_revwalk_hide() do with a
 * commit id; the order of the calls matters for commits of equal time,
 * as in libgit2.  The commit is read by ss_git_graph_walk().  0 or
 * SS_ENOMEM.
 */
int ss_git_graph_push(ss_git_graph *g, const git_oid *oid);
int ss_git_graph_hide(ss_git_graph *g, const git_oid *oid);

/*
 * Walk what was pushed and hidden since the last walk, in order, into
 * *out (malloc'd, *n ids; NULL when empty), and forget the pushes and
 * hides (the commits read stay known).  0, or < 0 with the message set:
 * "cannot walk history of '<path>': cannot read commit <id>: <why>".
 */
int ss_git_graph_walk(ss_git_graph *g, enum ss_git_graph_order order, git_oid **out, size_t *n);

/* Commits known to the graph (read, or named as a parent). */
size_t ss_git_graph_size(const ss_git_graph *g);

#endif
