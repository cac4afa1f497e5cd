/*
 * carried.h - what one stable branch already carries, under any id: the
 * upstream commits its backport lines name ("[ upstream commit <sha> ]",
 * "commit <sha> upstream.", "(cherry picked from commit <sha>)": upstream.h)
 * and the patch ids of its own commits (commit/patchid.h: a cherry-pick
 * without a line), each mapped to the branch commit that carries it.
 *
 * This is the small interface the verdicts (check/verdict.h) ask "is it
 * already there": ss_carried_read() fills it from the branch itself (the
 * commits of the branch that upstream does not have, read with their
 * diffs); a project index fills the same table with ss_carried_add()
 * instead (run/branches.c's ss_run_carried_load), and
 * ss_carried_learn_style() then reads only those commits' messages, for
 * the style (ss_carried_read_style() walks the branch for them when one
 * cannot be read).  It also learns the branch's backport-line style, for
 * the queue's messages.
 *
 * Ids are 40 hex digits, lower case.  Strings given out live as long as
 * the table.
 */
#ifndef SS_CARRIED_H
#define SS_CARRIED_H

#include <stddef.h>
#include <stdint.h>

#include "commit/commit.h"

typedef struct ss_carried ss_carried;

/* How a commit was found on the branch.  Enum values only grow. */
typedef enum {
	SS_CARRIED_NONE = 0,
	SS_CARRIED_LINE = 1,     /* a backport line names it */
	SS_CARRIED_PATCH = 2     /* a branch commit has its patch id */
} ss_carried_how;

/* The backport-line styles a branch writes.  Enum values only grow. */
typedef enum {
	SS_BACKPORT_DPDK = 0,      /* "[ upstream commit <sha> ]" */
	SS_BACKPORT_UPSTREAM = 1,  /* "[ Upstream commit <sha> ]" (Linux) */
	SS_BACKPORT_LINUX = 2,     /* "commit <sha> upstream." (Linux stable) */
	SS_BACKPORT_CHERRY = 3     /* "(cherry picked from commit <sha>)" */
} ss_backport_style;

int ss_carried_new(ss_carried **out);
void ss_carried_free(ss_carried *cr); /* NULL is a no-op */

/*
 * Record that branch commit id carries the upstream commit upstream
 * (NULL: no line) and the patch whose key (ss_commit_patch_key) is
 * patch_key (0: none).  The first branch commit recorded for a key wins.
 * 0 or SS_ENOMEM.
 */
int ss_carried_add(ss_carried *cr, const char *upstream, uint64_t patch_key, const char *id);

/*
 * Record a branch commit read with its diff: every upstream sha its
 * backport lines name, its patch id, and the style of its line.
 */
int ss_carried_add_commit(ss_carried *cr, const ss_commit *c);

/*
 * Read the commits of branch (a revision of the repository at repo) that
 * hide (the mainline, e.g. "HEAD" or "main") does not have, with their
 * diffs, through ss_carried_add_commit().  0 or < 0 with the message set.
 */
int ss_carried_read(ss_carried *cr, const char *repo, const char *branch, const char *hide);

/*
 * Learn the backport-line style from the messages of the same commits
 * as ss_carried_read(), without their diffs (nothing else is recorded):
 * for a table filled with ss_carried_add().  0 or < 0 with the message set.
 */
int ss_carried_read_style(ss_carried *cr, const char *repo, const char *branch, const char *hide);

/*
 * The same from the messages of the branch commits already recorded
 * (ss_carried_add(): an index's rows of the branch), each read by id in
 * repo: no walk of the branch against its mainline, which libgit2 makes
 * a walk of the mainline down to the fork (5 s of a week --onto a branch
 * forked 145,000 commits back on a kernel-sized history, for 30,000
 * messages read here in well under one).  0, or < 0 with the message set
 * when a recorded commit is not in repo (the caller then walks).
 */
struct git_repository;
int ss_carried_learn_style(ss_carried *cr, struct git_repository *repo);

/*
 * Does the branch carry the upstream commit sha (NULL: look by patch
 * only) or its patch (patch_key, 0: none)?  The how, with *id (may be
 * NULL) the branch commit; SS_CARRIED_NONE when neither.
 */
ss_carried_how ss_carried_find(const char **id, const ss_carried *cr, const char *sha,
			       uint64_t patch_key);

/* Branch commits recorded (read or added), and the distinct upstream
 * commits they name. */
size_t ss_carried_commits(const ss_carried *cr);
size_t ss_carried_lines(const ss_carried *cr);

/* The style most of the branch's lines use (DPDK's when it has none). */
ss_backport_style ss_carried_style(const ss_carried *cr);

/* The line of style s for upstream commit sha, without a newline:
 * "[ upstream commit <sha> ]". */
void ss_backport_line(char *out, size_t size, ss_backport_style s, const char *sha);

#endif
