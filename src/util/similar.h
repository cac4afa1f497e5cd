/*
 * similar.h - how far apart two words are, for "did you mean" (a
 * mistyped branch, option or state).
 */
#ifndef SS_SIMILAR_H
#define SS_SIMILAR_H

#include <stddef.h>

/* The Levenshtein distance of a and b (insertions, deletions and
 * substitutions of bytes); words longer than 255 bytes count as far
 * (SIZE_MAX). */
size_t ss_edit_distance(const char *a, const char *b);

/* Whether a word at distance d from a word of length len is near enough
 * to be proposed: at most a third of it, and at least one edit. */
int ss_similar_enough(size_t d, size_t len);

#endif
