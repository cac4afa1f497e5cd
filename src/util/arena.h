/*
 * arena.h - a bump allocator for objects that die together.
 *
 * A commit owns dozens to thousands of small strings (paths, diff lines,
 * trailers).  Allocating them from one arena makes ss_commit_free() one
 * walk over a few chunks and keeps the lines of a hunk close in memory.
 * Memory is never returned before ss_arena_free().  Allocations are
 * 16-byte aligned.  All functions return NULL only when malloc fails.
 */
#ifndef SS_ARENA_H
#define SS_ARENA_H

#include <stddef.h>

typedef struct ss_arena ss_arena;

ss_arena *ss_arena_new(size_t chunk_size);
void ss_arena_free(ss_arena *a); /* NULL is a no-op */

void *ss_arena_alloc(ss_arena *a, size_t size);        /* uninitialised */
void *ss_arena_calloc(ss_arena *a, size_t n, size_t size);
char *ss_arena_strndup(ss_arena *a, const char *s, size_t len);
char *ss_arena_strdup(ss_arena *a, const char *s);      /* NULL gives NULL */

/* Grow an arena array: copies old (n items) into a new block of cap items. */
void *ss_arena_grow(ss_arena *a, void *old, size_t n, size_t cap, size_t size);

/* Bytes handed out so far (for resource caps and statistics). */
size_t ss_arena_used(const ss_arena *a);

#endif
