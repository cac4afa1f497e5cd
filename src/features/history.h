/*
 * history.h - what earlier commits of the same stream tell about a commit.
 *
 * Whether a fix belongs in stable depends on whether the bug it fixes ever
 * reached a release: a Fixes: target from the current development cycle
 * was never shipped, one older than the last release was.  Likewise a fix
 * to a file that appeared after the stable branches forked has nothing to
 * be backported to.  A history remembers, for the commits seen so far (in
 * stream order, which for format-patch and git sources is topological),
 *   - author time by abbreviated id (first 12 and first 7 hex digits),
 *   - release commits ("version: 21.11", "Linux 6.6"; no -rc), and
 *   - the time each file path was first touched.
 * Only the past is used: a commit is featurized before it is added.  A
 * Fixes: target the history does not know is older than the data, hence
 * released.  Not thread-safe for writing; read-only use may be shared.
 */
#ifndef SS_HISTORY_H
#define SS_HISTORY_H

#include <stddef.h>
#include <stdint.h>

#include "commit/commit.h"

typedef struct ss_history ss_history;

int ss_history_new(ss_history **out);
void ss_history_free(ss_history *h); /* NULL is a no-op */

/* Remember c (id, author time, release, paths).  0 or SS_ENOMEM. */
int ss_history_add(ss_history *h, const ss_commit *c);

/* Author time of the commit whose id starts with hex[0..len) (len >= 7),
 * or -1 when unknown. */
int64_t ss_history_time(const ss_history *h, const char *hex, size_t len);

/* Time of the last release commit at or before t, or -1 when none. */
int64_t ss_history_release_before(const ss_history *h, int64_t t);

/* Number of release commits r with after < r <= until. */
size_t ss_history_releases_between(const ss_history *h, int64_t after, int64_t until);

/*
 * The release lines of the releases r with after < r <= until, newest
 * first, at most max: a release line is the version's part after its
 * first dot ("11" of "21.11.0", "6" of "Linux 6.6"), which tells LTS
 * releases apart from the others across years.  Returns how many were
 * written to out[max] (pointers into the history).
 */
size_t ss_history_release_lines(const ss_history *h, int64_t after, int64_t until,
				const char **out, size_t max);

/* Time path was first touched, or -1 when never. */
int64_t ss_history_path_time(const ss_history *h, const char *path);

/* Is c a release commit ("version: 21.11", "Linux 6.6", not an -rc)? */
int ss_history_is_release(const ss_commit *c);

/* Number of commits remembered. */
size_t ss_history_count(const ss_history *h);

#endif
