/*
 * project_train.c - the project model trained from the examples read
 * (project_train.h).  Moved from cmd/project_model.c (the second half of
 * train: settle, the minimums, the window, the training, relcode).
 */
#include "run/project_train.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval/split.h"
#include "source/source.h"
#include "run/project_rules.h"
#include "util/error.h"
#include "util/strbuf.h"

/* The prior, when it can be mixed into a model of d: a linear model of
 * d's feature options (the built-in one is); else NULL, said. */
static const ss_model *usable_prior(const ss_model *prior, const ss_dataset *d,
				    const ss_run_report *rp)
{
	const ss_featurizer *f;

	if (!prior)
		return NULL;
	f = ss_model_featurizer(prior);
	if (ss_model_get_kind(prior) != SS_MODEL_LINEAR || !f ||
	    f->opts.hash_bits != ss_dataset_options(d)->hash_bits ||
	    f->opts.groups != ss_dataset_options(d)->groups) {
		ss_run_say(rp, SS_RUN_NOTE, "the built-in model is not a linear model of the project "
			   "model's features: the project model learns alone");
		return NULL;
	}
	return prior;
}

/* Reads the commit again (project_train.h): its rows keep no names. */
void ss_project_model_name_hashed(ss_strbuf *name, const ss_model *m, uint32_t slot,
				  const ss_dataset *d, const size_t *idx, size_t n, const char *repo,
				  const ss_history *hist)
{
	const ss_featurizer *f = ss_model_featurizer(m);
	ss_strbuf names = SS_STRBUF_INIT, found = SS_STRBUF_INIT;
	uint32_t *remap = NULL;
	ss_commit *c = NULL;
	ss_svec v;
	size_t i, k;

	if (!repo || !n || ss_dataset_remap(&remap, f, d))
		goto out;
	ss_svec_init(&v);
	for (i = n; i-- > 0;) {
		if (ss_dataset_vector(&v, f, remap, d, idx[i]))
			break;
		for (k = 0; k < v.n && v.idx[k] != slot; k++)
			;
		if (k == v.n)
			continue;
		if (!ss_source_read_alone(&c, repo, ss_dataset_example(d, idx[i])->id) && c &&
		    !ss_featurizer_vector(&v, f, c, hist, &names) &&
		    !ss_featurizer_name(f, slot, names.buf, &found) && found.buf &&
		    strncmp(found.buf, "hash:", 5)) {
			ss_strbuf_reset(name);
			ss_strbuf_adds(name, found.buf);
		}
		break;
	}
	ss_svec_release(&v);
out:
	ss_error_clear();
	ss_commit_free(c);
	free(remap);
	ss_strbuf_release(&names);
	ss_strbuf_release(&found);
}

/* What the adaptation chose, in words (docs/scores.md, "Adapted"); d,
 * idx[0..n), repo and hist name a hashed rule. */
static void say_adapt(const ss_linear_adapt *a, const ss_model *m, int prior,
		      const ss_run_report *rp, const ss_dataset *d, const size_t *idx, size_t n,
		      const char *repo, const ss_history *hist)
{
	ss_strbuf name = SS_STRBUF_INIT, words = SS_STRBUF_INIT;

	if (prior)
		ss_run_say(rp, SS_RUN_INFO, "the project model takes %.0f%% of its weights from the "
			   "built-in model, which learnt from other projects (validation AP: the "
			   "project's own %.3f, the built-in %.3f, mixed %.3f)", a->alpha * 100.0,
			   a->ap_own, a->ap_prior, a->ap_model);
	if (a->near_beta > 0.0f)
		ss_run_say(rp, SS_RUN_INFO, "the nearest past decisions count: each commit's %d most "
			   "similar settled commits, and how many of them reached stable, weigh %.2g "
			   "in its score (validation AP %.3f without them, %.3f with)", SS_NEAR_K,
			   (double)a->near_beta, a->ap_near_without, a->ap_near_with);
	else if (a->ap_near_without > 0.0)
		ss_run_say(rp, SS_RUN_INFO, "the nearest past decisions are shown as precedents but "
			   "left out of the score: they do not raise the validation AP (%.3f)",
			   a->ap_near_without);
	if (a->rule < 0)
		return;
	if (!ss_featurizer_name_ix(ss_model_featurizer(m), (uint32_t)a->rule, NULL, &name) &&
	    name.buf && !strncmp(name.buf, "hash:", 5))
		ss_project_model_name_hashed(&name, m, (uint32_t)a->rule, d, idx, n, repo, hist);
	if (ss_feat_name_words(&words, name.buf ? name.buf : "")) {
		ss_error_clear();
		ss_strbuf_release(&words);
	}
	if (a->boost > 0.0f)
		ss_run_say(rp, SS_RUN_INFO, "the project's best single rule, \"%s\", beats the model on "
			   "validation (AP %.3f ranked first, F1 %.3f alone; the model AP %.3f, F1 "
			   "%.3f): it is raised by %.2f, and the ranking gets AP %.3f",
			   words.buf ? words.buf : "?", a->ap_rule, a->f1_rule, a->ap_model,
			   a->f1_model, (double)a->boost, a->ap_final);
	else if (a->ap_rule > a->ap_model || a->f1_rule > a->f1_model)
		/* ahead on the whole slice, not on each half by the margin
		 * (models/linear.c, the rule guard) */
		ss_run_say(rp, SS_RUN_INFO, "the project's best single rule, \"%s\", is not raised: "
			   "ahead of the model on validation (AP %.3f ranked first against %.3f, F1 "
			   "%.3f alone against %.3f) but not on both its halves by the margin",
			   words.buf ? words.buf : "?", a->ap_rule, a->ap_model, a->f1_rule, a->f1_model);
	else
		ss_run_say(rp, SS_RUN_INFO, "the model beats the project's best single rule, \"%s\", on "
			   "validation (AP %.3f against %.3f ranked first, F1 %.3f against %.3f alone)",
			   words.buf ? words.buf : "?", a->ap_model, a->ap_rule, a->f1_model, a->f1_rule);
	ss_strbuf_release(&name);
	ss_strbuf_release(&words);
}

int ss_project_model_fit(ss_model **out, size_t *n, size_t *npos, char *why, size_t size,
			 ss_dataset *d, int64_t newest, const char *repo, const ss_history *hist,
			 const ss_model *prior, const ss_run_report *rp)
{
	int relcode = repo != NULL;
	ss_train_options o = SS_TRAIN_OPTIONS_INIT;
	ss_linear_adapt ad;
	ss_model *m = NULL;
	size_t *idx = NULL, *extra = NULL, i;
	int64_t window;
	int rc;

	*out = NULL;
	*n = *npos = 0;
	if ((rc = ss_split_part(&idx, n, d, 0)))
		return rc;
	ss_split_settle(idx, n, d, SS_PROJECT_SETTLE_DAYS, newest);
	if ((i = ss_project_model_newest(idx, n, SS_PROJECT_MAX_COMMITS)))
		ss_run_say(rp, SS_RUN_INFO, "learning from the newest %zu settled commits read, %zu older "
			   "ones left out (at most %d: the window rule finds the newest 3-4 years the "
			   "best, and each fit grows with the rows)", *n, i, SS_PROJECT_MAX_COMMITS);
	for (i = 0; i < *n; i++)
		*npos += ss_dataset_example(d, idx[i])->label;
	if (*n < SS_PROJECT_MIN_COMMITS || *npos < SS_PROJECT_MIN_POSITIVE) {
		snprintf(why, size, "too few settled commits to train a model for this project "
			 "(%zu, %zu of them in the stable tree; at least %d and %d)", *n, *npos,
			 SS_PROJECT_MIN_COMMITS, SS_PROJECT_MIN_POSITIVE);
		goto out;
	}
	if ((rc = ss_project_model_window(&window, d, idx, *n, &o, rp)))
		goto out;
	if (window) {
		int64_t top = INT64_MIN;

		for (i = 0; i < *n; i++)
			if (ss_dataset_example(d, idx[i])->time > top)
				top = ss_dataset_example(d, idx[i])->time;
		*n = ss_project_model_in_window(idx, d, idx, *n, top - window, npos);
	}
	if (!ss_project_model_fittable(d, idx, *n, o.val_share)) {
		snprintf(why, size, "the %zu settled commits (%zu of them in the stable tree) hold "
			 "none the stable tree took, or only such, before their newest %.0f%% (the "
			 "slice a model is checked on): nothing to learn from yet", *n, *npos,
			 o.val_share * 100.0);
		goto out;
	}
	o.prior = usable_prior(prior, d, rp);
	o.rule_guard = 1;
	o.adapt = &ad;
	o.near = SS_NEAR_K;
	/* the cycle's evidence (part SS_PROJECT_PART_CYCLE): with the fit
	 * part, after the window and never in the validation slice */
	if ((rc = ss_split_part(&extra, &o.nextra, d, SS_PROJECT_PART_CYCLE)))
		goto out;
	o.extra = extra;
	if (o.nextra) {
		size_t pos = 0;

		for (i = 0; i < o.nextra; i++)
			pos += ss_dataset_example(d, extra[i])->label;
		ss_run_say(rp, SS_RUN_INFO, "learning from %zu commits of the ranked cycle too (%zu the "
			   "stable branches took, %zu rejected in review)", o.nextra, pos, o.nextra - pos);
	}
	if (relcode)
		/* the variant without relcode chooses its own share and rule:
		 * what is said is the kept model's */
		rc = ss_project_model_relcode(&m, &ad, d, idx, *n, &o, rp);
	else if ((rc = ss_model_train(&m, SS_MODEL_LINEAR, d, idx, *n, &o)))
		rc = ss_run_fail(rc, "cannot train the project model");
	if (rc)
		goto out;
	say_adapt(&ad, m, o.prior != NULL, rp, d, idx, *n, repo, hist);
	*out = m;
out:
	free(idx);
	free(extra);
	return rc;
}
