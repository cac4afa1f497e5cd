/*
 * strmap.c - string interning to dense ids with counters (see strmap.h):
 * open addressing over 64-bit hashes, strings kept in one arena.
 */
#include <stdlib.h>
#include <string.h>

#include "util/strmap.h"
#include "util/arena.h"
#include "util/error.h"
#include "util/grow.h"

struct entry {
	const char *s;
	uint32_t len;
	uint32_t count;
	uint64_t hash;
};

struct ss_strmap {
	ss_arena *arena;     /* the strings */
	struct entry *ents;  /* by id */
	size_t n, cap;
	uint32_t *slots;     /* id + 1, 0 = empty; size a power of two */
	size_t nslots;
};

uint64_t ss_hash64(const void *data, size_t len, uint64_t seed)
{
	const unsigned char *p = data;
	uint64_t h = seed;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

int ss_strmap_new(ss_strmap **out)
{
	ss_strmap *m = calloc(1, sizeof(*m));

	*out = NULL;
	if (!m)
		return SS_ENOMEM;
	m->arena = ss_arena_new(256 * 1024);
	m->nslots = 1024;
	m->slots = calloc(m->nslots, sizeof(*m->slots));
	if (!m->arena || !m->slots) {
		ss_strmap_free(m);
		return SS_ENOMEM;
	}
	*out = m;
	return 0;
}

void ss_strmap_free(ss_strmap *m)
{
	if (!m)
		return;
	ss_arena_free(m->arena);
	free(m->ents);
	free(m->slots);
	free(m);
}

static size_t probe(const ss_strmap *m, const char *s, size_t len, uint64_t h)
{
	size_t mask = m->nslots - 1, i = (size_t)h & mask;

	for (;;) {
		uint32_t v = m->slots[i];
		const struct entry *e;

		if (!v)
			return i;
		e = &m->ents[v - 1];
		if (e->hash == h && e->len == len && !memcmp(e->s, s, len))
			return i;
		i = (i + 1) & mask;
	}
}

static int rehash(ss_strmap *m)
{
	size_t nslots = m->nslots * 2, i;
	uint32_t *slots = calloc(nslots, sizeof(*slots));

	if (!slots)
		return SS_ENOMEM;
	for (i = 0; i < m->n; i++) {
		size_t j = (size_t)m->ents[i].hash & (nslots - 1);

		while (slots[j])
			j = (j + 1) & (nslots - 1);
		slots[j] = (uint32_t)i + 1;
	}
	free(m->slots);
	m->slots = slots;
	m->nslots = nslots;
	return 0;
}

int ss_strmap_intern(ss_strmap *m, const char *s, size_t len, uint32_t *out)
{
	uint64_t h = ss_hash64(s, len, SS_HASH64_SEED);
	size_t i = probe(m, s, len, h);
	struct entry *e;
	char *copy;

	if (m->slots[i]) {
		*out = m->slots[i] - 1;
		return 0;
	}
	if (m->n >= UINT32_MAX - 1 || len > UINT32_MAX)
		return ss_error_code(SS_ENOMEM, "too many strings in a vocabulary");
	if (SS_GROW(m->ents, m->n + 1, m->cap))
		return SS_ENOMEM;
	copy = ss_arena_strndup(m->arena, s, len);
	if (!copy)
		return SS_ENOMEM;
	e = &m->ents[m->n];
	e->s = copy;
	e->len = (uint32_t)len;
	e->count = 0;
	e->hash = h;
	m->slots[i] = (uint32_t)++m->n;
	*out = (uint32_t)m->n - 1;
	/* keep the load factor under 1/2 so that probes stay short */
	if (m->n * 2 > m->nslots)
		return rehash(m);
	return 0;
}

uint32_t ss_strmap_find(const ss_strmap *m, const char *s, size_t len)
{
	uint64_t h = ss_hash64(s, len, SS_HASH64_SEED);
	size_t i = probe(m, s, len, h);

	return m->slots[i] ? m->slots[i] - 1 : SS_STRMAP_NONE;
}

size_t ss_strmap_count(const ss_strmap *m)
{
	return m->n;
}

const char *ss_strmap_str(const ss_strmap *m, uint32_t id)
{
	return m->ents[id].s;
}

size_t ss_strmap_len(const ss_strmap *m, uint32_t id)
{
	return m->ents[id].len;
}

uint32_t *ss_strmap_counter(ss_strmap *m, uint32_t id)
{
	return &m->ents[id].count;
}

uint32_t ss_strmap_get_count(const ss_strmap *m, uint32_t id)
{
	return m->ents[id].count;
}
