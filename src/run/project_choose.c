/*
 * project_choose.c - the project model of a ranking without --model
 * (project_choose.h; docs/scores.md).
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
 * and the front end says it learnt from other projects.  The project model
 * mixes in the built-in model's weights by the share its validation
 * slice chooses, and raises the project's best single rule when that
 * beats it there (project_train.c).
 *
 * The examples: the history before the ranked commits from the rows the
 * index keeps (feature_store.c) or walked with its diffs, then the
 * ranked commits, held out (read for their newest time and kept for the
 * ranking in a replay) unless nothing before them is known.  The rules
 * are project_rules.c's (the fit, the window, the relcode features),
 * project_keep.c's (the path, its folder, the cut) and project_train.c's
 * (the training on the settled examples).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval/eval.h"
#include "eval/split.h"
#include "labels/labels.h"
#include "models/dataset.h"
#include "run/project_choose.h"
#include "run/project_rules.h"
#include "run/project_train.h"
#include "source/git_repo.h"
#include "util/error.h"
#include "util/grow.h"
#include "util/strbuf.h"

struct examples {
	ss_split_sink sink;
	const char *what;
	size_t n;
	int rc;             /* an error of the replay or the stored rows */
	int train;          /* add to the training set (else only kept) */
	int64_t newest;     /* the newest author time read, ranked commits too */
	ss_replay *keep;    /* the sources' commits kept for the ranking, or NULL */
	ss_run_feature_store *store; /* keeps the features extracted, or NULL */
	const ss_run_report *store_rp;
	const ss_run_report *rp;
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

	ss_run_progress(e->rp, e->what, ++e->n, 0);
	if (c->author.time > e->newest)
		e->newest = c->author.time;
	if (e->keep && (e->rc = ss_replay_add(e->keep, c)) < 0) {
		ss_commit_free(c);
		return 1;
	}
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
	if ((e->rc = ss_run_feature_store_keep(e->store, e->sink.d, e->store_rp)) < 0)
		return 1;
	return 0;
}

/* An empty training set.  Its history (the index, the releases, the
 * repository for relcode: what the ranking is primed with) is primed
 * only when commits are to be extracted: rows kept in the index need
 * none. */
static int training_set(ss_dataset **out, const ss_feat_options *fo)
{
	int rc;

	*out = NULL;
	if ((rc = ss_dataset_new(out, fo)) || (rc = ss_model_prepare_dataset(SS_MODEL_LINEAR, *out))) {
		ss_dataset_free(*out);
		*out = NULL;
	}
	return rc;
}

/* The sink of e anew, into the empty training set d. */
static void sink_reset(struct examples *e, ss_dataset *d, ss_labels *labels)
{
	memset(&e->sink, 0, sizeof(e->sink));
	e->sink.d = d;
	e->sink.labels = labels;
}

/* The model's source and cut (ss_model_info), what people read of what it
 * learnt from. */
static int describe(ss_model *m, const char *labels_name, size_t nlabelled,
		    const ss_run_project_model_options *o)
{
	ss_strbuf source = SS_STRBUF_INIT;
	ss_model_info *in = ss_model_get_info(m);
	size_t a;
	int rc;

	for (a = 0; a < o->nhspecs; a++)
		ss_strbuf_addf(&source, "%s%s", source.len ? " " : "", o->hspecs[a]);
	if (o->held == SS_PROJECT_HELD_NONE || o->held == SS_PROJECT_HELD_SINCE)
		for (a = 0; a < o->nspecs; a++)
			ss_strbuf_addf(&source, "%s%s", source.len ? " " : "", o->specs[a]);
	if (!o->nspecs && o->repo)
		ss_strbuf_addf(&source, "%sgit:%s", source.len ? " " : "", o->repo);
	rc = ss_project_model_cut(in, &source, o->held, o->since, o->hrepo,
				  ss_run_repo(o->run, o->hrepo), o->hso->revs, o->hso->nrevs);
	if (!rc) {
		snprintf(in->source, sizeof(in->source), "%s", source.buf ? source.buf : "");
		snprintf(in->labels, sizeof(in->labels), "%s", labels_name);
		in->masked = (uint32_t)o->masked;
		in->nlabelled = nlabelled;
	}
	ss_strbuf_release(&source);
	return rc;
}

/* The history before the ranked commits into e's training set: from the
 * rows the index keeps when it keeps them all, else walked with the
 * diffs (the rows kept as they are extracted). */
static int read_history(struct examples *e, ss_dataset **d, ss_labels *labels,
			const ss_feat_options *fo, const ss_run_project_model_options *o)
{
	const ss_run_project_reader *rd = o->reader;
	ss_run_feature_store *fs = NULL;
	int rc = 0, stored = 0;

	if (o->held == SS_PROJECT_HELD_RANGE && rd->store && (rc = rd->store(&fs, fo, rd->ud)))
		return rc;
	if (fs) {
		if ((rc = ss_run_feature_store_read(&stored, fs, o->hrepo, o->hso, o->hr, &e->sink,
						    SS_PROJECT_READ_COMMITS, &e->newest, o->store_rp)))
			goto close;
		if (stored < 0) {
			ss_dataset_free(*d);
			if ((rc = training_set(d, fo)))
				goto close;
			sink_reset(e, *d, labels);
			e->newest = 0;
		}
	}
	if (stored <= 0 && (rc = rd->prime(ss_dataset_history_mut(*d), rd->ud)))
		goto drop;
	if (o->held == SS_PROJECT_HELD_HISTORY || (o->held == SS_PROJECT_HELD_RANGE && stored <= 0)) {
		e->store = fs;
		rc = rd->walk_history(add_example, e, rd->ud);
		e->store = NULL;
		if (rc)
			goto drop;
		if (!e->sink.rc && !e->rc && fs)
			ss_run_feature_store_walked(fs, o->hrepo, o->hso);
	}
close:
	ss_run_feature_store_close(fs, o->store_rp);
	return rc;
drop:
	/* the reading failed: the rows not yet committed are not kept */
	ss_run_feature_store_drop(fs);
	return rc;
}

/*
 * The ranked commits read on a thread of their own while the history is
 * read (the history from the index's rows is one thread's work, the
 * ranked commits' diffs two threads': systemd's first rank spent 2.5 s
 * and 3.3 s on them one after the other).  Only when the ranked commits
 * are held out and not learnt from (no --learn-in-cycle): then the read
 * adds nothing to the training set, only to the replay and the newest
 * time, and what it would have said is kept and said after the history's
 * own messages, where the read one after the other said it.
 */
struct heard {
	ss_run_level level;
	char *msg;
};

struct apart {
	const ss_run_project_reader *rd;
	struct examples e;
	ss_run_report rp;      /* records what is said; no progress */
	struct heard *heard;
	size_t nheard, cap;
	int rc, nomem;
	char why[1024];
	pthread_t th;
};

static void apart_say(ss_run_level level, const char *msg, void *ud)
{
	struct apart *a = ud;
	char *copy = strdup(msg);

	if (!copy || SS_GROW(a->heard, a->nheard + 1, a->cap)) {
		free(copy);
		a->nomem = 1;
		return;
	}
	a->heard[a->nheard++] = (struct heard){ level, copy };
}

static void *apart_main(void *arg)
{
	struct apart *a = arg;

	a->rc = a->rd->walk_ranked(add_example, &a->e, &a->rp, a->rd->ud);
	if (a->rc)
		snprintf(a->why, sizeof(a->why), "%s", ss_error_last());
	return NULL;
}

/* Start reading the ranked commits into replay beside the history; 0
 * when it runs, else < 0 (nothing started: read them after). */
static int apart_start(struct apart *a, const struct examples *e, ss_replay *replay,
		       const ss_run_project_reader *rd)
{
	memset(a, 0, sizeof(*a));
	a->rd = rd;
	a->e = *e;
	a->e.train = 0;
	a->e.keep = replay;
	a->e.what = "reading the commits to rank";
	a->e.rp = &a->rp;
	a->e.newest = 0;
	a->rp.say = apart_say;
	a->rp.ud = a;
	return pthread_create(&a->th, NULL, apart_main, a) ? -1 : 0;
}

/* Wait for the read; when told, say what it said, add its newest time
 * to e's and give its outcome (0, or < 0 with the message set).  The
 * messages are freed either way. */
static int apart_join(struct apart *a, struct examples *e, int tell, const ss_run_report *rp)
{
	int rc = 0;

	pthread_join(a->th, NULL);
	for (size_t i = 0; i < a->nheard; i++) {
		if (tell)
			ss_run_say(rp, a->heard[i].level, "%s", a->heard[i].msg);
		free(a->heard[i].msg);
	}
	free(a->heard);
	if (!tell)
		return 0;
	if (a->e.newest > e->newest)
		e->newest = a->e.newest;
	if (a->nomem)
		rc = ss_error_code(SS_ENOMEM, "out of memory");
	else if (a->rc)
		rc = ss_error_code(a->rc, "%s", a->why);
	else if (a->e.rc)
		e->rc = a->e.rc;
	return rc;
}

/* Train the project's linear model into *out; NULL (why[size] says why)
 * when the labelled history is too small. */
static int train(ss_model **out, ss_replay **replay, char *why, size_t size,
		 const char *labels_name, size_t nlabelled, const ss_run_project_model_options *o)
{
	const ss_run_project_reader *rd = o->reader;
	ss_feat_options fo = SS_FEAT_OPTIONS_INIT;
	struct examples e;
	ss_labels *labels = NULL;
	ss_dataset *d = NULL;
	ss_dataset_reads reads;
	ss_model *m = NULL, *prior = NULL;
	ss_strmap *rejected = NULL;
	size_t n, npos = 0;
	double t0 = ss_now();
	struct apart ap;
	int rc, apart;

	*out = NULL;
	*replay = NULL;
	if ((rc = ss_labels_from_backports(&labels, o->label, labels_name)))
		return rc;
	if ((rc = training_set(&d, &fo)))
		goto free_labels;
	memset(&e, 0, sizeof(e));
	sink_reset(&e, d, labels);
	e.train = 1;
	e.what = "reading commits to train the project model";
	e.rp = o->rp;
	e.store_rp = o->store_rp;
	apart = o->held == SS_PROJECT_HELD_RANGE && !o->learn_in_cycle && rd->ranked_apart &&
		rd->ranked_apart(rd->ud);
	if (apart) {
		if (o->replay && (rc = ss_replay_new(replay, o->replay_cap)))
			goto free_all;
		/* libgit2's object cache set once for both reads, not by
		 * whichever source opens first while the other reads */
		ss_git_object_cache_hold(1);
		if (apart_start(&ap, &e, *replay, rd)) {
			ss_git_object_cache_hold(0);
			apart = 0;
		}
	}
	rc = read_history(&e, &d, labels, &fo, o);
	if (apart) {
		/* said and counted only where the reads one after the other
		 * would have read the ranked commits */
		int tell = !rc && !e.sink.rc && !e.rc, rc2 = apart_join(&ap, &e, tell, o->rp);

		ss_git_object_cache_hold(0);
		if (!rc)
			rc = rc2;
	}
	if (rc)
		goto free_all;
	if (!e.sink.rc && !e.rc) {
		/* held out, the ranked commits are read for their newest
		 * time (what the labels have had time to settle against) and
		 * kept for the ranking, not learnt from */
		if (!apart && o->replay && (rc = ss_replay_new(replay, o->replay_cap)))
			goto free_all;
		e.keep = *replay;
		e.train = o->held == SS_PROJECT_HELD_NONE || o->held == SS_PROJECT_HELD_SINCE;
		e.what = e.train ? e.what : "reading the commits to rank";
		if (o->held == SS_PROJECT_HELD_SINCE)
			e.sink.before = o->since;
		if (!e.train && o->learn_in_cycle) {
			e.taken = o->label;
			if (rd->rejected && (rc = rd->rejected(&rejected, rd->ud)))
				goto free_all;
			e.rejected = rejected;
		}
		if (!apart)
			rc = rd->walk_ranked(add_example, &e, NULL, rd->ud);
		e.taken = NULL;
		e.keep = NULL;
		if (rc)
			goto free_all;
		if (*replay && !e.rc && ss_replay_dropped(*replay)) {
			ss_run_say(o->rp, SS_RUN_INFO, "the commits read for training are more than "
				   "SS_REPLAY_KIB keeps in memory: the ranking reads them again");
			ss_replay_free(*replay);
			*replay = NULL;
		}
	}
	ss_run_progress_done(o->rp);
	if (e.rc) {
		rc = e.rc;
		goto free_all;
	}
	if (e.sink.rc) {
		rc = ss_run_fail(e.sink.rc, "cannot featurize commits");
		goto free_all;
	}
	if (ss_model_load_default(&prior)) {
		ss_error_clear();
		prior = NULL;
	}
	rc = ss_project_model_fit(&m, &n, &npos, why, size, d, e.newest, o->repo, o->hist, prior,
				  o->rp);
	ss_model_free(prior);
	if (rc || !m)
		goto free_all;
	if ((rc = describe(m, labels_name, nlabelled, o)))
		goto free_all;
	ss_dataset_reads_get(&reads, d);
	ss_run_say(o->rp, SS_RUN_INFO, "trained a linear model for this project on %zu commits (%zu "
		   "in the stable tree, the newest %d days left out as unsettled)%s in %.1fs; "
		   "features of %zu commits from the index, %zu read from their diffs", n, npos,
		   SS_PROJECT_SETTLE_DAYS, o->held != SS_PROJECT_HELD_NONE ?
		   " from the history before the ranked ones" : "", ss_now() - t0, reads.stored,
		   reads.extracted);
	if (o->held == SS_PROJECT_HELD_NONE)
		ss_run_say(o->rp, SS_RUN_INFO, "the %zu settled commits it learnt from are ranked "
			   "too, so their scores are in-sample; name the history before them "
			   "(--history, --since, or an index and --rev A..B) to keep them out", n);
	*out = m;
	m = NULL;

free_all:
	ss_model_free(m);
	if (rc) {
		ss_replay_free(*replay);
		*replay = NULL;
	}
	ss_strmap_free(rejected);
	ss_dataset_free(d);
free_labels:
	ss_labels_free(labels);
	return rc;
}

int ss_run_project_model_choose(ss_model **out, ss_replay **replay, char *why, size_t size,
			 const ss_run_project_model_options *o)
{
	char labels_name[512], stale[600], date[16];
	const char *reason = NULL;
	const char *from = o->stable ? o->stable : o->index_path;
	char *abs, *path = NULL;
	size_t nlabelled;
	ss_model *m = NULL;
	int rc;

	*out = NULL;
	*replay = NULL;
	/* one name for the tree however it was spelt, so that the kept
	 * model is recognised from another folder */
	abs = realpath(from, NULL);
	snprintf(labels_name, sizeof(labels_name), "%s:%s", o->stable ? "stable" : "index",
		 abs ? abs : from);
	free(abs);
	nlabelled = ss_backports_count(o->label);
	if (o->as_of || o->learn_in_cycle) {
		/* the kept model learnt from what was settled later, and this
		 * one, of the past, must not replace it; one that learnt from
		 * the ranked cycle must not serve a run that did not ask */
		if (o->as_of) {
			ss_format_date(date, o->as_of);
			ss_run_say(o->rp, SS_RUN_INFO, "as of %s: training the project model on what "
				   "was settled then; the kept one is neither used nor replaced", date);
		} else {
			ss_run_say(o->rp, SS_RUN_INFO, "training the project model with the ranked "
				   "cycle's known commits; the kept one is neither used nor replaced");
		}
		return train(out, replay, why, size, labels_name, nlabelled, o);
	}
	if ((rc = ss_project_model_path(&path, o->project_model, o->repo, ss_run_repo(o->run, o->repo),
					o->stable, o->index_path)))
		return rc;
	if (!path) {
		ss_error_set("out of memory");
		return SS_ENOMEM;
	}
	rc = ss_project_model_read(&m, path);
	if (rc == 0) {
		reason = ss_project_model_stale(stale, sizeof(stale), m, labels_name, nlabelled,
						o->masked);
		if (!reason)
			reason = ss_project_model_trained_on_ranked(stale, sizeof(stale), m, o->held,
								    o->since, o->hrepo,
								    ss_run_repo(o->run, o->hrepo),
								    o->hso->revs, o->hso->nrevs);
		if (!reason) {
			ss_format_date(date, ss_model_info_of(m)->trained_at);
			ss_run_say(o->rp, SS_RUN_INFO, "using the model trained for this project on %s "
				   "(%llu commits, labels from %s): %s", date,
				   (unsigned long long)ss_model_info_of(m)->n, labels_name, path);
			*out = m;
			free(path);
			return 0;
		}
		ss_model_free(m);
		m = NULL;
		ss_run_say(o->rp, SS_RUN_INFO, "retraining the project model %s: %s", path, reason);
	} else if (rc != SS_ENOTFOUND) {
		ss_run_say(o->rp, SS_RUN_INFO, "retraining the project model: %s", ss_error_last());
	}
	if ((rc = train(&m, replay, why, size, labels_name, nlabelled, o)) || !m) {
		free(path);
		return rc;
	}
	if (ss_project_model_make_parent(path))
		ss_run_say(o->rp, SS_RUN_WARNING, "cannot keep the project model in '%s' (%s): it "
			   "will be trained again next time", path, ss_error_last());
	else if (ss_project_model_write(m, path))
		ss_run_say(o->rp, SS_RUN_WARNING, "cannot keep the project model (%s): it will be "
			   "trained again next time", ss_error_last());
	else
		ss_run_say(o->rp, SS_RUN_INFO, "kept the project model in %s; it is used again until "
			   "the stable tree grows by a release", path);
	*out = m;
	free(path);
	return 0;
}

void ss_run_project_replay_size(ss_run_project_model_options *o, const char *const *specs,
				size_t nspecs)
{
	const char *env = getenv("SS_REPLAY_KIB");
	unsigned long long kib = SS_REPLAY_DEFAULT_KIB;

	if (env && *env)
		kib = strtoull(env, NULL, 10);
	if (!(o->replay = kib != 0))
		return;
	for (size_t a = 0; a < nspecs; a++)
		if (!strcmp(specs[a], "-"))
			kib = 0;
	o->replay_cap = kib > SIZE_MAX / 1024 ? SIZE_MAX : (size_t)kib * 1024;
}

const char *ss_run_builtin_words(char *buf, size_t size, const ss_model *m)
{
	const ss_model_info *in = ss_model_info_of(m);

	if (!strncmp(in->source, "corpus:", 7))
		snprintf(buf, size, "learnt from other projects (%s, labelled by their stable "
			 "branches; docs/scores.md, \"The general model\"): its scores may not carry "
			 "over to this one", in->source + 7);
	else
		snprintf(buf, size, "was trained on another project (%s, labels %s): its "
			 "scores may not carry over to this one", in->source, in->labels);
	return buf;
}

/* The built-in model into *out, said with why (whole: the model's words
 * may outgrow ss_run_say's buffer). */
static int use_builtin(ss_model **out, int *builtin, const char *why,
		       const ss_run_project_model_options *o)
{
	ss_strbuf msg = SS_STRBUF_INIT;
	char words[1400];
	int rc;

	if ((rc = ss_model_load_default(out)))
		return rc;
	*builtin = 1;
	if (o->rp && o->rp->say) {
		if (ss_strbuf_addf(&msg, "%s: using the built-in model, which %s", why,
				   ss_run_builtin_words(words, sizeof(words), *out))) {
			ss_model_free(*out);
			*out = NULL;
			return ss_error_code(SS_ENOMEM, "out of memory");
		}
		o->rp->say(SS_RUN_INFO, msg.buf, o->rp->ud);
		ss_strbuf_release(&msg);
	}
	return 0;
}

int ss_run_rank_model(ss_model **out, ss_replay **replay, int *builtin,
		      const ss_run_project_model_options *o)
{
	char why[256];
	int rc;

	*out = NULL;
	*replay = NULL;
	*builtin = 0;
	if (!o->label)
		return use_builtin(out, builtin, "no --model, no --stable SOURCE and no project "
				   "index with stable branches to train one for this project from", o);
	if ((rc = ss_run_project_model_choose(out, replay, why, sizeof(why), o)))
		return rc;
	return *out ? 0 : use_builtin(out, builtin, why, o);
}
