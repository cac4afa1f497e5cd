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
 *
 * Hostile repositories: a commit whose header libgit2 would refuse (see
 * ss_git_graph_parse_commit()), a parent that is no commit or is absent,
 * or a cycle (object ids are not checked against contents, as git log
 * does not, so a damaged store can make one) ends the walk with an error
 * naming the commit, before anything is listed.  A shallow clone's
 * grafted commits (<commondir>/shallow) are roots, as for git log.
 * Replace refs (refs/replace/) and info/grafts are not applied, as in
 * libgit2 1.5: git log applies them, so such a repository is walked as
 * its objects are, not as git log shows it.
 */
#ifndef SS_SOURCE_GIT_GRAPH_H
#define SS_SOURCE_GIT_GRAPH_H

#include <stddef.h>
#include <stdint.h>

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
 * "cannot walk history of '<path>': cannot read commit <id>: <why>",
 * "...: cannot read commit <id>, parent of <id>: <why>",
 * "...: commit <id>: <what is wrong with it>" (see
 * ss_git_graph_parse_commit()), or "...: history has a cycle through
 * commit <id>" (ids are not checked against the objects' contents, so a
 * damaged store can make one).
 */
int ss_git_graph_walk(ss_git_graph *g, enum ss_git_graph_order order, git_oid **out, size_t *n);

/*
 * A commit object's header as the walk reads it, the way libgit2 1.5's
 * commit parser takes it (what it refuses is refused here, so that a
 * commit the walk lists can be read): "tree <id>\n", then the parent
 * lines "parent <id>\n" one after the other, an author line, perhaps
 * more author lines (read, then dropped), and a committer line, each
 * "<who> <<email>> ..."
 * ending in a newline; the committer time is the number from the second
 * byte after the line's last '>' (0 when the line ends before), which
 * must be a number that fits in 64 bits.  Anything after is not read.
 */
#define SS_GIT_GRAPH_PARENT_LINE 48      /* "parent " + 40 hex + "\n" */
#define SS_GIT_GRAPH_MAX_PARENTS 65535   /* libgit2's limit for the walk */

struct ss_git_graph_commit {
	int64_t time;         /* committer time */
	size_t nparents;      /* at most SS_GIT_GRAPH_MAX_PARENTS */
	const char *parents;  /* the first parent's hex id, in the buffer; NULL without */
};

/*
 * Parse len bytes at buf (no NUL needed; buf may be NULL when len is 0)
 * into *out, which points into buf.  0, or SS_EINVALID with *why a static
 * text ("bad parent line", "no committer line", ...).  Sets no error
 * message.
 */
int ss_git_graph_parse_commit(const char *buf, size_t len, struct ss_git_graph_commit *out,
			      const char **why);
/* Parent i of a parsed commit into id (GIT_OID_RAWSZ bytes): 0, or
 * SS_EINVALID when i is out of range. */
int ss_git_graph_parent(const struct ss_git_graph_commit *c, size_t i, unsigned char *id);

/*
 * After a walk that listed the n commits ids (any order), which merge
 * brought each into the mainline, the first-parent line of ids[n - 1]
 * (the newest of a SS_GIT_GRAPH_DATE_REVERSE walk): group[i] is the index
 * in ids of the mainline merge whose second (or later) parents reach
 * ids[i] first, as "git log M^1..M" lists them; SIZE_MAX for the
 * mainline's own commits and what no mainline merge reaches within the
 * walk.  group has n slots.  0 or SS_ENOMEM.
 */
int ss_git_graph_groups(ss_git_graph *g, const git_oid *ids, size_t n, size_t *group);

/* Commits known to the graph (read, or named as a parent). */
size_t ss_git_graph_size(const ss_git_graph *g);

#endif
