/*
 * git_repo.h - one owner for a repository (git_repo.c): a handle opened
 * once from a path and shared by every reader of that repository (a
 * branch check, its history index, the checks of other branches that
 * share a blame cache), instead of each opening its own; the one open
 * code (ss_git_repo_open) the readers that still start from a path use;
 * and the process-wide libgit2 settings a reader of whole histories
 * needs (memory of mapped packs, the object cache, the object store in
 * front of libgit2's pack reader).
 */
#ifndef SS_GIT_REPO_H
#define SS_GIT_REPO_H

#include <stddef.h>

struct git_repository;

/*
 * A repository handle: reference-counted, so that each reader holds it as
 * long as it needs it and the last ss_repo_free() closes it.  It holds a
 * git_libgit2_init() reference while it lives.  Readers share one handle
 * from one thread (libgit2 objects are not shared between threads; the
 * git source's workers open their own).
 */
typedef struct ss_repo ss_repo;

/*
 * Open the repository at path (a "git:" prefix is dropped; a directory
 * inside a work tree finds it, as git does).  0; SS_ENOTFOUND with
 * "cannot open repository '<path>': <why>", SS_EINVALID when libgit2
 * cannot start.
 */
int ss_repo_open(ss_repo **out, const char *path);

/*
 * Open the repository at path as given, "git:" and all (a path function
 * of the readers that never dropped it keeps doing so through it: such a
 * path then fails to open as before).  As ss_repo_open() otherwise.
 */
int ss_repo_open_as_given(ss_repo **out, const char *path);

/* One more reference to r (r back, NULL for NULL); each is dropped with
 * ss_repo_free(), NULL a no-op. */
ss_repo *ss_repo_ref(ss_repo *r);
void ss_repo_free(ss_repo *r);

/* The libgit2 repository (owned by r) and the path it was opened from
 * (without "git:" when ss_repo_open() opened it); readers' messages name
 * it. */
struct git_repository *ss_repo_git(const ss_repo *r);
const char *ss_repo_path(const ss_repo *r);

/* Repositories opened so far in this process (every ss_git_repo_open()):
 * what a test counts to see readers share one handle. */
size_t ss_repo_opened(void);

/*
 * Open the repository at path (or the one above it, as git does) as a
 * bare libgit2 handle, libgit2 started by the caller: the one open code
 * (ss_repo_open() and the git source's workers use it).  0, or
 * SS_ENOTFOUND with "cannot open repository '<path>': <why>".
 */
int ss_git_repo_open(struct git_repository **out, const char *path);

/*
 * Process-wide libgit2 settings that bound memory, for a program that
 * reads whole histories: libgit2's own pack reader (every repository not
 * read through the git source, such as release and history lookups)
 * maps packs in windows of 1 GiB up to 8 GiB by default, so that every
 * page of a pack it reads stays resident (the whole pack: 517 MB of a
 * 320,000-commit repository to list its commits); here windows of
 * 32 MiB, at most 128 MiB mapped.  Call once after git_libgit2_init().
 */
void ss_git_setup(void);

/*
 * libgit2's object cache off for commits and trees while held, for walks
 * over whole histories, where every commit read would stay cached, parsed
 * or raw (up to libgit2's 256 MiB); the object store of the git source
 * keeps what is worth keeping.  A count: hold(1) ... hold(0), nested; the
 * defaults come back with the last release.  Git sources hold it while
 * open.  The count is kept under a lock; libgit2's limits change only at
 * the first hold and the last release, which a caller whose threads read
 * at once (run/project_choose.c) makes its own, around them all.
 */
void ss_git_object_cache_hold(int hold);

/*
 * Open the repository at path (or the one above it) for a walk over its
 * whole history: objects are read through the git source's object store
 * (a cache of cache bytes; at most about cache / 2 bytes of its packs and
 * pack indexes resident, as for the git source) in front of libgit2's own
 * pack reader, which maps each pack index whole and touches all of it in
 * such a walk (70 MB for the 2.5 M objects of bench/index.sh's generated
 * repository), besides its windows of pack data.  *store is NULL when the
 * store could not be made (libgit2 then reads everything); free it with
 * ss_git_store_release() after the repository.  0, or SS_ENOTFOUND with
 * the message set.
 */
int ss_git_repo_open_stored(struct git_repository **out, void **store, const char *path,
			    size_t cache);
/* NULL is a no-op. */
void ss_git_store_release(void *store);

#endif
