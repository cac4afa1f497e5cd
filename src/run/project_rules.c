/*
 * project_rules.c - the project model's rules (project_rules.h): whether
 * a kept model still fits, the window of history it learns from, the
 * relcode features kept or not.  Moved from cmd/project_model.c; the
 * reading of examples and the model's file are project_choose.c's (one
 * concept, the project model, split: the rules here, project_keep.c,
 * project_train.c, project_read.c and project_choose.c beside them, the
 * step in rank_run.c; cmd/rank_report.c says what happened).
 */
#include "run/project_rules.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/metrics.h"
#include "nn/nn.h"
#include "util/error.h"
#include "util/strbuf.h"

/* Backports a release adds, as the model saw them: at least 1. */
static double per_release(const ss_model_info *in)
{
	double span = (double)(in->last - in->first) / 86400.0;
	double r = span > SS_PROJECT_RELEASE_DAYS ? (double)in->nlabelled * SS_PROJECT_RELEASE_DAYS / span
						  : (double)in->nlabelled;

	return r < 1 ? 1 : r;
}

/* Why a kept model no longer fits, or NULL when it does (why[size]). */
const char *ss_project_model_stale(char *why, size_t size, const ss_model *m, const char *labels,
				   size_t nlabelled, int masked)
{
	const ss_model_info *in = ss_model_info_of(m);

	if (strcmp(in->labels, labels))
		snprintf(why, size, "it was trained with other labels (%s)", in->labels);
	else if ((int)in->masked != masked)
		snprintf(why, size, "it was trained with stable tags %s", in->masked ? "masked" : "visible");
	else if ((double)nlabelled > (double)in->nlabelled + per_release(in))
		snprintf(why, size, "the stable tree carries %zu commits, %llu when it was trained "
			 "(a release adds about %.0f)", nlabelled, (unsigned long long)in->nlabelled,
			 per_release(in));
	else
		return NULL;
	return why;
}

/*
 * Fits run side by side: the window's and the relcode choice's models are
 * independent of each other, and a fit alone keeps a core idle in its
 * single-threaded steps (the nearest past decisions, the refit).  Each
 * model is what it would be trained alone: a fit's solver runs on one
 * thread with one BLAS thread (set here for all of them, so that no fit
 * gives another's count back; models/linear.c), and its cost grid's
 * points are independent of how many threads share them.  A failed fit's
 * message is copied out of its thread (messages are per thread).
 *
 * Two fits at once hold two fits' rows (liblinear's feature nodes, about
 * 1 KB a commit): at the kernel's size (300,000 commits a fit) the
 * first rank's peak grew from 1,389 to 1,680 MB, past its 1.5 GB goal.
 * So fits of more than SIDE_BY_SIDE_MAX commits run one after the other,
 * each with its cost grid on the threads, as before.
 */
#define SIDE_BY_SIDE_MAX 100000

/* The threads fits of n commits each may run on side by side. */
static int side_by_side(const ss_train_options *o, size_t n)
{
	return n > SIDE_BY_SIDE_MAX ? 1 : o->threads > 0 ? o->threads : 1;
}

struct fit_job {
	const ss_dataset *d;
	const size_t *idx;     /* the examples fitted, oldest first */
	size_t n;
	ss_train_options o;
	const size_t *val;     /* scored on these when not NULL */
	size_t nval;
	float *score;          /* [nval] */
	ss_model *m;           /* out: the model, the caller's */
	int off;               /* not fitted (a window too small): m stays NULL */
	int rc;
	char why[256];
};

struct fit_jobs {
	struct fit_job *job;
	size_t n;
	int nthreads;
};

static int fit_worker(void *arg, int t)
{
	struct fit_jobs *js = arg;

	for (size_t j = (size_t)t; j < js->n; j += (size_t)js->nthreads) {
		struct fit_job *f = &js->job[j];

		if (f->off)
			continue;
		f->rc = ss_model_train(&f->m, SS_MODEL_LINEAR, f->d, f->idx, f->n, &f->o);
		if (!f->rc && f->val)
			f->rc = ss_model_score(f->score, f->m, f->d, f->val, f->nval);
		if (f->rc)
			snprintf(f->why, sizeof(f->why), "%s", ss_error_last());
	}
	return 0;
}

/* Fit job[0..n), nthreads at a time; 0, or the first failure's code with
 * its message (every model trained is left in its job to free). */
static int fit_all(struct fit_job *job, size_t n, int nthreads)
{
	struct fit_jobs js = { job, n, nthreads < 1 ? 1 : nthreads > (int)n ? (int)n : nthreads };
	int prev = ss_nn_set_blas_threads(1), rc;

	rc = ss_model_parallel(js.nthreads, fit_worker, &js);
	ss_nn_set_blas_threads(prev);
	for (size_t j = 0; !rc && j < n; j++)
		if (job[j].rc)
			rc = ss_error_code(job[j].rc, "%s", job[j].why);
	return rc;
}

/*
 * Whether the code a commit changes was in the last release (the relcode
 * features, read from the repository) tells this project's backports
 * apart is the project's own matter: on systemd's validation slices it
 * did (validation PR-AUC +0.036, held-out AP +0.03), on DPDK's it did not
 * (validation +0.003, and 0.02 F1 less on v21.02..v22.03 beside the stable
 * tag).  So the model is trained again without them, on the same
 * examples, and they are kept only when they raise the validation slice's
 * PR-AUC (the newest training commits, never the ranked ones) by at least
 * SS_PROJECT_RELCODE_GAIN: a gain within the slice's noise does not pay
 * for features that read the repository.  stderr says which.
 */
#define SS_PROJECT_RELCODE_GAIN 0.01

int ss_project_model_relcode(ss_model **out, ss_linear_adapt *adapt, const ss_dataset *d,
			     const size_t *idx, size_t n, const ss_train_options *o,
			     const ss_run_report *rp)
{
	ss_linear_adapt ad[2];
	struct fit_job job[2];
	double a1, a0;
	int rc, keep;

	*out = NULL;
	memset(job, 0, sizeof(job));
	for (int i = 0; i < 2; i++) {
		job[i] = (struct fit_job){ .d = d, .idx = idx, .n = n, .o = *o };
		job[i].o.adapt = &ad[i];
	}
	/* job 1 without them */
	job[1].o.groups_off |= SS_FG_RELCODE;
	if ((rc = fit_all(job, 2, side_by_side(o, n)))) {
		ss_model_free(job[0].m);
		ss_model_free(job[1].m);
		return ss_run_fail(rc, "cannot train the project model");
	}
	a1 = ss_model_info_of(job[0].m)->val_pr_auc;
	a0 = ss_model_info_of(job[1].m)->val_pr_auc;
	keep = a1 >= a0 + SS_PROJECT_RELCODE_GAIN ? 0 : 1;
	ss_run_say(rp, SS_RUN_INFO, "the features of whether the changed code was in the last release are %s: "
	    "validation PR-AUC %.3f with them, %.3f without (kept from a gain of %.2f)",
	    keep == 0 ? "kept" : "left out", a1, a0, SS_PROJECT_RELCODE_GAIN);
	ss_model_free(job[1 - keep].m);
	*out = job[keep].m;
	if (adapt)
		*adapt = ad[keep];
	return 0;
}

/*
 * How far back the project's maintainers still decide as they do now.
 * A project's stable policy drifts (systemd's stable branches took
 * other things in 2016 than in 2022), and a linear model trained on all
 * of it learns the average.  So the newest SS_PROJECT_VAL_SHARE of the
 * settled history is set aside as a fixed validation slice, a model is
 * trained on each window of the history just before it (the last 2, 3,
 * 4 and 6 years, and all of it) and scored there; the window with the
 * best average precision is used only when it beats all of the history
 * by SS_PROJECT_WINDOW_GAIN (a gain within the slice's noise is not
 * worth the history left out), then from the newest training commit
 * back, the validation slice included.  A window must hold
 * SS_PROJECT_MIN_COMMITS and SS_PROJECT_MIN_POSITIVE.  stderr says which.
 * On systemd's validation slices (docs/scores.md) the last 3-4 years
 * beat all 8; an mlp on the same examples did worse than the linear
 * model (fixed-slice AP 0.440 against 0.465), so the kind stays linear.
 */
#define SS_PROJECT_VAL_SHARE 0.15
#define SS_PROJECT_WINDOW_GAIN 0.02
#define SS_YEAR_SECONDS 31557600  /* 365.25 days */

int ss_project_model_fittable(const ss_dataset *d, const size_t *idx, size_t n, double val_share)
{
	size_t nval = ss_model_val_count(n, val_share), i, pos = 0;

	if (n < 2)
		return 0;
	for (i = 0; i < n - nval; i++)
		pos += ss_dataset_example(d, idx[i])->label != 0;
	return pos > 0 && pos < n - nval;
}

size_t ss_project_model_newest(size_t *idx, size_t *n, size_t max)
{
	size_t drop = *n > max ? *n - max : 0;

	if (drop) {
		memmove(idx, idx + drop, max * sizeof(*idx));
		*n = max;
	}
	return drop;
}

size_t ss_project_model_in_window(size_t *out, const ss_dataset *d, const size_t *idx, size_t n,
				  int64_t after, size_t *npos)
{
	size_t i, m = 0;

	*npos = 0;
	for (i = 0; i < n; i++)
		if (ss_dataset_example(d, idx[i])->time > after) {
			out[m++] = idx[i];
			*npos += ss_dataset_example(d, idx[i])->label;
		}
	return m;
}

int ss_project_model_window(int64_t *out, const ss_dataset *d, const size_t *idx, size_t n,
			    const ss_train_options *o, const ss_run_report *rp)
{
	static const int years[] = { 0, 6, 4, 3, 2 };  /* 0: all of it */
	enum { NWIN = sizeof(years) / sizeof(years[0]) };
	size_t nval = (size_t)((double)n * SS_PROJECT_VAL_SHARE), ntr = n - nval, i, npos;
	size_t *sub = NULL, nsub[NWIN];
	uint8_t *label = NULL;
	float *score = NULL;
	double ap[NWIN], best_ap = -1.0;
	struct fit_job job[NWIN];
	int64_t vstart, best = 0;
	int best_i = 0, first = -1;
	ss_strbuf said = SS_STRBUF_INIT;
	ss_train_options o1 = *o;
	int rc = 0;

	*out = 0;
	/* only the validation slice's ranking counts: no refit */
	o1.refit = 0;
	if (nval < SS_PROJECT_MIN_COMMITS)
		return 0;
	vstart = ss_dataset_example(d, idx[ntr])->time;
	memset(job, 0, sizeof(job));
	if (!(sub = malloc(NWIN * (ntr ? ntr : 1) * sizeof(*sub))) || !(label = malloc(nval)) ||
	    !(score = malloc(NWIN * nval * sizeof(*score)))) {
		rc = ss_error_code(SS_ENOMEM, "out of memory");
		goto free_all;
	}
	for (i = 0; i < nval; i++)
		label[i] = ss_dataset_example(d, idx[ntr + i])->label;
	/* the windows that hold enough to fit */
	for (i = 0; i < NWIN; i++) {
		int64_t after = years[i] ? vstart - (int64_t)years[i] * SS_YEAR_SECONDS : INT64_MIN;
		size_t *si = sub + i * ntr;

		ap[i] = -1.0;
		nsub[i] = ss_project_model_in_window(si, d, idx, ntr, after, &npos);
		job[i] = (struct fit_job){ .d = d, .idx = si, .n = nsub[i], .o = o1,
					   .val = idx + ntr, .nval = nval, .score = score + i * nval };
		job[i].off = nsub[i] < SS_PROJECT_MIN_COMMITS || npos < SS_PROJECT_MIN_POSITIVE ||
			     (years[i] && nsub[i] == ntr) ||
			     !ss_project_model_fittable(d, si, nsub[i], o1.val_share);
		if (!job[i].off && first < 0)
			first = (int)i;
	}
	/* the first fits alone, its cost grid on the threads; the others
	 * take the cost it chose, one fit each, side by side */
	if (first >= 0 && (rc = fit_all(&job[first], 1, 1)))
		goto fail;
	if (first >= 0 && first + 1 < NWIN) {
		for (i = (size_t)first + 1; !o1.C && i < NWIN; i++)
			job[i].o.C = ss_model_info_of(job[first].m)->cost;
		/* the windows shrink with the years: the next is the largest */
		if ((rc = fit_all(&job[first + 1], NWIN - (size_t)first - 1,
				  side_by_side(&o1, nsub[first + 1]))))
			goto fail;
	}
	for (i = 0; i < NWIN; i++) {
		if (job[i].off)
			continue;
		ap[i] = ss_metrics_avg_precision(job[i].score, label, nval);
		if (years[i])
			ss_strbuf_addf(&said, "%s%d years %.3f", said.len ? ", " : "", years[i], ap[i]);
		else
			ss_strbuf_addf(&said, "%sall %.3f", said.len ? ", " : "", ap[i]);
		if (ap[i] > best_ap) {
			best_ap = ap[i];
			best_i = (int)i;
		}
	}
	if (best_i && best_ap >= ap[0] + SS_PROJECT_WINDOW_GAIN)
		best = (int64_t)years[best_i] * SS_YEAR_SECONDS;
	if (best)
		ss_run_say(rp, SS_RUN_INFO, "learning from the last %d years of the history only: validation AP on its "
		    "newest %.0f%%: %s (a window is used from a gain of %.2f)", years[best_i],
		    SS_PROJECT_VAL_SHARE * 100, said.buf ? said.buf : "-", SS_PROJECT_WINDOW_GAIN);
	else if (said.len)
		ss_run_say(rp, SS_RUN_INFO, "learning from all the history: validation AP on its newest %.0f%%: %s (a "
		    "window is used from a gain of %.2f)", SS_PROJECT_VAL_SHARE * 100,
		    said.buf, SS_PROJECT_WINDOW_GAIN);
	else
		ss_run_say(rp, SS_RUN_INFO, "learning from all the history: no window of it before its "
			   "newest %.0f%% holds enough to compare (at least %d commits, %d of them in the "
			   "stable tree, some before the window's own validation slice)",
			   SS_PROJECT_VAL_SHARE * 100, SS_PROJECT_MIN_COMMITS, SS_PROJECT_MIN_POSITIVE);
	*out = best;
	goto free_all;
fail:
	rc = ss_run_fail(rc, "cannot train the project model");
free_all:
	for (i = 0; i < NWIN; i++)
		ss_model_free(job[i].m);
	ss_strbuf_release(&said);
	free(sub);
	free(label);
	free(score);
	return rc;
}

