/*
 * grow.h - the one way an array grows, as git's ALLOC_GROW: to hold need
 * elements its capacity becomes the larger of need and cap * 3 / 2 + 16,
 * so that n appends cost O(n) copies in all.
 *
 * SS_GROW(arr, need, cap) makes the malloc'd array arr (any element type)
 * hold at least need elements, cap being its size_t capacity: 0, or
 * SS_ENOMEM with the message set and arr and cap unchanged (the block is
 * never lost, unlike "p = realloc(p, n)").  arr may be NULL with cap 0.
 * Sizes that would overflow are SS_ENOMEM too.
 *
 * Arrays that share one capacity (parallel arrays) take the new capacity
 * from ss_grow_cap() and are resized with ss_grow_to() one by one.
 */
#ifndef SS_GROW_H
#define SS_GROW_H

#include <stddef.h>

#define SS_GROW(arr, need, cap) \
	((size_t)(need) <= (cap) ? 0 : ss_grow_((void *)&(arr), &(cap), (need), sizeof(*(arr))))

/* The capacity an array of capacity cap takes to hold need elements. */
size_t ss_grow_cap(size_t cap, size_t need);

/* Resize the array *arrp (a pointer to it, passed as void *) to n
 * elements of size elem; 0, or SS_ENOMEM with *arrp unchanged. */
int ss_grow_to(void *arrp, size_t n, size_t elem);

int ss_grow_(void *arrp, size_t *cap, size_t need, size_t elem);

#endif
