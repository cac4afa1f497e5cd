/*
 * strmap.h - interning of strings to dense ids, for vocabularies.
 *
 * A map gives every distinct string an id 0, 1, 2 ... in order of first
 * insertion and keeps one counter per id (document frequency while a
 * vocabulary is being built).  Strings are copied into the map, which owns
 * them; ss_strmap_str() pointers stay valid until ss_strmap_free().
 * Lookups never allocate.
 */
#ifndef SS_STRMAP_H
#define SS_STRMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct ss_strmap ss_strmap;

#define SS_STRMAP_NONE UINT32_MAX

int ss_strmap_new(ss_strmap **out);
void ss_strmap_free(ss_strmap *m); /* NULL is a no-op */

/* Id of s[0..len), inserting it when absent; 0 or SS_ENOMEM. */
int ss_strmap_intern(ss_strmap *m, const char *s, size_t len, uint32_t *out);

/* Id of s[0..len) or SS_STRMAP_NONE. */
uint32_t ss_strmap_find(const ss_strmap *m, const char *s, size_t len);

size_t ss_strmap_count(const ss_strmap *m);
const char *ss_strmap_str(const ss_strmap *m, uint32_t id);    /* NUL-terminated */
size_t ss_strmap_len(const ss_strmap *m, uint32_t id);

/* The per-id counter (0 for a new id). */
uint32_t *ss_strmap_counter(ss_strmap *m, uint32_t id);
uint32_t ss_strmap_get_count(const ss_strmap *m, uint32_t id);

/* 64-bit FNV-1a; the feature hashing of model files depends on it. */
uint64_t ss_hash64(const void *data, size_t len, uint64_t seed);
#define SS_HASH64_SEED 0xcbf29ce484222325ULL

#endif
