/*
 * u64map.c - 64-bit keys to values (see u64map.h).  By hand: the keys are
 * numbers, and util/strmap interns strings.
 */
#include <stdlib.h>

#include "util/error.h"
#include "util/u64map.h"

/* Where key is, or the empty slot where it goes. */
static size_t slot_of(const ss_u64map *m, uint64_t key)
{
	size_t k = (size_t)(key ^ key >> 32) & (m->cap - 1);

	while (m->key[k] && m->key[k] != key)
		k = (k + 1) & (m->cap - 1);
	return k;
}

static int grow(ss_u64map *m)
{
	ss_u64map g = { NULL, NULL, m->cap ? m->cap * 2 : 1024, m->n };
	size_t i;

	g.key = calloc(g.cap, sizeof(*g.key));
	g.val = malloc(g.cap * sizeof(*g.val));
	if (!g.key || !g.val) {
		free(g.key);
		free(g.val);
		return ss_error_code(SS_ENOMEM, "out of memory for a map of %zu keys", m->n);
	}
	for (i = 0; i < m->cap; i++)
		if (m->key[i]) {
			size_t k = slot_of(&g, m->key[i]);

			g.key[k] = m->key[i];
			g.val[k] = m->val[i];
		}
	free(m->key);
	free(m->val);
	*m = g;
	return 0;
}

int ss_u64map_find_or_put(ss_u64map *m, uint64_t key, size_t value, size_t *found)
{
	size_t k;
	int rc;

	if ((m->n + 1) * 2 > m->cap && (rc = grow(m)))
		return rc;
	k = slot_of(m, key);
	if (m->key[k]) {
		*found = m->val[k];
		return 1;
	}
	m->key[k] = key;
	m->val[k] = value;
	m->n++;
	return 0;
}

void ss_u64map_release(ss_u64map *m)
{
	free(m->key);
	free(m->val);
	*m = (ss_u64map)SS_U64MAP_INIT;
}

int ss_u64map_get(const ss_u64map *m, uint64_t key, size_t *found)
{
	size_t k;

	if (!key || !m->cap)
		return 0;
	k = slot_of(m, key);
	if (!m->key[k])
		return 0;
	*found = m->val[k];
	return 1;
}
