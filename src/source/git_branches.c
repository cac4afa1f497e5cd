/*
 * git_branches.c - the local and remote-tracking branches of a repository,
 * the local name of a remote-tracking one (ss_git_branch_local()), a
 * revision resolved to its commit, the git directory and HEAD's branch
 * (ss_git_branches(), ss_git_resolve(), ss_git_locate() in source/git.h).
 */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include <git2.h>

#include "source/git.h"
#include "source/git_impl.h"
#include "util/error.h"
#include "util/grow.h"

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

const char *ss_git_branch_local(const char *name)
{
	const char *slash = strchr(name, '/');

	return slash ? slash + 1 : name;
}

int ss_git_branches(char ***out, size_t *n, const char *repo, const char *glob)
{
	git_repository *r = NULL;
	git_branch_iterator *it = NULL;
	git_reference *ref;
	git_branch_t type;
	char **names = NULL;
	size_t count = 0, cap = 0;
	const char *name;
	int err;

	*out = NULL;
	*n = 0;
	if (git_libgit2_init() < 0)
		return ss_error_set("cannot initialise libgit2: %s", ss_git_error());
	if ((err = ss_git_repo_open(&r, repo)) < 0)
		goto free_repo;
	if (git_branch_iterator_new(&it, r, GIT_BRANCH_ALL) < 0) {
		err = ss_error_set("cannot list branches of '%s': %s", repo, ss_git_error());
		goto free_repo;
	}
	while (!(err = git_branch_next(&ref, &type, it))) {
		/* origin/HEAD is an alias, not a branch */
		if (git_reference_type(ref) != GIT_REFERENCE_DIRECT ||
		    git_branch_name(&name, ref) < 0 ||
		    (glob && fnmatch(glob, name, 0) != 0)) {
			git_reference_free(ref);
			continue;
		}
		if (SS_GROW(names, count + 1, cap)) {
			git_reference_free(ref);
			err = ss_error_code(SS_ENOMEM, "out of memory listing branches of '%s'", repo);
			goto free_repo;
		}
		names[count] = strdup(name);
		git_reference_free(ref);
		if (!names[count]) {
			err = ss_error_code(SS_ENOMEM, "out of memory listing branches of '%s'", repo);
			goto free_repo;
		}
		count++;
	}
	if (err != GIT_ITEROVER) {
		err = ss_error_set("cannot list branches of '%s': %s", repo, ss_git_error());
		goto free_repo;
	}
	err = 0;
	if (count)
		qsort(names, count, sizeof(*names), cmp_names);
	*out = names;
	*n = count;
	names = NULL;
	count = 0;
free_repo:
	ss_git_free_names(names, count);
	git_branch_iterator_free(it);
	git_repository_free(r);
	git_libgit2_shutdown();
	return err;
}

void ss_git_free_names(char **names, size_t n)
{
	size_t i;

	if (!names)
		return;
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

int ss_git_resolve(char out[41], const char *repo, const char *rev)
{
	git_repository *r = NULL;
	git_object *obj = NULL, *peeled = NULL;
	int err;

	out[0] = '\0';
	if (git_libgit2_init() < 0)
		return ss_error_set("cannot initialise libgit2: %s", ss_git_error());
	if ((err = ss_git_repo_open(&r, repo)) < 0)
		goto free_repo;
	if (git_revparse_single(&obj, r, rev) < 0 ||
	    git_object_peel(&peeled, obj, GIT_OBJECT_COMMIT) < 0) {
		err = ss_error_code(SS_ENOTFOUND, "no commit '%s' in '%s'", rev, repo);
		goto free_repo;
	}
	git_oid_tostr(out, 41, git_object_id(peeled));
	err = 0;
free_repo:
	git_object_free(peeled);
	git_object_free(obj);
	git_repository_free(r);
	git_libgit2_shutdown();
	return err;
}

int ss_git_contains(int *yes, const char *repo, const char *top, const char *id)
{
	git_repository *r = NULL;
	git_oid t, i;
	int err;

	*yes = 0;
	if (git_oid_fromstr(&t, top) < 0 || git_oid_fromstr(&i, id) < 0)
		return ss_error_set("'%s' or '%s' is not a full commit id", top, id);
	if (git_libgit2_init() < 0)
		return ss_error_set("cannot initialise libgit2: %s", ss_git_error());
	if ((err = ss_git_repo_open(&r, repo)) < 0)
		goto free_repo;
	if (git_oid_equal(&t, &i)) {
		*yes = 1;
	} else {
		err = git_graph_descendant_of(r, &t, &i);
		if (err < 0) {
			err = ss_error_set("cannot tell whether %s is in the history of %s in '%s': %s",
					   id, top, repo, ss_git_error());
			goto free_repo;
		}
		*yes = err;
	}
	err = 0;
free_repo:
	git_repository_free(r);
	git_libgit2_shutdown();
	return err;
}

int ss_git_locate(char **gitdir, char **head, const char *repo)
{
	git_repository *r = NULL;
	git_reference *ref = NULL;
	const char *name = "HEAD";
	char *d = NULL, *h = NULL;
	int err;

	if (git_libgit2_init() < 0)
		return ss_error_set("cannot initialise libgit2: %s", ss_git_error());
	if ((err = ss_git_repo_open(&r, repo)) < 0)
		goto free_repo;
	if (!git_repository_head_detached(r) && git_repository_head(&ref, r) == 0 &&
	    git_reference_is_branch(ref))
		name = git_reference_shorthand(ref);
	/* a worktree's data is its repository's: the common directory, not
	 * .git/worktrees/NAME/ */
	if ((gitdir && !(d = strdup(git_repository_commondir(r)))) || (head && !(h = strdup(name)))) {
		free(d);
		err = ss_error_code(SS_ENOMEM, "out of memory opening '%s'", repo);
		goto free_repo;
	}
	if (gitdir)
		*gitdir = d;
	if (head)
		*head = h;
	err = 0;
free_repo:
	git_reference_free(ref);
	git_repository_free(r);
	git_libgit2_shutdown();
	return err;
}
