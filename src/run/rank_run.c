/*
 * rank_run.c - rank's, report's and review's ranking as one run call
 * (rank_run.h): the steps of run/rank_stream.c, run/rank_onto.c and
 * run/project_choose.c in their order.  Moved from cmd/rank_report.c's
 * cli_ranking_run (which gives the options and dies) and
 * cmd/project_model.c's cli_ranking_model (the file went with it).
 */
#include <stdlib.h>
#include <string.h>

#include "run/commits.h"
#include "run/history_load.h"
#include "run/project_choose.h"
#include "run/project_keep.h"
#include "run/project_read.h"
#include "run/rank_run.h"
#include "run/rank_stream.h"
#include "util/error.h"

#define MAX_HREVS 64

/* The releases and the index first: a bad file fails before a model is
 * trained or said. */
static int history_load(ss_run_rank_state *st, int *usage, const ss_run_rank_options *o)
{
	ss_run_history_options ho = SS_RUN_HISTORY_OPTIONS_INIT;

	ho.releases = o->releases;
	ho.release_tags = o->release_tags;
	ho.repo = o->repo;
	ho.db = o->db;
	ho.no_index = o->no_index;
	ho.as_of = o->as_of;
	ho.run = o->run;
	ho.rp = o->rp;
	return ss_run_history_index_load(st->hist, usage, &ho);
}

/* The model without --model: the project's own, else the built-in one. */
static int choose_model(ss_run_rank_state *st, int *usage, const ss_run_rank_options *o)
{
	ss_run_project_model_options po = SS_RUN_PROJECT_MODEL_OPTIONS_INIT;
	ss_run_project_sources s = SS_RUN_PROJECT_SOURCES_INIT;
	ss_run_project_reader reader;
	ss_source_options hopts = *o->opts;
	const char *hrevs[MAX_HREVS];
	char (*bottom)[256];
	size_t n;
	int rc;

	if (st->m)
		return 0;
	/* the history before the ranked commits: --history-rev, else what
	 * the sources' revisions start from */
	if (!(bottom = malloc(MAX_HREVS * sizeof(*bottom))))
		return ss_error_code(SS_ENOMEM, "out of memory");
	n = ss_run_history_revs(hrevs, bottom, MAX_HREVS, o->hrevs, o->nhrevs, o->opts->revs,
				o->opts->nrevs);
	if (n) {
		hopts.revs = hrevs;
		hopts.nrevs = n;
	}
	po.label = st->label;
	po.stable = o->stable;
	po.index_path = st->index_path;
	po.project_model = o->project_model;
	po.repo = o->repo;
	po.run = o->run;
	po.masked = o->opts->mask_stable_tags;
	po.held = ss_project_model_held(o->nhistory, st->index_path != NULL, (int)o->nspecs,
					o->repo != NULL, n != 0 &&
					(hopts.revs[0] != (o->opts->nrevs ? o->opts->revs[0] : NULL) ||
					 hopts.nrevs != o->opts->nrevs), o->since);
	po.hrepo = o->repo;
	po.hso = &hopts;
	po.since = o->since;
	po.as_of = o->as_of;
	po.learn_in_cycle = o->learn_in_cycle;
	po.hspecs = o->history;
	po.nhspecs = o->nhistory;
	po.specs = o->specs;
	po.nspecs = o->nspecs;
	po.hist = st->hist;
	ss_run_project_replay_size(&po, o->specs, o->nspecs);
	/* what it reads: the sources, the index and the releases as the
	 * ranking reads them */
	s.repo = o->repo;
	s.specs = o->specs;
	s.nspecs = o->nspecs;
	s.opts = o->opts;
	s.hspecs = o->history;
	s.nhspecs = o->nhistory;
	s.hopts = &hopts;
	s.releases = o->releases;
	s.release_tags = o->release_tags;
	s.db = o->db;
	s.no_index = o->no_index;
	s.as_of = o->as_of;
	s.run = o->run;
	s.rp = o->rp;
	ss_run_project_reader_init(&reader, &s);
	po.reader = &reader;
	po.hr = o->hr;
	po.rp = o->model_rp;
	po.store_rp = o->rp;
	rc = ss_run_rank_model(&st->m, &st->replay, &st->builtin, &po);
	*usage = rc && s.usage;
	free(bottom);
	return rc;
}

int ss_run_rank(ss_run_rank_state *st, int *usage, ss_run_rank_options *o)
{
	ss_run_rank_stream_options so = SS_RUN_RANK_STREAM_INIT;
	const char *given[SS_RANK_MAX_BRANCHES];
	size_t ngiven;
	int rc;

	*usage = 0;
	o->onto.repo = o->repo;
	o->onto.as_of = o->as_of;
	o->onto.run = o->run;
	o->onto.db = o->db;
	o->onto.no_index = o->no_index;
	o->onto.stable = o->stable;
	o->onto.rp = o->rp;
	if (!st->hist && ss_history_new(&st->hist))
		return ss_error_code(SS_ENOMEM, "out of memory");
	/* --as-of DATE: the index too is read as it was then */
	ss_run_rank_as_of(o->as_of, o->opts, &o->so->now, o->rp);
	if ((rc = history_load(st, usage, o)))
		return rc;
	/* the index's stable branches: what each carries, and the labels a
	 * project model is trained from */
	if (!o->stable && !o->no_index && (o->db || o->repo)) {
		if ((rc = ss_run_rank_stable(&st->label, &st->index_path, o->run, o->db, o->repo,
					     o->as_of)))
			return rc;
		o->ko->stable = st->label;
	}
	/* the stable branches before the model and the ranking: a bad --onto
	 * or --queue-branch fails before any work */
	ngiven = st->on.n;
	memcpy(given, st->on.onto, ngiven * sizeof(*given));
	if ((rc = ss_run_onto_open(&st->on, usage, &o->onto)) ||
	    (rc = choose_model(st, usage, o)) ||
	    (rc = ss_run_onto_cut(&st->label, given, ngiven, &o->onto)))
		return rc;
	o->ko->stable = st->label;
	if (!st->replay && !o->nspecs && !o->repo) {
		*usage = 1;
		return ss_error_code(SS_EINVALID, SS_RUN_NO_COMMITS);
	}
	so.repo = o->repo;
	so.specs = o->specs;
	so.nspecs = o->nspecs;
	so.opts = o->opts;
	so.history = o->history;
	so.nhistory = o->nhistory;
	so.hrevs = o->hrevs;
	so.nhrevs = o->nhrevs;
	so.since = o->since;
	so.builtin = st->builtin;
	so.br = st->on.br;
	so.rp = o->rp;
	if ((rc = ss_run_rank_stream(&st->r, st->hist, st->m, o->ko, &st->replay, &so)))
		return rc;
	ss_ranking_select(st->r, o->so);
	return ss_run_onto_decide(st->r, &st->on, usage, &o->onto);
}

void ss_run_rank_state_clear(ss_run_rank_state *st)
{
	ss_ranking_free(st->r);
	ss_history_free(st->hist);
	ss_policy_free(st->policy);
	ss_labels_free(st->labels);
	ss_backports_free(st->label);
	ss_replay_free(st->replay);
	free(st->index_path);
	ss_model_free(st->m);
	ss_run_onto_set_clear(&st->on);
	memset(st, 0, sizeof(*st));
}
