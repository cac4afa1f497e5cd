/*
 * rank_onto.c - a ranking's --onto stable branches through a run
 * (rank_onto.h): chosen and opened with their identities and the queue's
 * branch before the model, the replay's cut once it is chosen, the review
 * decisions and the verdicts after the selection.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "run/decisions.h"
#include "run/decisions_open.h"
#include "run/rank_onto.h"
#include "run/rank_stream.h"
#include "util/error.h"

/* The index the options name for repo, borrowed from the run; NULL
 * (and 0) with --no-index or without one. */
static int index_read(ss_index **ix, char **path, const char *repo, const ss_run_onto_options *o)
{
	*ix = NULL;
	*path = NULL;
	if (o->no_index)
		return 0;
	return ss_run_index_read(ix, path, o->run, o->db, repo, o->as_of, o->rp);
}

/* The decisions' codes: a name no branch of the index has is the user's
 * mistake (run/decisions_open.h). */
static int decisions_rc(int rc, int *usage)
{
	*usage = rc == SS_ENOTFOUND || rc == SS_EINVALID;
	return rc;
}

/*
 * One branch identity for the whole run, before any work: rank's
 * --queue-branch and review's --branch must be a branch the index knows,
 * each --onto is mapped to its branch.
 */
static int identities(ss_run_onto_set *s, int *usage, ss_index *ix, const char *repo,
		      const ss_run_onto_options *o)
{
	char *hints[SS_RANK_MAX_BRANCHES], name[256];
	size_t nh = 0;
	int rc = 0;

	if (ix && o->queue_branch) {
		if ((rc = ss_run_decision_identity(name, sizeof(name), ix, repo, o->queue_branch)))
			return decisions_rc(rc, usage);
		if (!(s->queue_ident = strdup(name)))
			return ss_error_code(SS_ENOMEM, "out of memory");
	}
	if (ix && o->nnamed) {
		if ((rc = ss_run_decision_branches(hints, &nh, SS_RANK_MAX_BRANCHES, ix, "", repo,
						   o->named, o->nnamed, o->rp)))
			return decisions_rc(rc, usage);
	} else if (s->queue_ident && (hints[0] = strdup(s->queue_ident))) {
		nh = 1;
	}
	for (size_t b = 0; b < s->n && !rc; b++)
		rc = ss_run_onto_identity(&s->ident[b], s->br, b, s->onto[b], s->asked[b], ix, hints,
					  nh, s->n);
	for (size_t i = 0; i < nh; i++)
		free(hints[i]);
	return rc;
}

int ss_run_onto_open(ss_run_onto_set *s, int *usage, const ss_run_onto_options *o)
{
	const char *onto_repo = o->onto_repo ? o->onto_repo : o->repo;
	ss_run_branches_options bo = { onto_repo, o->upstream, NULL, NULL, o->rp,
				       ss_run_repo(o->run, onto_repo) };
	ss_index *ix = NULL;
	char *path = NULL;
	unsigned mask;
	int rc;

	*usage = 0;
	if ((rc = ss_run_verdict_mask(&mask, o->verdicts))) {
		*usage = 1;
		return rc;
	}
	ss_run_onto_dedupe(s->onto, &s->n, o->rp);
	if (onto_repo && (s->n || o->onto_repo || o->verdicts) &&
	    (rc = index_read(&ix, &path, onto_repo, o)))
		return rc;
	bo.ix = ix;
	bo.ixpath = path;
	if (!(rc = ss_run_rank_onto(&s->br, usage, s->onto, &s->n, s->owned, s->at, s->asked,
				    o->verdicts, o->as_of, &bo))) {
		ss_run_progress_done(o->rp);
		if (!(rc = identities(s, usage, ix, onto_repo, o)) &&
		    (rc = ss_run_queue_branch(&s->queue_b, o->queue_branch, s->queue_ident, s->br,
					      s->onto, s->asked, s->ident, s->n)))
			*usage = 1;
	}
	ss_index_free(ix);
	free(path);
	return rc;
}

int ss_run_onto_cut(ss_backports **label, const char *const *given, size_t ngiven,
		    const ss_run_onto_options *o)
{
	const char *onto_repo = o->onto_repo ? o->onto_repo : o->repo;
	ss_index *ix;
	char *path;
	int rc;

	/* only the index's table is cut (a --stable tree is the user's) and
	 * only for branches named: the index's own are at their tips */
	if (!*label || o->stable || !ngiven || !onto_repo)
		return 0;
	if ((rc = index_read(&ix, &path, onto_repo, o)) || !ix)
		return rc;
	rc = ss_run_rank_replay_cut(label, ix, path, onto_repo, ss_run_repo(o->run, onto_repo),
				    given, ngiven, o->rp);
	ss_index_free(ix);
	free(path);
	return rc;
}

int ss_run_onto_decide(ss_ranking *r, ss_run_onto_set *s, int *usage,
		       const ss_run_onto_options *o)
{
	const char *onto_repo = o->onto_repo ? o->onto_repo : o->repo;
	ss_run_decisions_options d = { NULL, 0, o->queue_extras, s->queue_b, o->show_decided,
				       (int64_t)time(NULL), o->rp };
	ss_run_decisions_onto on = { s->br, s->ident, s->onto, s->n, onto_repo, o->run, o->as_of };
	ss_index *ix;
	char *path;
	unsigned mask;
	int rc;

	*usage = 0;
	if ((rc = index_read(&ix, &path, o->repo, o)))
		return rc;
	if (ix) {
		rc = decisions_rc(ss_run_decisions_apply_onto(r, ix, path, &on, &d), usage);
		ss_index_free(ix);
		free(path);
		if (rc)
			return rc;
	}
	if (!s->n)
		return 0;
	/* checked by ss_run_onto_open() */
	if ((rc = ss_run_verdict_mask(&mask, o->verdicts)))
		return rc;
	return ss_run_branches_decide(s->br, r, mask, o->queue_extras);
}

void ss_run_onto_set_clear(ss_run_onto_set *s)
{
	ss_run_branches_free(s->br);
	for (size_t b = 0; b < SS_RANK_MAX_BRANCHES; b++) {
		free(s->owned[b]);
		free(s->at[b]);
		free(s->ident[b]);
	}
	free(s->queue_ident);
	memset(s, 0, sizeof(*s));
}
