/*
 * run.c - the run floor's messages and progress through the caller's
 * ss_run_report (run.h), its errors that name the step, and the run's
 * resources (ss_run): each repository and the project index opened once
 * and lent to every step.
 */
#include "run/run.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "index/index.h"
#include "run/index_open.h"
#include "source/git_repo.h"
#include "util/error.h"

void ss_run_say(const ss_run_report *rp, ss_run_level level, const char *fmt, ...)
{
	char msg[2048];
	va_list ap;

	if (!rp || !rp->say)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	rp->say(level, msg, rp->ud);
}

void ss_run_progress(const ss_run_report *rp, const char *what, size_t done, size_t total)
{
	if (rp && rp->progress)
		rp->progress(what, done, total, rp->ud);
}

void ss_run_progress_done(const ss_run_report *rp)
{
	if (rp && rp->progress_done)
		rp->progress_done(rp->ud);
}

int ss_run_fail(int rc, const char *fmt, ...)
{
	char last[1024], what[1024];
	va_list ap;

	/* the last message is the buffer the new one is written to */
	snprintf(last, sizeof(last), "%s", ss_error_last());
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return ss_error_code(rc < 0 ? rc : SS_ERROR, "%s: %s", what, last);
}

/* A run reads few repositories (--repo, --onto-repo) and few indexes
 * (one; --db beside --onto-repo's): a short list each, looked through. */
enum { RUN_MAX_REPOS = 8, RUN_MAX_INDEXES = 8 };

struct run_repo {
	char *path;      /* as given */
	ss_repo *repo;   /* NULL: path could not be opened (not tried again) */
};

struct run_index {
	char *db, *repo; /* the key: --db (NULL: repo's default), the repository */
	int64_t as_of;
	ss_index *ix;    /* NULL: none (then path is NULL too) */
	char *path;
	int missing;     /* ix NULL for a missing default index */
};

struct ss_run {
	struct run_repo repos[RUN_MAX_REPOS];
	size_t nrepos;
	struct run_index indexes[RUN_MAX_INDEXES];
	size_t nindexes;
	size_t opened_indexes, opened_repos;
	int said_missing;  /* the missing default index said (once a run) */
};

int ss_run_new(ss_run **out)
{
	if (!(*out = calloc(1, sizeof(**out))))
		return ss_error_code(SS_ENOMEM, "out of memory for a run");
	return 0;
}

void ss_run_free(ss_run *run)
{
	size_t i;

	if (!run)
		return;
	/* the indexes first: a reader's connection outlives no repository
	 * it was checked against, and nothing of theirs points into them */
	for (i = 0; i < run->nindexes; i++) {
		ss_index_free(run->indexes[i].ix);
		free(run->indexes[i].db);
		free(run->indexes[i].repo);
		free(run->indexes[i].path);
	}
	for (i = 0; i < run->nrepos; i++) {
		ss_repo_free(run->repos[i].repo);
		free(run->repos[i].path);
	}
	free(run);
}

ss_repo *ss_run_repo(ss_run *run, const char *path)
{
	struct run_repo *e;
	size_t i;

	if (!run || !path)
		return NULL;
	for (i = 0; i < run->nrepos; i++)
		if (!strcmp(run->repos[i].path, path))
			return run->repos[i].repo;
	if (run->nrepos == RUN_MAX_REPOS)
		return NULL;
	e = &run->repos[run->nrepos];
	if (!(e->path = strdup(path)))
		return NULL;
	run->nrepos++;
	/* as given, as the path functions open it: a path they cannot open
	 * is no handle either, and they say why */
	if (ss_repo_open_as_given(&e->repo, path)) {
		e->repo = NULL;
		ss_error_clear();
	} else {
		run->opened_repos++;
	}
	return e->repo;
}

static int same(const char *a, const char *b)
{
	return a ? b && !strcmp(a, b) : !b;
}

/* A copy of s (NULL for NULL) into *out; 0 or SS_ENOMEM. */
static int dup_or_null(char **out, const char *s)
{
	*out = NULL;
	return s && !(*out = strdup(s)) ? SS_ENOMEM : 0;
}

/* e's index lent: a reference and a copy of its path. */
static int lend(ss_index **out, char **path, int *missing, const struct run_index *e)
{
	if (dup_or_null(path, e->path))
		return ss_error_code(SS_ENOMEM, "out of memory opening an index");
	*out = ss_index_share(e->ix);
	*missing = e->missing;
	return 0;
}

/* The entry of (db, repo, as_of), NULL when none. */
static struct run_index *find_index(ss_run *run, const char *db, const char *repo, int64_t as_of)
{
	for (size_t i = 0; i < run->nindexes; i++) {
		struct run_index *e = &run->indexes[i];

		if (same(e->db, db) && same(e->repo, repo) && e->as_of == as_of)
			return e;
	}
	return NULL;
}

/* Keep ix (the run's now: the caller's reference) read from path (NULL
 * with ix) under (db, repo, as_of).  0; 1 when the list is full (ix is
 * not kept); SS_ENOMEM with the message set. */
static int keep_index(ss_run *run, ss_index *ix, const char *path, int missing, const char *db,
		      const char *repo, int64_t as_of)
{
	struct run_index *e;

	if (run->nindexes == RUN_MAX_INDEXES)
		return 1;
	e = &run->indexes[run->nindexes];
	memset(e, 0, sizeof(*e));
	if (dup_or_null(&e->db, db) || dup_or_null(&e->repo, repo) || dup_or_null(&e->path, path)) {
		free(e->db);
		free(e->repo);
		free(e->path);
		return ss_error_code(SS_ENOMEM, "out of memory opening an index");
	}
	e->as_of = as_of;
	e->ix = ix;
	e->missing = missing;
	run->nindexes++;
	return 0;
}

int ss_run_index(ss_index **out, char **path, int *missing, ss_run *run, const char *db,
		 const char *repo, int64_t as_of)
{
	struct run_index *e;
	ss_index *ix = NULL;
	int rc;

	*out = NULL;
	*path = NULL;
	*missing = 0;
	if (run && (e = find_index(run, db, repo, as_of)))
		return lend(out, path, missing, e);
	if ((rc = ss_run_index_open(&ix, path, missing, db, repo, ss_run_repo(run, repo))))
		return rc;
	if (ix && as_of && (rc = ss_index_as_of(ix, as_of))) {
		ss_index_free(ix);
		free(*path);
		*path = NULL;
		return rc;
	}
	if (!run) {
		*out = ix;  /* no run: the caller's alone */
		return 0;
	}
	run->opened_indexes += ix != NULL;
	rc = keep_index(run, ix, *path, *missing, db, repo, as_of);
	/* no room: the caller's alone, as before there was a run */
	if (rc > 0) {
		*out = ix;
		return 0;
	}
	if (rc) {
		ss_index_free(ix);
		free(*path);
		*path = NULL;
		return rc;
	}
	*out = ss_index_share(ix);
	return 0;
}

int ss_run_index_read(ss_index **out, char **path, ss_run *run, const char *db,
		      const char *repo, int64_t as_of, const ss_run_report *rp)
{
	int missing = 0, rc = ss_run_index(out, path, &missing, run, db, repo, as_of);

	if (!rc && missing && !(run && run->said_missing++))
		ss_run_index_missing_say(repo, rp);
	return rc;
}

int ss_run_index_use(ss_run *run, ss_index *ix, const char *path, const char *db,
		     const char *repo)
{
	int rc;

	if (find_index(run, db, repo, 0))
		return ss_error_code(SS_EINVALID, "the run has an index of '%s' already", path);
	if ((rc = keep_index(run, ss_index_share(ix), path, 0, db, repo, 0))) {
		ss_index_free(ix);  /* the reference just taken */
		return rc > 0 ? ss_error_code(SS_EINVALID, "too many indexes in one run") : rc;
	}
	return 0;
}

size_t ss_run_opened_indexes(const ss_run *run)
{
	return run ? run->opened_indexes : 0;
}

size_t ss_run_opened_repos(const ss_run *run)
{
	return run ? run->opened_repos : 0;
}
