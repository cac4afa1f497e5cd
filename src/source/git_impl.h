/*
 * git_impl.h - what the files of the git source share (internal; the
 * public side is source/git.h and ss_git_open() in source/impl.h).
 *
 *   git.c          the commit source: reading commits, tree changes, workers
 *   git_pack.c     the object store: an odb backend over packs and loose objects
 *   git_loose.c    reading one loose object (for the object store)
 *   git_repo.c     the repository handle, the one open code, libgit2's
 *                  settings (public: git_repo.h)
 *   git_walk.c     revisions and the walk
 *   git_shallow.c  a shallow clone's boundary and its backend
 *   git_graph.c    the compact commit walk (public: git_graph.h, for the
 *                  releases graph of src/history/ too)
 *   git_branches.c branch listing
 *   git_rename.c   rename detection with less scoring than libgit2's
 *
 * Every function here leaves libgit2 initialised as its caller found it;
 * the callers hold a git_libgit2_init() reference.
 */
#ifndef SS_SOURCE_GIT_IMPL_H
#define SS_SOURCE_GIT_IMPL_H

#include <stddef.h>

#include <git2.h>
#include <git2/sys/odb_backend.h>

/* ------------------------------------------------------------------ */
/* The object store (git_pack.c). */

/*
 * A read-only store of a repository's objects: its packs (mapped, with an
 * LRU of resolved delta bases shared by every thread) and its loose
 * objects.  One store serves any number of git_repository handles of the
 * same repository, in any threads; it must outlive all of them.
 */
typedef struct ss_git_store ss_git_store;

/* The store of repo's objects directory with a cache of about cache
 * bytes, and about cache / 2 bytes of its packs resident at most; NULL
 * when memory is short or repo has no objects directory (libgit2 then
 * reads everything itself). */
ss_git_store *ss_git_store_new(git_repository *repo, size_t cache);
/* NULL is a no-op.  Only after every repository it is attached to is freed. */
void ss_git_store_free(ss_git_store *s);
/* Put s in front of repo's own odb backends (s NULL: nothing).  On
 * failure repo reads as before, only slower, so this returns nothing. */
void ss_git_store_attach(ss_git_store *s, git_repository *repo);

/* Open the repository at path (ss_git_repo_open()) with a store of about
 * cache bytes in front of it (*store NULL when none could be made; NULL
 * too when the open fails): ss_git_repo_open_stored() of git_repo.h with
 * the store's type (git_repo.c). */
int ss_git_repo_open_store(git_repository **out, ss_git_store **store, const char *path,
			   size_t cache);

/*
 * The loose object oid under objdir (".../objects/", ending in '/'),
 * inflated into *out (allocated with git_odb_backend_data_alloc(backend),
 * NUL-terminated, *len bytes without the NUL).  With out NULL only the
 * header is read (type and size).  Returns 0, GIT_ENOTFOUND when there is
 * no such file, GIT_PASSTHROUGH for a format left to libgit2, or -1 with
 * libgit2's error set ("corrupt loose object <id>: <problem>").
 */
int ss_git_loose_read(void **out, size_t *len, git_object_t *type, git_odb_backend *backend,
		      const char *objdir, const git_oid *oid);
/* The one loose object whose id starts with the klen hex digits of key:
 * its id into *full, the rest as ss_git_loose_read(); GIT_PASSTHROUGH
 * when more than one matches (libgit2 then says it is ambiguous). */
int ss_git_loose_read_prefix(git_oid *full, void **out, size_t *len, git_object_t *type,
			     git_odb_backend *backend, const char *objdir, const git_oid *key,
			     size_t klen);
/* 1 when objdir holds oid as a loose object file, else 0. */
int ss_git_loose_exists(const char *objdir, const git_oid *oid);

/* ------------------------------------------------------------------ */
/* The shallow boundary (git_shallow.c) and revisions (git_walk.c). */

struct ss_git_walk_backend;

/*
 * A shallow clone's boundary: the grafted commits of its shallow file
 * (read as roots, as git log does) and those of their parents that are
 * absent (revisions naming them are refused); both sorted, NULL/0 when
 * not shallow.  Must not move once loaded: the boundary's backend points
 * at it.
 */
typedef struct ss_git_shallow {
	git_oid *grafted, *cut;
	size_t ngrafted, ncut;
	struct ss_git_walk_backend *backend;  /* owned by the repository's odb */
} ss_git_shallow;

/* The grafted commits of a shallow clone (the ids of <commondir>/shallow;
 * lines that are no id are skipped), sorted, into *ids (malloc'd; NULL and
 * 0 when repo is not shallow); path names repo in messages.  0 or < 0
 * with message set.  ss_git_shallow_grafted_in() looks one up. */
int ss_git_shallow_ids(git_oid **ids, size_t *n, git_repository *repo, const char *path);
int ss_git_shallow_grafted_in(const git_oid *ids, size_t n, const git_oid *oid);

/* Fill sh (zeroed) for repo and put the boundary's backend in front of
 * repo's odb; path names repo in messages.  0 or < 0 with message set. */
int ss_git_shallow_load(ss_git_shallow *sh, git_repository *repo, const char *path);
/* Free what sh holds (not the backend: repo's odb owns it). */
void ss_git_shallow_clear(ss_git_shallow *sh);
/* 1 when oid is a grafted commit of the shallow clone (a root for git log). */
int ss_git_shallow_grafted(const ss_git_shallow *sh, const git_oid *oid);

/*
 * The commits of revs (git log's syntax; none: HEAD) in the order of
 * `git log --reverse --date-order`, merges included, into *out (malloc'd,
 * *n entries; NULL when empty).  sh must be loaded for repo.  With
 * merges, also which merge brought each commit in (*merges malloc'd, n
 * entries, as ss_git_graph_groups() tells): along the first-parent line
 * of the walk's newest commit, or of groups_tip when not NULL (then
 * walked from groups_tip down to what revs hide).  0 or < 0 with message
 * set naming path and the revision or commit.
 */
struct ss_git_merge_of {
	git_oid merge;   /* the merge that brought the commit in */
	size_t commits;  /* commits it brought; 0: none (merge is zero) */
};

int ss_git_walk(git_oid **out, size_t *n, struct ss_git_merge_of **merges,
		git_repository *repo, const char *path, ss_git_shallow *sh, const char **revs,
		size_t nrevs, const char *groups_tip);

/* ------------------------------------------------------------------ */
/* Rename detection (git_rename.c). */

/*
 * git_diff_find_similar(diff) with GIT_DIFF_FIND_RENAMES and rename_limit
 * (nothing else set) for a tree diff of repo, in fewer comparisons when
 * the result is sure to be the same; libgit2_only: as libgit2 alone does
 * it.  Returns < 0 with libgit2's error set, as git_diff_find_similar, or
 * how it went: 0 libgit2 scored every pair, 1 it looked for exact matches
 * only, 2 it was told the renames (tests check that each is reached).
 */
int ss_git_find_renames(git_diff *diff, git_repository *repo, unsigned rename_limit,
			int libgit2_only);

#endif
