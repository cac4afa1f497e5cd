/*
 * history.h - what the commits before a commit, and the releases, tell
 * about it: the history the "history" feature group reads.
 *
 * Whether a fix belongs in stable depends on whether the bug it fixes ever
 * reached a release: a Fixes: target from the current development cycle
 * was never shipped, one older than the last release was.  Likewise a fix
 * to a file that appeared after the stable branches forked has nothing to
 * be backported to.
 *
 * An ss_history is a stream's past on top of src/history/ (one
 * implementation of the bug's history): an ss_histidx of the commits added
 * so far (Fixes:/revert targets with abbreviated-id ambiguity and quoted
 * subject checks), the releases (given with ss_history_set_releases(): a
 * releases TSV or a repository's tags with their graph; else the release
 * commits met in the stream, "version: 21.11.0", "Linux 6.6", never -rc;
 * else, for the kernel, the built-in table of its mainline releases),
 * and the time each file path was first touched (the earliest author time
 * of the commits added that touch it, in whatever order they came).
 *
 * Only the past is used: a commit is featurized (ss_history_facts) before
 * it is added, and a release counts only when its commit came earlier in
 * the stream or its date is not after the commit's time.  A target the
 * history does not know is older than the data, hence released.
 * Not thread-safe: look-ups may sort the index.
 */
#ifndef SS_HISTORY_H
#define SS_HISTORY_H

#include <stddef.h>
#include <stdint.h>

#include "commit/commit.h"
#include "history/histidx.h"

typedef struct ss_history ss_history;

int ss_history_new(ss_history **out);
void ss_history_free(ss_history *h); /* NULL is a no-op; never frees given releases */

/*
 * Use rel (borrowed: it must outlive h) instead of the release commits of
 * the stream; NULL goes back to those.  Call before the first add.
 */
void ss_history_set_releases(ss_history *h, const ss_releases *rel);

/*
 * Load the releases h uses (owned by h, replacing given ones): from the
 * "tag sha date" TSV file when not NULL, else from the tags of repo
 * matching glob (NULL: the default of ss_releases_from_repo()).  With
 * both file and repo, the repository's graph decides which release has a
 * commit (ss_releases_index_repo()).  0 or < 0 with the message set.
 */
int ss_history_load_releases(ss_history *h, const char *file, const char *repo,
			     const char *glob);

/* Use rel (taken: h frees it) as the releases, as ss_history_load_releases()
 * does for the ones it reads.  Call before the first add. */
void ss_history_take_releases(ss_history *h, ss_releases *rel);

/* Remember c (index entry, paths; a release commit when no releases were
 * given).  0 or < 0 with the message set. */
int ss_history_add(ss_history *h, const ss_commit *c);

/*
 * Remember a commit a project index knows (no message or diff at hand):
 * the index entry only (ss_histidx_add_known()); its paths come with
 * ss_history_add_path().  Never a release commit: the index gives its
 * releases with ss_history_set_releases().  0 or SS_ENOMEM.
 */
int ss_history_add_known(ss_history *h, const ss_histidx_commit *k);

/*
 * Path was touched at time t (author time): the path's first time is the
 * earliest of those given and of the added commits'.  0 or SS_ENOMEM.
 */
int ss_history_add_path(ss_history *h, const char *path, int64_t t);

/*
 * The bug's history of c against the commits added so far and the
 * releases before c (ss_histidx_resolve() with past_only, no blame).  h
 * may be NULL: nothing is known, every target is unknown.  Pointers in
 * *out live as long as c and h.  0 or < 0 with the message set.
 */
int ss_history_facts(ss_histidx_facts *out, const ss_history *h, const ss_commit *c);

/*
 * The releases in use: the given ones; else the release commits of the
 * stream; else, once a path only the Linux kernel has was added
 * ("arch/...", "include/linux/", "Documentation/" ...), the built-in table of
 * Linux mainline releases (ss_releases_linux(): tip mail carries no
 * release commits); else none (empty).
 */
const ss_releases *ss_history_releases(const ss_history *h);

/* Are the built-in Linux releases the ones in use? (NULL: no) */
int ss_history_uses_linux_releases(const ss_history *h);

/* The index of the commits added so far (for ss_histidx_lookup_prefix()). */
ss_histidx *ss_history_index(const ss_history *h);

/* Time path was first touched, or -1 when never. */
int64_t ss_history_path_time(const ss_history *h, const char *path);

/* Is c a release commit ("version: 21.11", "Linux 6.6", not an -rc)? */
int ss_history_is_release(const ss_commit *c);

/*
 * The release line of a tag or version ("11" of "v21.11", "21.11.0" or
 * "21.11.1"; "6" of "v6.6"): the digits after the first dot, which tell
 * LTS releases apart from the others across years.  Written to line[8];
 * 0 when tag has no such part.
 */
int ss_history_release_line(char line[8], const char *tag);

/*
 * Read the repository at path for ss_history_release_lines() (a handle of
 * h's own).  0, or SS_ENOTFOUND / SS_ENOMEM with the message set.
 */
int ss_history_open_repo(ss_history *h, const char *path);
/* The same through the open handle r (a reference is taken): the
 * repository is not opened again. */
int ss_history_use_repo(ss_history *h, ss_repo *r);
/* The same through an object store of cache bytes, keeping at most lines
 * line hashes of released files (ss_histlines_new_stored()): the same
 * answers in bounded memory. */
int ss_history_open_repo_bounded(ss_history *h, const char *path, size_t cache, size_t lines);
/* The repository opened read through repo until given NULL
 * (ss_histlines_borrow()). */
void ss_history_borrow_repo(ss_history *h, struct git_repository *repo);

/*
 * How much of the code c changes was in the last release before it (by
 * committer time; release candidates, releases known only by date and a
 * release at c's own time, which is c's own, are skipped):
 * ss_histlines_check() against that release's tree.  All zero (checked 0)
 * without a repository (ss_history_open_repo()) or a release before c.
 * 0 or SS_ENOMEM.
 */
int ss_history_release_lines(ss_histlines_facts *out, const ss_history *h,
			     const ss_commit *c);

/* The release ss_history_release_lines() checks c against: its commit id
 * (h's, valid while h's releases are), NULL for none (no repository, no
 * release before c). */
const char *ss_history_release_before(const ss_history *h, const ss_commit *c);

/* Number of commits remembered. */
size_t ss_history_count(const ss_history *h);

#endif
