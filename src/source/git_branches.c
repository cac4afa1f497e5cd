/*
 * git_branches.c - the local and remote-tracking branches of a repository,
 * the local name of a remote-tracking one (ss_git_branch_local()), a
 * revision resolved to its commit, the git directory and HEAD's branch
 * (ss_git_branches(), ss_git_resolve(), ss_git_locate() in source/git.h).
 * Each works on an open handle (ss_repo_branches() ...); the path
 * functions open the path as given, call it and close it again.
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

int ss_repo_branches(char ***out, size_t *n, ss_repo *repo, const char *glob)
{
	git_repository *r = ss_repo_git(repo);
	const char *path = ss_repo_path(repo);
	git_branch_iterator *it = NULL;
	git_reference *ref;
	git_branch_t type;
	char **names = NULL;
	size_t count = 0, cap = 0;
	const char *name;
	int err;

	*out = NULL;
	*n = 0;
	if (git_branch_iterator_new(&it, r, GIT_BRANCH_ALL) < 0) {
		err = ss_error_set("cannot list branches of '%s': %s", path, ss_git_error());
		goto free_names;
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
			err = ss_error_code(SS_ENOMEM, "out of memory listing branches of '%s'", path);
			goto free_names;
		}
		names[count] = strdup(name);
		git_reference_free(ref);
		if (!names[count]) {
			err = ss_error_code(SS_ENOMEM, "out of memory listing branches of '%s'", path);
			goto free_names;
		}
		count++;
	}
	if (err != GIT_ITEROVER) {
		err = ss_error_set("cannot list branches of '%s': %s", path, ss_git_error());
		goto free_names;
	}
	err = 0;
	if (count)
		qsort(names, count, sizeof(*names), cmp_names);
	*out = names;
	*n = count;
	names = NULL;
	count = 0;
free_names:
	ss_git_free_names(names, count);
	git_branch_iterator_free(it);
	return err;
}

/*
 * The path functions below open repo as given (a "git:" prefix is not
 * dropped, as before the handle existed: such a path names no repository
 * here, and the error says so with the path as given), call the handle's
 * function and close it again.
 */
int ss_git_branches(char ***out, size_t *n, const char *repo, const char *glob)
{
	ss_repo *r;
	int rc;

	*out = NULL;
	*n = 0;
	if ((rc = ss_repo_open_as_given(&r, repo)))
		return rc;
	rc = ss_repo_branches(out, n, r, glob);
	ss_repo_free(r);
	return rc;
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

int ss_repo_resolve(char out[41], ss_repo *repo, const char *rev)
{
	git_object *obj = NULL, *peeled = NULL;
	int err = 0;

	out[0] = '\0';
	if (git_revparse_single(&obj, ss_repo_git(repo), rev) < 0 ||
	    git_object_peel(&peeled, obj, GIT_OBJECT_COMMIT) < 0)
		err = ss_error_code(SS_ENOTFOUND, "no commit '%s' in '%s'", rev, ss_repo_path(repo));
	else
		git_oid_tostr(out, 41, git_object_id(peeled));
	git_object_free(peeled);
	git_object_free(obj);
	return err;
}

int ss_git_resolve(char out[41], const char *repo, const char *rev)
{
	ss_repo *r;
	int rc;

	out[0] = '\0';
	if ((rc = ss_repo_open_as_given(&r, repo)))
		return rc;
	rc = ss_repo_resolve(out, r, rev);
	ss_repo_free(r);
	return rc;
}

int ss_git_resolve_as_of(char out[41], const char *repo, const char *rev, int64_t t)
{
	git_commit *c = NULL, *parent;
	git_oid oid;
	ss_repo *r;
	int rc;

	out[0] = '\0';
	if ((rc = ss_repo_open_as_given(&r, repo)))
		return rc;
	if ((rc = ss_repo_resolve(out, r, rev)))
		goto done;
	if (git_oid_fromstr(&oid, out) < 0 || git_commit_lookup(&c, ss_repo_git(r), &oid) < 0) {
		rc = ss_error_set("cannot read commit %s of '%s' in '%s'", out, rev, repo);
		goto done;
	}
	/* a branch's line is its first parents: the tip it had at t is
	 * the newest of them committed by then */
	while (git_commit_time(c) > t) {
		if (git_commit_parentcount(c) == 0 || git_commit_parent(&parent, c, 0) < 0) {
			rc = ss_error_code(SS_ENOTFOUND, "'%s' in '%s' has no commit from before %lld",
					   rev, repo, (long long)t);
			goto done;
		}
		git_commit_free(c);
		c = parent;
	}
	git_oid_tostr(out, 41, git_commit_id(c));
done:
	if (rc)
		out[0] = '\0';
	git_commit_free(c);
	ss_repo_free(r);
	return rc;
}

/* top and id as oids, or the error of ss_git_contains(). */
static int full_ids(git_oid *t, git_oid *i, const char *top, const char *id)
{
	if (git_oid_fromstr(t, top) < 0 || git_oid_fromstr(i, id) < 0)
		return ss_error_set("'%s' or '%s' is not a full commit id", top, id);
	return 0;
}

int ss_repo_contains(int *yes, ss_repo *repo, const char *top, const char *id)
{
	git_oid t, i;
	int err;

	*yes = 0;
	if ((err = full_ids(&t, &i, top, id)))
		return err;
	if (git_oid_equal(&t, &i)) {
		*yes = 1;
		return 0;
	}
	err = git_graph_descendant_of(ss_repo_git(repo), &t, &i);
	if (err < 0)
		return ss_error_set("cannot tell whether %s is in the history of %s in '%s': %s",
				    id, top, ss_repo_path(repo), ss_git_error());
	*yes = err;
	return 0;
}

int ss_git_contains(int *yes, const char *repo, const char *top, const char *id)
{
	ss_repo *r;
	git_oid t, i;
	int rc;

	*yes = 0;
	/* bad ids are told before the repository is opened */
	if ((rc = full_ids(&t, &i, top, id)) || (rc = ss_repo_open_as_given(&r, repo)))
		return rc;
	rc = ss_repo_contains(yes, r, top, id);
	ss_repo_free(r);
	return rc;
}

int ss_repo_locate(char **gitdir, char **head, ss_repo *repo)
{
	git_repository *r = ss_repo_git(repo);
	git_reference *ref = NULL;
	const char *name = "HEAD";
	char *d = NULL, *h = NULL;
	int err = 0;

	if (!git_repository_head_detached(r) && git_repository_head(&ref, r) == 0 &&
	    git_reference_is_branch(ref))
		name = git_reference_shorthand(ref);
	/* a worktree's data is its repository's: the common directory, not
	 * .git/worktrees/NAME/ */
	if ((gitdir && !(d = strdup(git_repository_commondir(r)))) || (head && !(h = strdup(name)))) {
		free(d);
		err = ss_error_code(SS_ENOMEM, "out of memory opening '%s'", ss_repo_path(repo));
		goto free_ref;
	}
	if (gitdir)
		*gitdir = d;
	if (head)
		*head = h;
free_ref:
	git_reference_free(ref);
	return err;
}

int ss_git_locate(char **gitdir, char **head, const char *repo)
{
	ss_repo *r;
	int rc;

	if ((rc = ss_repo_open_as_given(&r, repo)))
		return rc;
	rc = ss_repo_locate(gitdir, head, r);
	ss_repo_free(r);
	return rc;
}
