/*
 * project_model.c - which model "rank" and "report" score with when no
 * --model is given (see cli.h, cli_ranking_model; docs/scores.md).
 *
 * The step is the run floor's (run/project_choose.c, which says what the
 * project model learns from, where it is kept and when it is used
 * again, reading the sources and the index through run/project_read.c);
 * this file hands it the options, dies on its error and says what it
 * decided as "rank: ..." lines.  explain's model without
 * --model, the one rank kept, is read here too (cli_project_model_kept).
 */
#include <stdarg.h>
#include <stdio.h>

#include "cli.h"
#include "feature_store_cli.h"
#include "run/project_keep.h"
#include "run/project_choose.h"
#include "run/project_read.h"
#include "util/error.h"

static void say(const cli_ranking *k, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void say(const cli_ranking *k, const char *fmt, ...)
{
	va_list ap;

	progress_done();
	fprintf(stderr, "%s: ", k->cmd ? k->cmd : "rank");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* The run floor's words (run/project_choose.h and the rules it applies)
 * as say() prints them. */
static void run_say(ss_run_level level, const char *msg, void *ud)
{
	if (level == SS_RUN_WARNING)
		warning("%s", msg);
	else
		say(ud, "%s", msg);
}

ss_model *cli_project_model_kept(const char *project_model, const char *repo, ss_run *run,
				 char **used)
{
	ss_model *m;

	if (ss_project_model_kept(&m, used, project_model, repo, ss_run_repo(run, repo),
				  cli_run_report()))
		die("%s", ss_error_last());
	return m;
}

/* Which history the model learns from (run/project_keep.h), with *hsrc
 * set to the history's source (HISTORY, RANGE). */
static ss_project_held history_before(const cli_ranking *k, const cli_source_args *src,
				      int nspecs, cli_source_args *hsrc)
{
	cli_history_source(hsrc, &k->hist_args, src);
	return ss_project_model_held(k->hist_args.n, k->index_path != NULL, nspecs, src->repo != NULL,
				     hsrc->opts.revs[0] != src->opts.revs[0] ||
				     hsrc->opts.nrevs != src->opts.nrevs, k->since);
}

static void run_progress(const char *what, size_t done, size_t total, void *ud)
{
	(void)ud;
	progress(what, done, total);
}

static void run_progress_done(void *ud)
{
	(void)ud;
	progress_done();
}

void cli_ranking_model(cli_ranking *k, cli_source_args *src, const char *const *specs, int nspecs)
{
	ss_run_project_model_options o = SS_RUN_PROJECT_MODEL_OPTIONS_INIT;
	ss_run_report rp = { run_say, run_progress, run_progress_done, k };
	ss_run_project_sources s = SS_RUN_PROJECT_SOURCES_INIT;
	ss_run_project_reader reader;
	cli_source_args hsrc;

	if (k->m)
		return;
	o.label = k->label;
	o.stable = k->stable;
	o.index_path = k->index_path;
	o.project_model = k->project_model;
	o.repo = src->repo;
	o.run = k->run;
	o.masked = src->opts.mask_stable_tags;
	o.held = history_before(k, src, nspecs, &hsrc);
	o.hrepo = hsrc.repo;
	o.hso = &hsrc.opts;
	o.since = k->since;
	o.as_of = k->as_of;
	o.learn_in_cycle = k->learn_in_cycle;
	o.hspecs = k->hist_args.specs;
	o.nhspecs = k->hist_args.n;
	o.specs = specs;
	o.nspecs = nspecs > 0 ? (size_t)nspecs : 0;
	o.hist = k->hist;
	ss_run_project_replay_size(&o, specs, o.nspecs);
	/* what it reads: the sources, the index and the releases as the
	 * ranking reads them (run/project_read.h) */
	s.repo = src->repo;
	s.specs = specs;
	s.nspecs = o.nspecs;
	s.opts = &src->opts;
	s.hspecs = k->hist_args.specs;
	s.nhspecs = k->hist_args.n;
	s.hopts = &hsrc.opts;
	s.releases = k->hist_args.rel.file;
	s.release_tags = k->hist_args.rel.tags;
	s.db = k->hist_args.ix.db;
	s.no_index = k->hist_args.ix.no_index;
	s.as_of = k->hist_args.ix.as_of;
	s.run = k->run;
	s.rp = cli_run_report();
	ss_run_project_reader_init(&reader, &s);
	o.reader = &reader;
	o.hr = cli_history_reader();
	o.rp = &rp;
	o.store_rp = cli_run_report();
	if (ss_run_rank_model(&k->m, &k->replay, &k->builtin, &o)) {
		if (s.usage)
			usage_die("%s", ss_error_last());
		die("%s", ss_error_last());
	}
}
