/*
 * u64map.h - a map from non-zero 64-bit keys to size_t values (open
 * addressing, linear probing, at most half full), for grouping by a hash
 * such as a patch id's first 64 bits (rank's one row per patch, the
 * dataset's one example per patch).  Key 0 is never stored.
 */
#ifndef SS_U64MAP_H
#define SS_U64MAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
	uint64_t *key;   /* [cap], 0 = empty */
	size_t *val;     /* [cap] */
	size_t cap, n;
} ss_u64map;

#define SS_U64MAP_INIT { NULL, NULL, 0, 0 }

/*
 * The value of key (non-zero) in *found and 1; or, when it is absent,
 * insert it with value and return 0.  < 0 (SS_ENOMEM) when the map cannot
 * grow.
 */
int ss_u64map_find_or_put(ss_u64map *m, uint64_t key, size_t value, size_t *found);

/* The value of key in *found and 1, or 0 when it is absent (the map
 * is not changed). */
int ss_u64map_get(const ss_u64map *m, uint64_t key, size_t *found);

void ss_u64map_release(ss_u64map *m); /* back to SS_U64MAP_INIT */

#endif
