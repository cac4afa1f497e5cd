/*
 * grow.c - growing arrays (see grow.h).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/grow.h"

size_t ss_grow_cap(size_t cap, size_t need)
{
	size_t next = cap < (SIZE_MAX - 16) / 3 * 2 ? cap / 2 * 3 + 16 : SIZE_MAX;

	return next > need ? next : need;
}

int ss_grow_to(void *arrp, size_t n, size_t elem)
{
	void *old, *p;

	if (elem && n > SIZE_MAX / elem)
		return ss_error_code(SS_ENOMEM, "out of memory: an array of %zu elements", n);
	/* the pointer is copied, not cast, so that any element type works */
	memcpy(&old, arrp, sizeof(old));
	p = realloc(old, n && elem ? n * elem : 1);
	if (!p)
		return ss_error_code(SS_ENOMEM, "out of memory: an array of %zu elements", n);
	memcpy(arrp, &p, sizeof(p));
	return 0;
}

int ss_grow_(void *arrp, size_t *cap, size_t need, size_t elem)
{
	size_t n = ss_grow_cap(*cap, need);
	int rc = ss_grow_to(arrp, n, elem);

	if (!rc)
		*cap = n;
	return rc;
}
