/*
 * split.h - from streamed commits to labelled, time-split examples.
 *
 * ss_split_add() is a commit callback (it matches cli_commit_fn): it looks
 * the commit's label up, featurizes it into the dataset and frees it, so
 * that a whole history passes through in constant memory per commit.
 * Splits are always by author time: training examples are older than test
 * examples, and "settling" drops the newest training examples whose fate
 * (reaching stable) could not be known yet at the cut.
 */
#ifndef SS_SPLIT_H
#define SS_SPLIT_H

#include <stddef.h>
#include <stdint.h>

#include "commit/commit.h"
#include "labels/labels.h"
#include "models/dataset.h"

typedef struct {
	ss_dataset *d;            /* where examples go */
	const ss_labels *labels;  /* NULL: every commit negative */
	int64_t before;           /* keep commits authored before this (0: all) */
	uint8_t part;             /* stored in ss_example.part */
	size_t seen, kept;        /* commits offered, commits added */
	size_t unlisted;          /* kept commits the labels do not list */
	int rc;                   /* first error (message set); iteration stops */
} ss_split_sink;

/* Takes ownership of c.  Returns nonzero (and sets s->rc) on error. */
int ss_split_add(ss_commit *c, void *sink);

/* Indices of the examples with part == part, oldest first; *n their
 * number.  Caller frees; SS_ENOMEM. */
int ss_split_part(size_t **out, size_t *n, const ss_dataset *d, uint8_t part);

/* Set part 0 for examples authored before cut, 1 for the others. */
void ss_split_by_date(ss_dataset *d, int64_t cut);

/*
 * Drop from idx[0..*n) the examples authored after (newest - days): their
 * fate is not known yet.  newest is the cut (0: the newest example of
 * idx).  Keeps order; returns how many were dropped.
 */
size_t ss_split_settle(size_t *idx, size_t *n, const ss_dataset *d, int days, int64_t newest);

#endif
