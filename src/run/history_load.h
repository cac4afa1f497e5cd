/*
 * history_load.h - the past every history a run scores against starts
 * with (history_load.c): the releases named (--releases FILE,
 * --release-tags GLOB), the repository whose last release the changed
 * code is looked up in, the project index's commits, paths and releases,
 * then the commits of the --history sources; a history walked and
 * primed as a run reads it, for the stored features (feature_store.h).
 *
 * The front end opens the project index (which file, what a missing one
 * says) and walks the --history sources (its reading of a source: which
 * commits cannot be read and how that is said) through an
 * ss_run_history_source, as run/feature_store.h takes an
 * ss_run_history_reader.  Like the rest of src/run/ nothing prints or
 * exits: 0 or a negative SS_E* code with the message set, the rest said
 * through an ss_run_report (NULL: nothing is said).
 */
#ifndef SS_RUN_HISTORY_LOAD_H
#define SS_RUN_HISTORY_LOAD_H

#include <stddef.h>
#include <stdint.h>

#include "features/history.h"
#include "index/index.h"
#include "run/commits.h"
#include "run/run.h"

typedef struct {
	/* the project index to prime from, read-only, its path (malloc'd)
	 * into *path; NULL when there is none (--no-index, a missing
	 * default index: the front end says so) */
	ss_index *(*index)(char **path, void *ud);
	/* every commit of the --history source spec to fn(c, data); how
	 * many were handed to fn.  NULL: read here with opts (run/commits.h:
	 * the commits that cannot be read one warning at the end of each
	 * source, one that cannot be opened an error) */
	size_t (*walk)(const char *spec, ss_run_commit_fn fn, void *data, void *ud);
	void *ud;
	const ss_source_options *opts;  /* how the sources are read without walk */
} ss_run_history_source;

/*
 * Give h the releases file or tags name (either may be NULL: the
 * index's then), the repository repo (may be NULL; run, which may be
 * NULL, lends it) and the index src->index gives: its commits and paths,
 * its releases when none were named, and its freshness against repo
 * (a warning through rp).  A bad releases file fails before the
 * repository is opened.  0 or < 0 with the message set.
 */
int ss_run_history_load(ss_history *h, const char *file, const char *tags, const char *repo,
			ss_run *run, const ss_run_history_source *src, const ss_run_report *rp);

/*
 * Add to h the commits of each --history source specs[0..n) through
 * src->walk (or read with src->opts), in turn; a source that holds none
 * is a warning through rp.  0, or < 0 with the message "cannot read
 * --history SPEC: why" (a source that cannot be read: the reading's).
 */
int ss_run_history_prime(ss_history *h, const char *const *specs, size_t n,
			 const ss_run_history_source *src, const ss_run_report *rp);

/* --release-tags needs the repository whose tags it reads: SS_EINVALID
 * (a usage error) with the message set when tags is given without repo,
 * else 0. */
int ss_run_history_check(const char *tags, const char *repo);

/* What a run's history is loaded from (ss_run_history_index_load). */
typedef struct {
	const char *releases;      /* --releases FILE (NULL: the index's) */
	const char *release_tags;  /* --release-tags GLOB (NULL; needs repo) */
	const char *repo;          /* the repository (NULL: none) */
	const char *db;            /* --db FILE (NULL: repo's own index) */
	int no_index;              /* --no-index (0) */
	int64_t as_of;             /* the index as it was then (0: today) */
	ss_run *run;               /* lends the repository and the index (NULL: each call opens) */
	const ss_run_report *rp;   /* NULL: nothing said */
} ss_run_history_options;

#define SS_RUN_HISTORY_OPTIONS_INIT { NULL, NULL, NULL, NULL, 0, 0, NULL, NULL }

/*
 * ss_run_history_load() with the index the options name, read through
 * the run (run.h: ss_run_index_read: a missing default index said once
 * a run, each time without one), after ss_run_history_check() (*usage
 * then 1, else 0).  0 or < 0 with the message set.
 */
int ss_run_history_index_load(ss_history *h, int *usage, const ss_run_history_options *o);

/* What a training's, an evaluation's or an explanation's history is
 * filled from (ss_run_history_fill). */
typedef struct {
	ss_run_history_options load;    /* the releases, the repository, the index
					   (SS_RUN_HISTORY_OPTIONS_INIT) */
	const char *const *specs;       /* --history SOURCE... (NULL) */
	size_t nspecs;                  /* (0) */
	const char *const *hrevs;       /* --history-rev REV... (NULL: the bottoms of
					   opts's ranges, else opts's own revisions) */
	size_t nhrevs;                  /* (0) */
	const ss_source_options *opts;  /* how the ranked sources are read; the
					   --history ones are read alike (NULL: needs
					   nspecs 0) */
} ss_run_history_fill_options;

#define SS_RUN_HISTORY_FILL_OPTIONS_INIT \
	{ SS_RUN_HISTORY_OPTIONS_INIT, NULL, 0, NULL, 0, NULL }

/*
 * The whole past a training, an evaluation or an explanation scores
 * against, before any of its commits: ss_run_history_index_load() (the
 * releases, the repository, the index the options name; *usage 1 on a
 * usage error), then the --history sources primed (ss_run_history_prime)
 * with o->opts's reading and the revisions of --history-rev, else the
 * bottoms of o->opts's ranges ("A" of "A..B": everything before the
 * commits read), else o->opts's own.  0 or < 0 with the message set.
 */
int ss_run_history_fill(ss_history *h, int *usage, const ss_run_history_fill_options *o);

/* ss_run_history_fill() as run/split_read.h's history callback: ud an
 * ss_run_history_fill_options (the usage checked before the read). */
int ss_run_history_fill_cb(ss_history *h, void *ud);

/*
 * The run's walk of a history: every commit of so's revisions of repo
 * to fn(c, data), read as run/commits.h reads a history source
 * (progress through rp; the commits that cannot be read counted and
 * said once, a warning, at the end).  0, or < 0 with the
 * message set (no repo: SS_RUN_NO_COMMITS; a repository that cannot be
 * read).
 */
int ss_run_history_walk(const char *repo, const ss_source_options *so, ss_run_commit_fn fn,
			void *data, const ss_run_report *rp);

/*
 * The run's priming of h from the index at db (NULL: repo's own index),
 * as a training primes it: ss_run_history_index_load() without a run (a missing default index a
 * note through rp each call).  0 or < 0 with the message set.
 */
int ss_run_history_index_prime(ss_history *h, const char *db, const char *repo,
			       const ss_run_report *rp);

#endif
