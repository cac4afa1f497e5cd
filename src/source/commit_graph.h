/*
 * commit_graph.h - git's commit-graph file read for ancestry walks.
 *
 * `git gc` (gc.writeCommitGraph, on by default) and `git maintenance`
 * keep <objects>/info/commit-graph: every commit's id (sorted) and its
 * parents as positions in that list, so that a walk of the whole
 * history reads no object.  A kernel-sized history of 1.3 M commits
 * is walked in 0.9 s that way by git rev-list, and in 11-15 s by parsing
 * each commit (libgit2 1.5's revwalk does not read the file).  Only what
 * a walk needs is read: the ids, the parents (the extra edges of
 * octopus merges included); the trees, generations and dates are not.
 *
 * Format: Documentation/gitformat-commit-graph.txt of git (version 1,
 * SHA-1).  A file this reader does not take (missing, another version or
 * hash, a chain of split graphs, a chunk out of bounds, a parent
 * position past the end) is no graph: ss_commit_graph_open() gives NULL
 * and the caller walks commits as before.  Commits newer than the file
 * are not in it; a walk reads those from the repository until it
 * reaches the graph.
 */
#ifndef SS_SOURCE_COMMIT_GRAPH_H
#define SS_SOURCE_COMMIT_GRAPH_H

#include <stddef.h>
#include <stdint.h>

#include <git2.h>

typedef struct ss_commit_graph ss_commit_graph;

/*
 * The commit-graph of repo's object store (its commondir's
 * objects/info/commit-graph), mapped; *out NULL when there is none this
 * reader takes (see above).  0, or SS_ENOMEM.
 */
int ss_commit_graph_open(ss_commit_graph **out, git_repository *repo);
void ss_commit_graph_free(ss_commit_graph *g); /* NULL is a no-op */

/* The number of commits in g. */
uint32_t ss_commit_graph_count(const ss_commit_graph *g);
/* 1 with *pos set when oid is in g, else 0. */
int ss_commit_graph_find(const ss_commit_graph *g, const git_oid *oid, uint32_t *pos);
/* The id of the commit at pos (< count). */
void ss_commit_graph_id(git_oid *out, const ss_commit_graph *g, uint32_t pos);
/*
 * The parents of the commit at pos as positions into par[0..max), in
 * order; returns how many it has (may be more than max: the rest not
 * written), or -1 when the file is damaged there (then g is not to be
 * trusted: walk the commits instead).
 */
int ss_commit_graph_parents(const ss_commit_graph *g, uint32_t pos, uint32_t *par, size_t max);

#endif
