/*
 * keyword.c - the two rule "models" that learn nothing:
 *   keyword  positive when the subject or message says "bug" or "fix"
 *            (the baseline of the PatchNet paper, Hoang et al. 2020);
 *   tag      positive when the commit carried Cc: stable before masking,
 *            what a stable maintainer gets for free when tags are visible.
 * Scores are 0 or 1 and the threshold is 0.5.
 */
#include <stdio.h>

#include "models/impl.h"
#include "util/error.h"

static int rule_train(ss_model *m, const ss_dataset *d, const size_t *fit, size_t nfit,
		      const size_t *val, size_t nval, const ss_train_options *o,
		      float *val_score)
{
	(void)fit;
	(void)nfit;
	(void)o;
	snprintf(m->info.params, sizeof(m->info.params), "rule");
	return m->ops->score(m, d, val, nval, val_score);
}

static int keyword_score(const ss_model *m, const ss_dataset *d, const size_t *idx, size_t n,
			 float *out)
{
	size_t i;

	(void)m;
	for (i = 0; i < n; i++)
		out[i] = ss_dataset_example(d, idx[i])->keyword ? 1.0f : 0.0f;
	return 0;
}

static int keyword_score_commit(const ss_model *m, const ss_commit *c, const ss_history *hist,
                                float *out)
{
	(void)m;
	(void)hist;
	*out = ss_commit_says_fix(c) ? 1.0f : 0.0f;
	return 0;
}

static int tag_score(const ss_model *m, const ss_dataset *d, const size_t *idx, size_t n,
		     float *out)
{
	size_t i;

	(void)m;
	for (i = 0; i < n; i++)
		out[i] = ss_dataset_example(d, idx[i])->tagged ? 1.0f : 0.0f;
	return 0;
}

static int tag_score_commit(const ss_model *m, const ss_commit *c, const ss_history *hist,
                            float *out)
{
	(void)m;
	(void)hist;
	*out = ss_commit_was_tagged(c) ? 1.0f : 0.0f;
	return 0;
}

static void rule_save(const ss_model *m, ss_wbuf *w)
{
	(void)m;
	ss_w_u64(w, 0); /* no weights */
}

static int rule_load(ss_model *m, ss_rbuf *r)
{
	(void)m;
	if (ss_r_u64(r) != 0)
		return ss_error_set("a rule model has no weights");
	return 0;
}

const ss_model_ops ss_keyword_ops = {
	.kind = SS_MODEL_KEYWORD,
	.name = "keyword",
	.train = rule_train,
	.score = keyword_score,
	.score_commit = keyword_score_commit,
	.save = rule_save,
	.load = rule_load,
};

const ss_model_ops ss_tag_ops = {
	.kind = SS_MODEL_TAG,
	.name = "tag",
	.train = rule_train,
	.score = tag_score,
	.score_commit = tag_score_commit,
	.save = rule_save,
	.load = rule_load,
};
