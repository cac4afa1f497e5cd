/*
 * project_rules.h - the project model's rules (docs/scores.md): when a
 * kept model is used again, which window of the history it learns from,
 * whether it keeps the relcode features.  run/project_choose.c reads the
 * examples and keeps the file; the decisions are here, said through an
 * ss_run_report at level SS_RUN_INFO (the command's own words).
 */
#ifndef SS_RUN_PROJECT_RULES_H
#define SS_RUN_PROJECT_RULES_H

#include <stddef.h>
#include <stdint.h>

#include "models/dataset.h"
#include "models/model.h"
#include "run/run.h"

/* The labels of commits younger than this are not settled: their
 * backport may still come (DPDK's LTS releases come quarterly). */
#define SS_PROJECT_SETTLE_DAYS 90
/* A release cycle, for how much the stable tree may grow before the
 * model is retrained (DPDK: quarterly; the kernel: 9-10 weeks). */
#define SS_PROJECT_RELEASE_DAYS 91.0
/* Less than this to learn from: the built-in model instead. */
#define SS_PROJECT_MIN_COMMITS 100
#define SS_PROJECT_MIN_POSITIVE 10
/*
 * The most settled commits the model learns from: the newest ones.  It
 * bounds a first rank's training at the kernel's size (1.3 M commits),
 * where every fit, the window's and the nearest past decisions' grow
 * with the rows; the window rule (ss_project_model_window) finds the
 * last 3-4 years the best on systemd (docs/scores.md), and this is about
 * 4 years of the kernel.  DPDK (51 k), systemd (97 k) and tip stay whole.
 */
#define SS_PROJECT_MAX_COMMITS 300000
/*
 * The most commits of the history the training reads from the rows the
 * index keeps: the newest, a third more than SS_PROJECT_MAX_COMMITS for
 * the unsettled ones and the ranked range's span, so that memory is
 * bounded by this and not by the history (the kernel's 1.3 M rows took
 * 1.3 GB).  A history read from its diffs is read whole.
 */
#define SS_PROJECT_READ_COMMITS 400000

/*
 * Why a kept model m no longer fits (into why[size], returned), or NULL
 * when it does: other labels, other tag masking, or a stable tree grown
 * by more than a release's worth of backports since (nlabelled now).
 */
const char *ss_project_model_stale(char *why, size_t size, const ss_model *m, const char *labels,
				   size_t nlabelled, int masked);

/*
 * How far back (seconds before the newest training commit; 0: all of
 * it) the model learns from, chosen on the newest SS_PROJECT_VAL_SHARE
 * of idx[0..n) (d's examples, oldest first), said through rp.  0 or < 0
 * with the message set.
 */
int ss_project_model_window(int64_t *out, const ss_dataset *d, const size_t *idx, size_t n,
			    const ss_train_options *o, const ss_run_report *rp);

/*
 * Whether a model can be fitted to idx[0..n) (d's examples, oldest
 * first) split as ss_model_train() splits them, the newest val_share the
 * validation slice: the older part it fits on holds at least one commit
 * the stable tree took and one it did not.  (A young stable branch's
 * backports may all be in the newest share.)
 */
int ss_project_model_fittable(const ss_dataset *d, const size_t *idx, size_t n, double val_share);

/*
 * Keeps the newest max of idx[0..*n) (oldest first) at its front and
 * sets *n to their count; returns how many older ones it dropped.
 */
size_t ss_project_model_newest(size_t *idx, size_t *n, size_t max);

/*
 * The examples of idx[0..n) newer than after, into out (may be idx);
 * *npos: how many of them are positive.  Returns how many.
 */
size_t ss_project_model_in_window(size_t *out, const ss_dataset *d, const size_t *idx, size_t n,
				  int64_t after, size_t *npos);

/*
 * The model trained on idx[0..n) of d with o, and the same without the
 * relcode features, side by side; whichever the validation slice prefers
 * by the gain the rule asks (said through rp) is *out, the other freed;
 * *adapt (may be NULL) gets the kept one's adaptation (o->adapt is not
 * written).  0, or < 0 with the message set and *out NULL.
 */
int ss_project_model_relcode(ss_model **out, ss_linear_adapt *adapt, const ss_dataset *d,
			     const size_t *idx, size_t n, const ss_train_options *o,
			     const ss_run_report *rp);

#endif
