/*
 * explain_commits.c - the commits explain names, found in the sources and
 * explained against the history before them, the mainline a named
 * commit's merge is looked for on and the model they are scored with
 * (explain_commits.h).
 */
#include "run/explain_commits.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "index/index.h"
#include "run/commits.h"
#include "run/project_keep.h"
#include "util/error.h"

struct explaining {
	const ss_run_explain_options *o;
	ss_history *hist;
	int *found;
	ss_contrib *why;
	ss_patchnet_reason *reasons;
	int rc;             /* the first failure: the reading stops */
};

static int matches(const char *id, const char *prefix)
{
	return strlen(prefix) >= 4 && !strncasecmp(id, prefix, strlen(prefix));
}

static int explain(struct explaining *x, const ss_commit *c)
{
	const ss_run_explain_options *o = x->o;
	ss_run_explained e = { c, 0.0f, 0, x->why, 0, x->reasons, 0 };
	ss_model_kind kind = ss_model_get_kind(o->m);

	if (ss_model_score_commit(&e.score, o->m, c, x->hist) ||
	    ss_model_explain(x->why, o->top, &e.nwhy, o->m, c, x->hist, 0))
		return ss_run_fail(SS_ERROR, "cannot explain %s", c->id);
	e.patchnet = kind == SS_MODEL_PATCHNET || kind == SS_MODEL_PATCHNET_FEAT;
	if (e.patchnet &&
	    ss_patchnet_explain_commit(x->reasons, o->top, &e.nreasons, o->m, c, x->hist, 0))
		return ss_run_fail(SS_ERROR, "cannot explain %s", c->id);
	o->explained(&e, o->ud);
	return 0;
}

static int explain_one(ss_commit *c, void *data)
{
	struct explaining *x = data;
	int hit = 0;

	for (size_t k = 0; k < x->o->nwant; k++)
		if (matches(c->id, x->o->want[k])) {
			x->found[k] = 1;
			hit = 1;
		}
	if (hit && (x->rc = explain(x, c)))
		return 1;
	if (ss_history_add(x->hist, c)) {
		x->rc = ss_error_code(SS_ENOMEM, "out of memory");
		return 1;
	}
	ss_commit_free(c);
	return 0;
}

/* From a repository without revisions: only the named commits, each read
 * alone ("C" without its parents): one walk of all would hide an older
 * named commit behind a newer one's parents. */
static int read_named(struct explaining *x)
{
	const ss_run_explain_options *o = x->o;
	ss_source_options opts = *o->opts;
	const char *revs[2];
	char parents[320];
	size_t n;
	int rc;

	/* the pull request's merge is the one the mainline's walk gives the
	 * commit, as in rank's ranged walk */
	opts.merges_tip = o->mainline ? o->mainline : "HEAD";
	for (size_t k = 0; k < o->nwant; k++) {
		revs[0] = o->want[k];
		snprintf(parents, sizeof(parents), "^%s^", o->want[k]);
		revs[1] = parents;
		opts.revs = revs;
		opts.nrevs = 2;
		if ((rc = ss_run_read_sources(&n, o->repo, NULL, 0, &opts, explain_one, x, NULL, o->rp)))
			return rc;
		if (x->rc)
			return x->rc;
	}
	return 0;
}

int ss_run_explain_commits(int *found, ss_history *hist, const ss_run_explain_options *o)
{
	struct explaining x = { o, hist, found, NULL, NULL, 0 };
	size_t n;
	int rc;

	x.why = calloc(o->top ? o->top : 1, sizeof(*x.why));
	x.reasons = calloc(o->top ? o->top : 1, sizeof(*x.reasons));
	if (!x.why || !x.reasons) {
		rc = ss_error_code(SS_ENOMEM, "out of memory");
		goto free_all;
	}
	if (!o->nspecs && o->repo && !o->opts->nrevs)
		rc = read_named(&x);
	else if (!(rc = ss_run_read_sources(&n, o->repo, o->specs, o->nspecs, o->opts, explain_one,
					    &x, NULL, o->rp)))
		rc = x.rc;
free_all:
	free(x.why);
	free(x.reasons);
	return rc;
}

int ss_run_mainline_name(char *out, size_t size, ss_run *run, const char *db, const char *repo,
			 int64_t as_of)
{
	char *path = NULL, tip[41];
	ss_index *ix;
	int missing, rc;

	snprintf(out, size, "HEAD");
	if ((rc = ss_run_index(&ix, &path, &missing, run, db, repo, as_of)))
		return rc;
	if (ix && ss_index_ref_tip(tip, ix, "mainline", out, size))
		snprintf(out, size, "HEAD");
	ss_index_free(ix);
	free(path);
	return 0;
}

int ss_run_explain_model(ss_model **out, char **kept, const char *model,
			 const char *project_model, const char *repo, ss_run *run,
			 const ss_run_report *rp)
{
	int rc;

	*out = NULL;
	*kept = NULL;
	if (model)
		return ss_model_load(out, model);
	if ((rc = ss_project_model_kept(out, kept, project_model, repo, ss_run_repo(run, repo),
					rp)))
		return rc;
	if (*out)
		return 0;
	free(*kept);
	*kept = NULL;
	return ss_model_load_default(out);
}
