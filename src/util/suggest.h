/*
 * suggest.h - "did you mean ...?": the known name closest to what was
 * typed (suggest.c), for the messages that refuse a name (an option, a
 * command, a branch).
 *
 * The distance is the optimal string alignment one (Levenshtein with the
 * swap of two neighbours as one edit: "onot" is one edit from "onto"),
 * case-insensitive.  A name is close when it is at most 2 edits away and
 * at most half of what was typed: "x" suggests nothing, "tp" "top".
 */
#ifndef SS_UTIL_SUGGEST_H
#define SS_UTIL_SUGGEST_H

#include <stddef.h>

/* Edits between a and b (SIZE_MAX when either is longer than 255 bytes). */
size_t ss_suggest_distance(const char *a, const char *b);

/*
 * Closest match, kept across calls: *best (NULL at first) and *dist
 * (SIZE_MAX at first) are updated when cand is close to typed and
 * closer than *best (the first of equals is kept).  cand is not copied.
 */
void ss_suggest_consider(const char **best, size_t *dist, const char *typed, const char *cand);

/* The closest of cands[0..n) to typed, or NULL when none is close. */
const char *ss_suggest(const char *typed, const char *const *cands, size_t n);

#endif
