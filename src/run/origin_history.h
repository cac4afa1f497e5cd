/*
 * origin_history.h - what "origin" reads before it explains a commit, for any
 * front end (cmd/origin.c prints): the history its Fixes: and reverts are
 * resolved against (the project index's commits, the --history sources,
 * the sources), the releases, the commits asked for found among the
 * sources by id, and a commit read from the repository with its diff
 * for blame.
 *
 * Nothing here prints or exits: 0 or a negative SS_* code with the
 * message set (util/error.h); one commit that cannot be explained is
 * SS_ESKIP (its message set, the run goes on), anything else stops it.
 */
#ifndef SS_RUN_ORIGIN_HISTORY_H
#define SS_RUN_ORIGIN_HISTORY_H

#include "history/histidx.h"
#include "index/index.h"
#include "run/releases.h"
#include "run/run.h"
#include "source/source.h"

/*
 * A new history index into *out (the caller frees it with
 * ss_histidx_free()), the repository at repo attached (NULL: none, no
 * blame): rh when not NULL (repo open already, a run's: a reference is
 * taken), else repo opened.
 */
int ss_run_origin_history(ss_histidx **out, const char *repo, ss_repo *rh);

/* Every commit of the project index ix known to h as a target; path
 * names ix in the message when reading it fails. */
int ss_run_origin_known(ss_histidx *h, ss_index *ix, const char *path);

/*
 * The commit rev of the repository at repo, read alone through a git
 * source with opts (its diff too when opts asks: blame needs it) into
 * *out, which the caller owns.  SS_ESKIP when rev names no commit of h,
 * names a merge (it fixes nothing itself) or cannot be read; a message
 * the source skips on the way is said through rp (SS_RUN_ERROR).
 */
int ss_run_origin_commit(ss_commit **out, ss_histidx *h, const char *repo,
			 const ss_source_options *opts, const char *rev, const ss_run_report *rp);

/* Whether an argument of origin names a source (an mbox, a maildir,
 * "-", "git:PATH": a path that exists) rather than a commit. */
int ss_run_origin_is_source(const char *arg);

/*
 * The releases origin dates bugs with (run/releases.h: what ask names,
 * else the project index's, else the repository's tags), into *out (the
 * caller's, NULL: none), after every commit of the project index ix
 * (NULL: none; read from path) was made known to h as a target.  No
 * releases at all, or no release tags in the repository, is a warning
 * through rp.
 */
int ss_run_origin_releases(ss_releases **out, ss_histidx *h, ss_index *ix, const char *path,
			   const ss_releases_ask *ask, const ss_run_report *rp);

/* A commit asked for, named by id among the sources. */
typedef struct {
	const char *arg;      /* as given */
	char prefix[41];      /* the id or prefix (set by ss_run_origin_read) */
	ss_commit *commit;    /* the first match (owned; see
				 ss_run_origin_wanted_release()) */
	int nmatch;           /* how many commits matched (> 1: ambiguous) */
} ss_run_origin_wanted;

/*
 * Every commit of specs[0..n) read with opts into h's history, through
 * rp (progress, a commit that cannot be read an error); given w[0..nw),
 * each commit whose id starts with w[i].arg is counted in w[i].nmatch
 * and the first kept in w[i].commit.  0 or < 0 with the message set.
 */
int ss_run_origin_read(ss_histidx *h, ss_run_origin_wanted *w, size_t nw,
		       const char *const *specs, size_t n, const ss_source_options *opts,
		       const ss_run_report *rp);

/* The --history sources specs[0..n) into h: read as ss_run_origin_read()
 * reads them, without their diffs, the stable tags masked as mask says. */
int ss_run_origin_read_history(ss_histidx *h, const char *const *specs, size_t n, int mask,
			       const ss_run_report *rp);

/*
 * The commit w names into *out (w's): the one the sources held when they
 * were read (from_sources), else rev w->arg read alone from repo
 * (ss_run_origin_commit(), kept in w->commit).  SS_ESKIP with the
 * message set when it cannot be explained (no such commit in the
 * sources, an ambiguous id, ss_run_origin_commit()'s reasons).
 */
int ss_run_origin_pick(ss_commit **out, ss_run_origin_wanted *w, int from_sources, ss_histidx *h,
		       const char *repo, const ss_source_options *opts, const ss_run_report *rp);

/* Free the commits of w[0..n), each once (two may share one). */
void ss_run_origin_wanted_release(ss_run_origin_wanted *w, size_t n);

/* What origin reads before it explains a commit (ss_run_origin_load). */
typedef struct {
	const char *repo;               /* --repo PATH (NULL: none) */
	const char *db;                 /* --db FILE (NULL: repo's own index) */
	int no_index;                   /* --no-index (0) */
	int64_t as_of;                  /* the index as it was then (0: today) */
	const char *releases;           /* --releases FILE (NULL) */
	const char *release_tags;       /* --release-tags GLOB (NULL) */
	const char *const *history;     /* --history SOURCE... (NULL) */
	size_t nhistory;                /* (0) */
	const char *const *specs;       /* the SOURCES the commits are in (NULL: none,
					   each read alone by ss_run_origin_pick()) */
	size_t nspecs;                  /* (0) */
	const ss_source_options *opts;  /* how the sources are read (required) */
	ss_run *run;                    /* lends the repository and the index (NULL:
					   each step opens its own) */
	const ss_run_report *rp;        /* NULL: nothing said */
} ss_run_origin_options;

#define SS_RUN_ORIGIN_OPTIONS_INIT \
	{ NULL, NULL, 0, 0, NULL, NULL, NULL, 0, NULL, 0, NULL, NULL, NULL }

/*
 * Everything origin reads before it explains a commit, in order: the
 * history over the repository (ss_run_origin_history), the project
 * index's commits and the releases (ss_run_origin_releases: the options',
 * else the index's, else the repository's tags; the index read through
 * the run, a missing default one said through o->rp), the --history
 * sources, then the SOURCES with w[0..nw) looked for among them
 * (ss_run_origin_read).  *out the history and *rel the releases, the
 * caller's (NULL both on error).  0 or < 0 with the message set.
 */
int ss_run_origin_load(ss_histidx **out, ss_releases **rel, ss_run_origin_wanted *w, size_t nw,
		       const ss_run_origin_options *o);

#endif
