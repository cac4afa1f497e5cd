/*
 * git_repo.c - one owner for a repository (git_repo.h): the handle
 * readers share, the one open code, and the process-wide libgit2 settings
 * and object store a reader of whole histories opens it with.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <git2.h>

#include "source/git.h"
#include "source/git_impl.h"
#include "source/git_repo.h"
#include "util/error.h"

struct ss_repo {
	git_repository *repo;
	char *path;      /* as opened (ss_repo_open(): without "git:") */
	size_t refs;     /* ss_repo_ref() + 1; the last ss_repo_free() closes */
};

/* Every ss_git_repo_open() of the process (ss_repo_opened()). */
static atomic_size_t opened;

int ss_repo_open(ss_repo **out, const char *path)
{
	return ss_repo_open_as_given(out, strncmp(path, "git:", 4) ? path : path + 4);
}

int ss_repo_open_as_given(ss_repo **out, const char *path)
{
	ss_repo *r;
	int rc;

	*out = NULL;
	if (git_libgit2_init() < 0)
		return ss_error_code(SS_EINVALID, "cannot start libgit2: %s", ss_git_error());
	if (!(r = calloc(1, sizeof(*r))) || !(r->path = strdup(path))) {
		free(r);
		git_libgit2_shutdown();
		return ss_error_code(SS_ENOMEM, "out of memory for repository '%s'", path);
	}
	if ((rc = ss_git_repo_open(&r->repo, path))) {
		free(r->path);
		free(r);
		git_libgit2_shutdown();
		return rc;
	}
	r->refs = 1;
	*out = r;
	return 0;
}

ss_repo *ss_repo_ref(ss_repo *r)
{
	if (r)
		r->refs++;
	return r;
}

void ss_repo_free(ss_repo *r)
{
	if (!r || --r->refs)
		return;
	git_repository_free(r->repo);
	free(r->path);
	free(r);
	git_libgit2_shutdown();
}

git_repository *ss_repo_git(const ss_repo *r)
{
	return r->repo;
}

const char *ss_repo_path(const ss_repo *r)
{
	return r->path;
}

size_t ss_repo_opened(void)
{
	return atomic_load(&opened);
}

/* Sources open (see the top of git.c: libgit2's object cache), counted
 * under a lock: sources may be opened and freed from two threads at once
 * (run/project_choose.c). */
static int open_sources;
static pthread_mutex_t open_sources_lock = PTHREAD_MUTEX_INITIALIZER;

/* See git.h; git's own packedGitWindowSize is 1 GiB and its limit 8 GiB. */
void ss_git_setup(void)
{
	git_libgit2_opts(GIT_OPT_SET_MWINDOW_SIZE, (size_t)32 << 20);
	git_libgit2_opts(GIT_OPT_SET_MWINDOW_MAPPED_LIMIT, (size_t)128 << 20);
}

int ss_git_repo_open(git_repository **out, const char *path)
{
	atomic_fetch_add(&opened, 1);
	if (git_repository_open_ext(out, path, 0, NULL) < 0)
		return ss_error_code(SS_ENOTFOUND, "cannot open repository '%s': %s",
				     path, ss_git_error());
	return 0;
}

int ss_git_repo_open_store(git_repository **out, ss_git_store **store, const char *path,
			   size_t cache)
{
	int err;

	*store = NULL;
	if ((err = ss_git_repo_open(out, path)) < 0)
		return err;
	*store = ss_git_store_new(*out, cache);
	ss_git_store_attach(*store, *out);
	return 0;
}

int ss_git_repo_open_stored(git_repository **out, void **store, const char *path, size_t cache)
{
	ss_git_store *s;
	int err = ss_git_repo_open_store(out, &s, path, cache);

	*store = s;
	return err;
}

void ss_git_store_release(void *store)
{
	ss_git_store_free(store);
}

/* libgit2's object cache: off for commits and trees while held (git.h). */
void ss_git_object_cache_hold(int hold)
{
	/* libgit2 1.5's defaults (src/libgit2/cache.c) */
	size_t limit = 4096;

	pthread_mutex_lock(&open_sources_lock);
	if (!(hold ? open_sources++ : --open_sources)) {
		if (hold)
			limit = 0;
		git_libgit2_opts(GIT_OPT_SET_CACHE_OBJECT_LIMIT, GIT_OBJECT_COMMIT, limit);
		git_libgit2_opts(GIT_OPT_SET_CACHE_OBJECT_LIMIT, GIT_OBJECT_TREE, limit);
	}
	pthread_mutex_unlock(&open_sources_lock);
}
