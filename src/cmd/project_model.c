/*
 * project_model.c - which model "rank" and "report" score with when no
 * --model is given (see cli.h, cli_ranking_model; docs/scores.md).
 *
 * A model trained on other projects reads only the signals they share
 * (the built-in one learnt from a corpus of public C projects,
 * docs/scores.md), so when the project's stable tree is known
 * (--stable SOURCE, or an index with stable branches) a linear model is
 * trained from it, in seconds, labelled by the stable tree, the commits
 * younger than SS_PROJECT_SETTLE_DAYS before the newest one read left out
 * as not yet settled.  It learns from the history before the ranked
 * commits when that is known (--history; the index's repository before
 * the bottoms of --rev A..B; the commits read but authored before
 * --since), never from the ranked commits themselves,
 * so that a fix the stable tree missed is not taught as a negative and
 * then ranked low; only when nothing before them is known does it learn
 * from their own settled labels, and says so.  It is kept
 * beside the repository's data: <gitdir>/stablesel/project.model (the
 * --repo repository, else the --stable one), or stablesel/project.model
 * in the folder of the --stable file, or where --project-model says.  It
 * is used again while it fits: the same stable source, the same tag
 * masking, a ranked range that starts after the history it learnt from
 * (its cut, the bottoms' ids or the --since time, is a field of the
 * model file, ss_model_info), and a
 * stable tree that has not grown by more than a release's worth of
 * backports since (the training count times SS_PROJECT_RELEASE_DAYS
 * over the training commits' span in days).  Without --stable, or when the
 * labelled history is too small to learn from, the built-in model is used
 * and stderr says it learnt from other projects.  The project model
 * mixes in the built-in model's weights by the share its validation
 * slice chooses, and raises the project's best single rule when that
 * beats it there (run/project_train.c).  With an index, the
 * history's features come from the rows it keeps (feature_store_cli.h), not
 * from its diffs.  The rules are the run floor's: the fit, the window
 * and the relcode features in run/project_rules.c, the path, its folder
 * and the cut in run/project_keep.c, the training on the settled
 * examples in run/project_train.c; this file reads them and says.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "decisions_cli.h"
#include "eval/eval.h"
#include "eval/split.h"
#include "feature_store_cli.h"
#include "labels/backports.h"
#include "labels/labels.h"
#include "models/dataset.h"
#include "models/metrics.h"
#include "run/project_keep.h"
#include "run/project_rules.h"
#include "run/project_train.h"
#include "util/strmap.h"
#include "util/error.h"
#include "util/strbuf.h"

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

/* The run floor's words (run/project_rules.h) as say() prints them. */
static void run_say(ss_run_level level, const char *msg, void *ud)
{
	if (level == SS_RUN_WARNING)
		warning("%s", msg);
	else
		say(ud, "%s", msg);
}

static void use_builtin(cli_ranking *k, const char *why)
{
	if (ss_model_load_default(&k->m))
		die("%s", ss_error_last());
	k->builtin = 1;
	say(k, "%s: using the built-in model, which %s", why, cli_builtin_words(k->m));
}

/* Where the project model lives (run/project_keep.h), NULL when nothing
 * names it. */
static char *path_of(const char *project_model, const char *repo, ss_repo *rh,
		     const char *stable, const char *index_path)
{
	char *path;

	if (ss_project_model_path(&path, project_model, repo, rh, stable, index_path))
		die("%s", ss_error_last());
	return path;
}

static char *model_path(const cli_ranking *k, const cli_source_args *src)
{
	return path_of(k->project_model, src->repo, ss_run_repo(k->run, src->repo), k->stable,
		       k->index_path);
}

ss_model *cli_project_model_kept(const char *project_model, const char *repo, ss_run *run,
				 char **used)
{
	char *path = path_of(project_model, repo, ss_run_repo(run, repo), NULL, NULL);
	ss_model *m = NULL;
	int rc;

	*used = NULL;
	if (!path)
		return NULL;
	if ((rc = ss_project_model_read(&m, path))) {
		if (project_model)
			die("%s", ss_error_last());
		if (rc != SS_ENOTFOUND)
			warning("%s", ss_error_last());
		ss_error_clear();
		free(path);
		return NULL;
	}
	*used = path;
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

struct examples {
	ss_split_sink sink;
	const char *what;
	size_t n;
	int train;          /* add to the training set (else only kept) */
	int64_t newest;     /* the newest author time read, ranked commits too */
	ss_replay *keep;    /* the sources' commits kept for the ranking, or NULL */
	cli_feature_store *store; /* keeps the features extracted, or NULL */
	/* --learn-in-cycle, with train 0: the ranked commits whose fate is
	 * known (taken, or rejected) go in as SS_PROJECT_PART_CYCLE */
	ss_backports *taken;
	const ss_strmap *rejected;
	size_t ncycle;
};

/* Is c of the ranked cycle known: a stable branch took it, or review
 * rejected it (and none took it)? */
static int cycle_known(const struct examples *e, const ss_commit *c)
{
	if (!e->taken)
		return 0;
	if (ss_backports_branches(e->taken, c->id))
		return 1;
	return e->rejected && ss_strmap_find(e->rejected, c->id, strlen(c->id)) != SS_STRMAP_NONE;
}

static int add_example(ss_commit *c, void *data)
{
	struct examples *e = data;

	progress(e->what, ++e->n, 0);
	if (c->author.time > e->newest)
		e->newest = c->author.time;
	if (e->keep && ss_replay_add(e->keep, c))
		die("%s", ss_error_last());
	if (!e->train && cycle_known(e, c)) {
		e->sink.part = SS_PROJECT_PART_CYCLE;
		e->ncycle++;
		if (ss_split_add(c, &e->sink))
			return 1;
		e->sink.part = 0;
		return 0;
	}
	if (!e->train) {
		ss_commit_free(c);
		return 0;
	}
	if (ss_split_add(c, &e->sink))
		return 1;
	cli_feature_store_keep(e->store, e->sink.d);
	return 0;
}

/*
 * The ranking reads the sources again after training; keeping them as
 * they are read here spares that second read (most of a first rank's
 * time, docs/scores.md), up to SS_REPLAY_KIB of compressed commits
 * (SS_REPLAY_DEFAULT_KIB; 0: keep nothing).  Past it they are read again,
 * but standard input cannot be: with "-" among the sources there is no
 * cap (unless SS_REPLAY_KIB says 0).
 */
#define SS_REPLAY_DEFAULT_KIB (256 * 1024)

static ss_replay *replay_new(const char *const *specs, int nspecs)
{
	const char *env = getenv("SS_REPLAY_KIB");
	unsigned long long kib = SS_REPLAY_DEFAULT_KIB;
	ss_replay *r;
	int a;

	if (env && *env)
		kib = strtoull(env, NULL, 10);
	if (!kib)
		return NULL;
	for (a = 0; a < nspecs; a++)
		if (!strcmp(specs[a], "-"))
			kib = 0;
	if (ss_replay_new(&r, kib > SIZE_MAX / 1024 ? SIZE_MAX : (size_t)kib * 1024))
		die("%s", ss_error_last());
	return r;
}

/* An empty training set.  Its history (the index, the releases, the
 * repository for relcode: what the ranking is primed with) is loaded by
 * prime() only when commits are to be extracted: rows kept in the index
 * need none. */
static ss_dataset *training_set(const ss_feat_options *fo)
{
	ss_dataset *d = NULL;

	if (ss_dataset_new(&d, fo) || ss_model_prepare_dataset(SS_MODEL_LINEAR, d))
		die("%s", ss_error_last());
	return d;
}

static void prime(cli_ranking *k, const cli_source_args *src, ss_dataset *d)
{
	cli_history_load(&k->hist_args, ss_dataset_history_mut(d), src->repo);
}

/* Train the project's linear model; NULL (with a warning said) when the
 * labelled history is too small. */
static ss_model *train(cli_ranking *k, cli_source_args *src, const char *const *specs, int nspecs,
		       const char *labels_name, size_t nlabelled, ss_project_held held,
		       cli_source_args *hsrc)
{
	ss_feat_options fo = SS_FEAT_OPTIONS_INIT;
	ss_strbuf source = SS_STRBUF_INIT;
	struct examples e;
	ss_labels *labels = NULL;
	ss_dataset *d = NULL;
	ss_dataset_reads reads;
	ss_model *m = NULL, *prior = NULL;
	ss_strmap *rejected = NULL;
	cli_feature_store *fs = NULL;
	size_t n, npos = 0;
	char why[256];
	double t0 = ss_now();
	int a, stored = 0;
	ss_run_report rp = { run_say, NULL, NULL, k };

	if (ss_labels_from_backports(&labels, k->label, labels_name))
		die("%s", ss_error_last());
	d = training_set(&fo);
	memset(&e, 0, sizeof(e));
	e.sink.d = d;
	e.sink.labels = labels;
	e.train = 1;
	e.what = "reading commits to train the project model";
	/* the history before the ranked commits, from the features the index
	 * keeps when it keeps them all (feature_store_cli.h) */
	if (held == SS_PROJECT_HELD_RANGE &&
	    (fs = cli_feature_store_open(&k->hist_args, src->repo, &fo, &hsrc->opts)) &&
	    (stored = cli_feature_store_read(fs, hsrc, &e.sink, SS_PROJECT_READ_COMMITS,
						&e.newest)) < 0) {
		ss_dataset_free(d);
		d = training_set(&fo);
		memset(&e.sink, 0, sizeof(e.sink));
		e.sink.d = d;
		e.sink.labels = labels;
		e.newest = 0;
	}
	if (stored <= 0)
		prime(k, src, d);
	if (held == SS_PROJECT_HELD_HISTORY || (held == SS_PROJECT_HELD_RANGE && stored <= 0)) {
		e.store = fs;
		cli_for_each_history_commit(hsrc, k->hist_args.n ? k->hist_args.specs : NULL,
					    (int)k->hist_args.n, add_example, &e);
		e.store = NULL;
		if (!e.sink.rc)
			cli_feature_store_walked(fs, hsrc);
	}
	cli_feature_store_close(fs);
	if (!e.sink.rc) {
		/* held out, the ranked commits are read for their newest
		 * time (what the labels have had time to settle against) and
		 * kept for the ranking, not learnt from */
		e.keep = k->replay = replay_new(specs, nspecs);
		e.train = held == SS_PROJECT_HELD_NONE || held == SS_PROJECT_HELD_SINCE;
		e.what = e.train ? e.what : "reading the commits to rank";
		if (held == SS_PROJECT_HELD_SINCE)
			e.sink.before = k->since;
		if (!e.train && k->learn_in_cycle) {
			e.taken = k->label;
			e.rejected = rejected = cli_decisions_rejected(k, src->repo);
		}
		cli_for_each_commit(src, specs, nspecs, add_example, &e);
		e.taken = NULL;
		e.keep = NULL;
		if (k->replay && ss_replay_dropped(k->replay)) {
			say(k, "the commits read for training are more than SS_REPLAY_KIB keeps in "
			    "memory: the ranking reads them again");
			ss_replay_free(k->replay);
			k->replay = NULL;
		}
	}
	progress_done();
	if (e.sink.rc)
		die("cannot featurize commits: %s", ss_error_last());
	if (ss_model_load_default(&prior)) {
		ss_error_clear();
		prior = NULL;
	}
	if (ss_project_model_fit(&m, &n, &npos, why, sizeof(why), d, e.newest, src->repo, k->hist,
				 prior, &rp))
		die("%s", ss_error_last());
	ss_model_free(prior);
	if (!m) {
		use_builtin(k, why);
		goto free_all;
	}
	for (a = 0; a < (int)k->hist_args.n; a++)
		ss_strbuf_addf(&source, "%s%s", source.len ? " " : "", k->hist_args.specs[a]);
	if (held == SS_PROJECT_HELD_NONE || held == SS_PROJECT_HELD_SINCE)
		for (a = 0; a < nspecs; a++)
			ss_strbuf_addf(&source, "%s%s", source.len ? " " : "", specs[a]);
	if (!nspecs && src->repo)
		ss_strbuf_addf(&source, "%sgit:%s", source.len ? " " : "", src->repo);
	if (ss_project_model_cut(ss_model_get_info(m), &source, held, k->since, hsrc->repo, ss_run_repo(k->run, hsrc->repo),
				 hsrc->opts.revs, hsrc->opts.nrevs))
		die("%s", ss_error_last());
	{
		ss_model_info *in = ss_model_get_info(m);

		snprintf(in->source, sizeof(in->source), "%s", source.buf ? source.buf : "");
		snprintf(in->labels, sizeof(in->labels), "%s", labels_name);
		in->masked = (uint32_t)src->opts.mask_stable_tags;
		in->nlabelled = nlabelled;
	}
	ss_dataset_reads_get(&reads, d);
	say(k, "trained a linear model for this project on %zu commits (%zu in the stable tree, the "
	    "newest %d days left out as unsettled)%s in %.1fs; features of %zu commits from the "
	    "index, %zu read from their diffs", n, npos, SS_PROJECT_SETTLE_DAYS,
	    held != SS_PROJECT_HELD_NONE ? " from the history before the ranked ones" : "", ss_now() - t0,
	    reads.stored, reads.extracted);
	if (held == SS_PROJECT_HELD_NONE)
		say(k, "the %zu settled commits it learnt from are ranked too, so their scores are "
		    "in-sample; name the history before them (--history, --since, or an index and "
		    "--rev A..B) to keep them out", n);

free_all:
	ss_strmap_free(rejected);
	ss_strbuf_release(&source);
	ss_dataset_free(d);
	ss_labels_free(labels);
	return m;
}

void cli_ranking_model(cli_ranking *k, cli_source_args *src, const char *const *specs, int nspecs)
{
	char labels_name[512], why[600], date[16];
	const char *reason = NULL;
	cli_source_args hsrc;
	ss_project_held held;
	size_t nlabelled;
	ss_model *m = NULL;
	char *path;
	int rc;

	if (k->m)
		return;
	if (!k->label) {
		use_builtin(k, "no --model, no --stable SOURCE and no project index with stable "
			    "branches to train one for this project from");
		return;
	}
	{
		/* one name for the tree however it was spelt, so that the kept
		 * model is recognised from another folder */
		const char *from = k->stable ? k->stable : k->index_path;
		char *abs = realpath(from, NULL);

		snprintf(labels_name, sizeof(labels_name), "%s:%s", k->stable ? "stable" : "index",
			 abs ? abs : from);
		free(abs);
	}
	nlabelled = ss_backports_count(k->label);
	held = history_before(k, src, nspecs, &hsrc);
	if (k->as_of || k->learn_in_cycle) {
		/* the kept model learnt from what was settled later, and this
		 * one, of the past, must not replace it; one that learnt from
		 * the ranked cycle must not serve a run that did not ask */
		if (k->as_of) {
			ss_format_date(date, k->as_of);
			say(k, "as of %s: training the project model on what was settled then; the "
			    "kept one is neither used nor replaced", date);
		} else {
			say(k, "training the project model with the ranked cycle's known commits; the "
			    "kept one is neither used nor replaced");
		}
		k->m = train(k, src, specs, nspecs, labels_name, nlabelled, held, &hsrc);
		return;
	}
	if (!(path = model_path(k, src)))
		die("out of memory");
	rc = ss_project_model_read(&m, path);
	if (rc == 0) {
		reason = ss_project_model_stale(why, sizeof(why), m, labels_name, nlabelled,
						src->opts.mask_stable_tags);
		if (!reason)
			reason = ss_project_model_trained_on_ranked(why, sizeof(why), m, held, k->since,
								    hsrc.repo,
								    ss_run_repo(k->run, hsrc.repo),
								    hsrc.opts.revs, hsrc.opts.nrevs);
		if (!reason) {
			ss_format_date(date, ss_model_info_of(m)->trained_at);
			say(k, "using the model trained for this project on %s (%llu commits, labels from "
			    "%s): %s", date, (unsigned long long)ss_model_info_of(m)->n, labels_name, path);
			k->m = m;
			free(path);
			return;
		}
		ss_model_free(m);
		m = NULL;
		say(k, "retraining the project model %s: %s", path, reason);
	} else if (rc != SS_ENOTFOUND) {
		say(k, "retraining the project model: %s", ss_error_last());
	}
	if (!(m = train(k, src, specs, nspecs, labels_name, nlabelled, held, &hsrc))) {
		free(path);
		return;
	}
	if (ss_project_model_make_parent(path))
		warning("cannot keep the project model in '%s' (%s): it will be trained again next time",
			path, ss_error_last());
	else if (ss_project_model_write(m, path))
		warning("cannot keep the project model (%s): it will be trained again next time",
			ss_error_last());
	else
		say(k, "kept the project model in %s; it is used again until the stable tree grows by "
		    "a release", path);
	k->m = m;
	free(path);
}
