/* nn_arena.c - per-batch activation arena that grows to the high-water mark. */
#include <stdlib.h>
#include <string.h>

#include "nn.h"
#include "util/error.h"

#define ALIGN 64

struct overflow {
	struct overflow *next;
	void *mem;
};

struct ss_nn_arena {
	unsigned char *block;
	size_t cap, used;
	size_t demand;          /* bytes asked for since the last reset */
	size_t high;            /* largest demand of any batch */
	struct overflow *over;  /* chunks of this batch that did not fit */
};

ss_nn_arena *ss_nn_arena_new(void)
{
	ss_nn_arena *a = calloc(1, sizeof(*a));

	if (!a)
		ss_error_code(SS_ENOMEM, "out of memory for an activation arena");
	return a;
}

static void free_overflow(ss_nn_arena *a)
{
	struct overflow *o, *next;

	for (o = a->over; o; o = next) {
		next = o->next;
		free(o->mem);
		free(o);
	}
	a->over = NULL;
}

void ss_nn_arena_free(ss_nn_arena *a)
{
	if (!a)
		return;
	free_overflow(a);
	free(a->block);
	free(a);
}

void ss_nn_arena_reset(ss_nn_arena *a)
{
	if (a->demand > a->high)
		a->high = a->demand;
	if (a->over || a->high > a->cap) {
		free_overflow(a);
		free(a->block);
		a->cap = 0;
		/* a failure here only postpones growing: alloc falls back to
		 * overflow chunks */
		/* a quarter more: batch shapes that vary a little (longest
		 * message, longest line) then stop reallocating early */
		size_t cap = (a->high + a->high / 4 + ALIGN - 1) & ~(size_t)(ALIGN - 1);

		a->block = aligned_alloc(ALIGN, cap);
		if (a->block)
			a->cap = cap;
	}
	a->used = 0;
	a->demand = 0;
}

static void *oom(size_t bytes)
{
	ss_error_code(SS_ENOMEM, "out of memory for %zu bytes of activations", bytes);
	return NULL;
}

void *ss_nn_arena_alloc(ss_nn_arena *a, size_t bytes)
{
	size_t need = (bytes + ALIGN - 1) & ~(size_t)(ALIGN - 1);
	struct overflow *o;

	if (need < bytes)
		return oom(bytes);
	if (!need)
		need = ALIGN;
	a->demand += need;
	if (a->cap - a->used >= need) {
		void *p = a->block + a->used;

		a->used += need;
		return p;
	}
	o = malloc(sizeof(*o));
	if (!o)
		return oom(bytes);
	o->mem = aligned_alloc(ALIGN, need);
	if (!o->mem) {
		free(o);
		return oom(bytes);
	}
	o->next = a->over;
	a->over = o;
	return o->mem;
}

float *ss_nn_arena_floats(ss_nn_arena *a, size_t n)
{
	if (n > (size_t)-1 / sizeof(float)) {
		ss_error_code(SS_ENOMEM, "activation buffer of %zu floats too large", n);
		return NULL;
	}
	return ss_nn_arena_alloc(a, n * sizeof(float));
}

float *ss_nn_arena_zeros(ss_nn_arena *a, size_t n)
{
	float *p = ss_nn_arena_floats(a, n);

	if (p)
		memset(p, 0, n * sizeof(float));
	return p;
}

size_t ss_nn_arena_capacity(const ss_nn_arena *a)
{
	return a->cap;
}
