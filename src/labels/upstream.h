/*
 * upstream.h - find the upstream commit a backport names.
 *
 * Stable trees say where a backport came from in its message:
 *   commit <sha> upstream.             (Linux stable)
 *   [ Upstream commit <sha> ]          (Linux stable, DPDK LTS)
 *   upstream commit <sha>
 *   backported from upstream commit <sha>
 *   (cherry picked from commit <sha>)  (git cherry-pick -x)
 * in any case.  Extra POSIX extended regexes may be added; their first
 * parenthesised group must capture the sha (or the whole match is searched
 * for one).
 */
#ifndef SS_UPSTREAM_H
#define SS_UPSTREAM_H

#include <stddef.h>

typedef struct ss_upstream ss_upstream;

/* Compile the built-in patterns plus the extra ones (may be NULL/0). */
int ss_upstream_new(ss_upstream **out, const char **extra, size_t nextra);
void ss_upstream_free(ss_upstream *u); /* NULL is a no-op */

/*
 * Find upstream shas (40 hex digits, lower-cased) in message; writes at
 * most max distinct ones to out and returns how many were found.
 */
size_t ss_upstream_find(const ss_upstream *u, const char *message, char (*out)[41], size_t max);

#endif
