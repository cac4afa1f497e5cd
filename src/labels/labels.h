/*
 * labels.h - which commits are positive, for training and evaluation.
 *
 * Labels come from
 *   - a TSV with a header row: the "sha" column names the commit, the
 *     label column (given, else "in_stable" when the file has one) holds
 *     0/1; without a label column every listed commit is positive.  The
 *     output of "stablesel label" is such a file (all rows in_stable 1);
 *   - a stable tree read in-process by the labeler (labels/backports.h).
 * A commit the labels do not list is negative.  Shas are matched on 40
 * lower-case hex digits.  A sha listed twice with the same label is
 * fine; with both labels it is an error ("FILE:LINE: SHA is labelled 0
 * here and 1 at line N").
 */
#ifndef SS_LABELS_H
#define SS_LABELS_H

#include <stddef.h>

typedef struct ss_labels ss_labels;

/* column may be NULL (see above).  Malformed rows are errors naming the
 * file and line. */
int ss_labels_from_tsv(ss_labels **out, const char *path, const char *column);

/* Run the stable labeler over the sources spec[0..n); *skipped counts
 * malformed mails (may be NULL). */
int ss_labels_from_stable(ss_labels **out, const char *const *spec, size_t n, size_t *skipped);

/* The labels of a stable tree already read (b is only read); describe
 * ("stable:SPEC") is what ss_labels_describe gives. */
struct ss_backports;
int ss_labels_from_backports(ss_labels **out, struct ss_backports *b, const char *describe);

void ss_labels_free(ss_labels *l); /* NULL is a no-op */

/* 1 positive, 0 negative (also when unlisted). */
int ss_labels_get(const ss_labels *l, const char *sha);
/* Whether the labels list sha at all. */
int ss_labels_known(const ss_labels *l, const char *sha);

size_t ss_labels_count(const ss_labels *l);     /* commits listed */
size_t ss_labels_positive(const ss_labels *l);  /* of them positive */

/* "FILE:COLUMN" or "stable:SPEC", for training summaries. */
const char *ss_labels_describe(const ss_labels *l);

#endif
