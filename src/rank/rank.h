/*
 * rank.h - commits ordered by score for a stable reviewer, with reasons.
 *
 * A ranking keeps one small row per scored commit (id, subject, score,
 * decision and, for picks, the features that raised the score most), so
 * that whole histories can be ranked while the commits themselves stream
 * by and are freed.  Rows sort by score, highest first, ties in stream
 * order.  Output formats:
 *   text  rank, score, pick mark, short id, subject; under each pick the
 *         features that raised its score most
 *   tsv   "sha score decision subject" (header row), one row per commit
 *   json  one object: model summary and an array of rows with reasons
 */
#ifndef SS_RANK_H
#define SS_RANK_H

#include <stddef.h>
#include <stdio.h>

#include "commit/commit.h"
#include "models/model.h"

typedef enum {
	SS_RANK_TEXT = 0,
	SS_RANK_TSV = 1,
	SS_RANK_JSON = 2
} ss_rank_format;

typedef struct {
	size_t top;           /* at most this many rows, 0 = all (0) */
	double min_score;     /* only rows scoring at least this (-1: all) */
	ss_rank_format format;/* (SS_RANK_TEXT) */
} ss_rank_options;

#define SS_RANK_OPTIONS_INIT { 0, -1.0, SS_RANK_TEXT }

typedef struct ss_ranking ss_ranking;

int ss_ranking_new(ss_ranking **out);
void ss_ranking_free(ss_ranking *r); /* NULL is a no-op */

/* Add c with its score and decision; why[nwhy] are its reasons (copied,
 * may be NULL/0). */
int ss_ranking_add(ss_ranking *r, const ss_commit *c, float score, int decision,
		   const ss_contrib *why, size_t nwhy);

/* Sort by score (highest first, stable). */
void ss_ranking_sort(ss_ranking *r);

size_t ss_ranking_count(const ss_ranking *r);
size_t ss_ranking_picks(const ss_ranking *r);
float ss_ranking_score(const ss_ranking *r, size_t i);
const char *ss_ranking_id(const ss_ranking *r, size_t i);

/* Write the sorted ranking; m describes the model in headers (may be
 * NULL).  0 or SS_ERROR when writing fails. */
int ss_ranking_write(const ss_ranking *r, FILE *f, const ss_rank_options *o, const ss_model *m);

#endif
