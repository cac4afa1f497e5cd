/*
 * suggest.c - the known name closest to a typed one (suggest.h): optimal
 * string alignment distance on three rows, case-insensitive.
 */
#include "util/suggest.h"

#include <ctype.h>
#include <stdint.h>
#include <string.h>

#define MAXLEN 255

size_t ss_suggest_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	size_t rows[3][MAXLEN + 1], *prev2 = rows[0], *prev = rows[1], *cur = rows[2];

	if (la > MAXLEN || lb > MAXLEN)
		return SIZE_MAX;
	for (j = 0; j <= lb; j++)
		prev[j] = j;
	for (i = 1; i <= la; i++) {
		size_t *t;

		cur[0] = i;
		for (j = 1; j <= lb; j++) {
			int ca = tolower((unsigned char)a[i - 1]), cb = tolower((unsigned char)b[j - 1]);
			size_t d = prev[j - 1] + (ca != cb);

			if (prev[j] + 1 < d)
				d = prev[j] + 1;
			if (cur[j - 1] + 1 < d)
				d = cur[j - 1] + 1;
			/* two neighbours swapped: one edit */
			if (i > 1 && j > 1 && ca == tolower((unsigned char)b[j - 2]) &&
			    tolower((unsigned char)a[i - 2]) == cb && prev2[j - 2] + 1 < d)
				d = prev2[j - 2] + 1;
			cur[j] = d;
		}
		t = prev2;
		prev2 = prev;
		prev = cur;
		cur = t;
	}
	return prev[lb];
}

void ss_suggest_consider(const char **best, size_t *dist, const char *typed, const char *cand)
{
	size_t d = ss_suggest_distance(typed, cand);

	if (d <= 2 && d * 2 <= strlen(typed) && d < *dist) {
		*best = cand;
		*dist = d;
	}
}

const char *ss_suggest(const char *typed, const char *const *cands, size_t n)
{
	const char *best = NULL;
	size_t dist = SIZE_MAX;

	for (size_t i = 0; i < n; i++)
		ss_suggest_consider(&best, &dist, typed, cands[i]);
	return best;
}
