/*
 * similar.c - the edit distance of two words (similar.h).
 */
#include "similar.h"

#include <stdint.h>
#include <string.h>

size_t ss_edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), row[256];

	if (la > 255 || lb > 255)
		return SIZE_MAX;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	return row[lb];
}

int ss_similar_enough(size_t d, size_t len)
{
	return d >= 1 && d <= (len + 2) / 3;
}
