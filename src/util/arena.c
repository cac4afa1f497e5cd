/* arena.c - chunked bump allocator (see arena.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"

struct chunk {
	struct chunk *next;
	size_t size, used;
	_Alignas(16) unsigned char data[];
};

struct ss_arena {
	struct chunk *head;
	size_t chunk_size;
	size_t used;
};

ss_arena *ss_arena_new(size_t chunk_size)
{
	ss_arena *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	a->chunk_size = chunk_size ? chunk_size : 64 * 1024;
	return a;
}

void ss_arena_free(ss_arena *a)
{
	struct chunk *c, *next;

	if (!a)
		return;
	for (c = a->head; c; c = next) {
		next = c->next;
		free(c);
	}
	free(a);
}

void *ss_arena_alloc(ss_arena *a, size_t size)
{
	struct chunk *c = a->head;
	size_t need = (size + 15) & ~(size_t)15;
	void *p;

	if (need < size)
		return NULL;
	if (!c || c->size - c->used < need) {
		size_t csize = need > a->chunk_size ? need : a->chunk_size;

		c = malloc(sizeof(*c) + csize);
		if (!c)
			return NULL;
		c->size = csize;
		c->used = 0;
		/* an oversized block goes behind the current chunk so that the
		 * current one keeps serving small allocations */
		if (a->head && need > a->chunk_size) {
			c->next = a->head->next;
			a->head->next = c;
		} else {
			c->next = a->head;
			a->head = c;
		}
	}
	p = c->data + c->used;
	c->used += need;
	a->used += need;
	return p;
}

void *ss_arena_calloc(ss_arena *a, size_t n, size_t size)
{
	void *p;

	if (size && n > SIZE_MAX / size)
		return NULL;
	p = ss_arena_alloc(a, n * size);
	if (p)
		memset(p, 0, n * size);
	return p;
}

char *ss_arena_strndup(ss_arena *a, const char *s, size_t len)
{
	char *p = ss_arena_alloc(a, len + 1);

	if (!p)
		return NULL;
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

char *ss_arena_strdup(ss_arena *a, const char *s)
{
	return s ? ss_arena_strndup(a, s, strlen(s)) : NULL;
}

void *ss_arena_grow(ss_arena *a, void *old, size_t n, size_t cap, size_t size)
{
	void *p = ss_arena_calloc(a, cap, size);

	if (p && old && n)
		memcpy(p, old, n * size);
	return p;
}

size_t ss_arena_used(const ss_arena *a)
{
	return a ? a->used : 0;
}
