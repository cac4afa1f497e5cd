/*
 * git_shallow.c - a shallow clone's boundary (git_impl.h): the grafted
 * commits of its shallow file, read as roots as git log does, and the
 * backend that serves their absent parents so that revisions naming one
 * are refused as git refuses them (git_walk.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <git2.h>
#include <git2/sys/odb_backend.h>

#include "source/git.h"
#include "source/git_impl.h"
#include "util/error.h"
#include "util/grow.h"

enum {
	GIT_WALK_PRIORITY = 1000   /* the walk backend: above everything */
};

/*
 * The shallow boundary's backend, in front of every other on the walking
 * repository only.  It serves the absent parents of a shallow clone's
 * grafted commits as parentless commits (dated 1970, empty tree), so
 * that libgit2's rev-parse resolves a revision that names one ("HEAD~300"
 * past the boundary) and beyond_shallow() refuses it as git does, instead
 * of "not found".  The walk never reads them: it takes the grafted
 * commits as roots (git_graph.c).
 */
struct ss_git_walk_backend {
	git_odb_backend parent;
	const ss_git_shallow *sh;
};

static const char boundary_commit[] =
	"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n"
	"author shallow boundary <> 0 +0000\n"
	"committer shallow boundary <> 0 +0000\n\n";

static int cmp_oid(const void *a, const void *b)
{
	return git_oid_cmp(a, b);
}

static int oid_in(const git_oid *set, size_t n, const git_oid *oid)
{
	return n && bsearch(oid, set, n, sizeof(*set), cmp_oid) != NULL;
}

static int walk_read(void **out, size_t *len, git_object_t *type, git_odb_backend *backend,
		     const git_oid *oid)
{
	struct ss_git_walk_backend *b = (struct ss_git_walk_backend *)backend;
	void *buf;

	if (!oid_in(b->sh->cut, b->sh->ncut, oid))
		return GIT_PASSTHROUGH;
	if (!(buf = git_odb_backend_data_alloc(backend, sizeof(boundary_commit))))
		return -1;
	memcpy(buf, boundary_commit, sizeof(boundary_commit));
	*out = buf;
	*len = sizeof(boundary_commit) - 1;
	*type = GIT_OBJECT_COMMIT;
	return 0;
}

static int walk_read_header(size_t *len, git_object_t *type, git_odb_backend *backend,
			    const git_oid *oid)
{
	struct ss_git_walk_backend *b = (struct ss_git_walk_backend *)backend;

	if (!oid_in(b->sh->cut, b->sh->ncut, oid))
		return GIT_PASSTHROUGH;
	*len = sizeof(boundary_commit) - 1;
	*type = GIT_OBJECT_COMMIT;
	return 0;
}

static int walk_exists(git_odb_backend *backend, const git_oid *oid)
{
	struct ss_git_walk_backend *b = (struct ss_git_walk_backend *)backend;

	return oid_in(b->sh->cut, b->sh->ncut, oid);
}

static void walk_backend_free(git_odb_backend *backend)
{
	free(backend);
}

/* The ids of <commondir>/shallow (git_impl.h). */
int ss_git_shallow_ids(git_oid **out, size_t *n, git_repository *repo, const char *rpath)
{
	char path[4352], line[128];
	git_oid oid, *ids = NULL;
	size_t cap = 0, count = 0;
	FILE *f;
	int err = 0;

	*out = NULL;
	*n = 0;
	if (git_repository_is_shallow(repo) != 1)
		return 0;
	snprintf(path, sizeof(path), "%sshallow", git_repository_commondir(repo));
	if (!(f = fopen(path, "r")))
		return ss_error_set("cannot read '%s' of '%s': %s", path, rpath, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		if (git_oid_fromstrn(&oid, line, GIT_OID_HEXSZ) < 0)
			continue;
		if (SS_GROW(ids, count + 1, cap)) {
			err = ss_error_code(SS_ENOMEM, "out of memory reading '%s'", path);
			break;
		}
		git_oid_cpy(&ids[count++], &oid);
	}
	fclose(f);
	if (err) {
		free(ids);
		return err;
	}
	if (count)
		qsort(ids, count, sizeof(*ids), cmp_oid);
	*out = ids;
	*n = count;
	return 0;
}

int ss_git_shallow_grafted_in(const git_oid *ids, size_t n, const git_oid *oid)
{
	return oid_in(ids, n, oid);
}

/*
 * A shallow clone: its grafted commits, which the walk (git_graph.c) and
 * the diffs (git.c) take as roots, as git log does, and which of their
 * parents are absent (sh->cut), so that a revision naming one is refused
 * as git refuses it; the boundary's backend goes in front of repo's odb
 * for that (see struct ss_git_walk_backend), on every repository, shallow
 * or not.
 */
int ss_git_shallow_load(ss_git_shallow *sh, git_repository *repo, const char *rpath)
{
	struct ss_git_walk_backend *b;
	git_odb *odb = NULL;
	git_commit *commit;
	size_t ccap = 0, k;
	unsigned int i, np;
	int err;

	if (git_repository_odb(&odb, repo) < 0)
		return ss_error_set("cannot read objects of '%s': %s", rpath, ss_git_error());
	if ((err = ss_git_shallow_ids(&sh->grafted, &sh->ngrafted, repo, rpath)) < 0)
		goto free_odb;
	for (k = 0; k < sh->ngrafted; k++) {
		if (git_commit_lookup(&commit, repo, &sh->grafted[k]) < 0)
			continue;  /* a grafted commit no revision reaches */
		np = git_commit_parentcount(commit);
		for (i = 0; i < np; i++) {
			const git_oid *p = git_commit_parent_id(commit, i);

			if (git_odb_exists(odb, p))
				continue;
			if (SS_GROW(sh->cut, sh->ncut + 1, ccap)) {
				git_commit_free(commit);
				goto no_memory;
			}
			git_oid_cpy(&sh->cut[sh->ncut++], p);
		}
		git_commit_free(commit);
	}
	if (sh->ncut)
		qsort(sh->cut, sh->ncut, sizeof(*sh->cut), cmp_oid);
	if (!(b = calloc(1, sizeof(*b))))
		goto no_memory;
	git_odb_init_backend(&b->parent, GIT_ODB_BACKEND_VERSION);
	b->parent.read = walk_read;
	b->parent.read_header = walk_read_header;
	b->parent.exists = walk_exists;
	b->parent.free = walk_backend_free;
	b->sh = sh;
	if (git_odb_add_backend(odb, &b->parent, GIT_WALK_PRIORITY) < 0) {
		free(b);
		err = ss_error_set("cannot read objects of '%s': %s", rpath, ss_git_error());
		goto free_odb;
	}
	sh->backend = b;
	goto free_odb;
no_memory:
	err = ss_error_code(SS_ENOMEM, "out of memory reading the shallow boundary of '%s'", rpath);
free_odb:
	git_odb_free(odb);
	return err;
}

void ss_git_shallow_clear(ss_git_shallow *sh)
{
	free(sh->grafted);
	free(sh->cut);
	memset(sh, 0, sizeof(*sh));
}

int ss_git_shallow_grafted(const ss_git_shallow *sh, const git_oid *oid)
{
	return ss_git_shallow_grafted_in(sh->grafted, sh->ngrafted, oid);
}
