/*
 * git_walk.c - which commits the git source reads: revisions the way git
 * log takes them ("A..B", "A...B", "^C", "D"; none means HEAD; a shallow
 * clone's boundary from git_shallow.c), and the walk.
 *
 * Commits come oldest first in the order of `git log --reverse
 * --date-order`: libgit2's topological sort with GIT_SORT_TIME keeps a
 * time-ordered queue of ready commits, which is git's --date-order; its
 * --topo-order (a LIFO) has no libgit2 equivalent with the same
 * tie-breaking.  The walk itself is git_graph.c's, libgit2's revwalk in
 * a sixth of the memory; revisions are parsed by libgit2.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <git2.h>
#include <git2/sys/odb_backend.h>

#include "source/git.h"
#include "source/git_graph.h"
#include "source/git_impl.h"
#include "util/error.h"
#include "util/grow.h"
#include "util/u64map.h"

/* ------------------------------------------------------------------ */
/* Revisions. */

/* A revision that names an absent parent of a shallow clone's grafted
 * commit: beyond its history, as git says ("unknown revision"). */
static int beyond_shallow(const ss_git_shallow *sh, const git_oid *oid)
{
	if (!ss_git_shallow_grafted_in(sh->cut, sh->ncut, oid))
		return 0;
	git_error_set_str(GIT_ERROR_REFERENCE, "it lies beyond the history of this shallow clone "
			  "(run 'git fetch --unshallow' there)");
	return GIT_ENOTFOUND;
}

static int peel_commit(git_oid *out, git_repository *repo, const ss_git_shallow *sh,
		       const char *spec)
{
	git_object *obj = NULL, *peeled = NULL;
	int err = git_revparse_single(&obj, repo, spec);

	if (!err)
		err = git_object_peel(&peeled, obj, GIT_OBJECT_COMMIT);
	if (!err)
		git_oid_cpy(out, git_object_id(peeled));
	git_object_free(peeled);
	git_object_free(obj);
	return err ? err : beyond_shallow(sh, out);
}

/* "A..B", and "A...B": both sides minus their merge bases, as git does. */
static int add_range(ss_git_graph *walk, git_repository *repo, const ss_git_shallow *sh,
		     const char *rev)
{
	git_revspec spec = { NULL, NULL, 0 };
	git_oidarray bases = { NULL, 0 };
	git_object *from = NULL, *to = NULL;
	git_oid a, b;
	size_t i;
	int err;

	/* on failure git_revparse may leave spec.from set */
	if ((err = git_revparse(&spec, repo, rev)) < 0 ||
	    (err = git_object_peel(&from, spec.from, GIT_OBJECT_COMMIT)) < 0 ||
	    (err = git_object_peel(&to, spec.to, GIT_OBJECT_COMMIT)) < 0)
		goto free_objects;
	git_oid_cpy(&a, git_object_id(from));
	git_oid_cpy(&b, git_object_id(to));
	if ((err = beyond_shallow(sh, &a)) < 0 || (err = beyond_shallow(sh, &b)) < 0)
		goto free_objects;
	if (!(spec.flags & GIT_REVSPEC_MERGE_BASE)) {
		if (!(err = ss_git_graph_hide(walk, &a)))
			err = ss_git_graph_push(walk, &b);
		goto free_objects;
	}
	if ((err = ss_git_graph_push(walk, &a)) < 0 ||
	    (err = ss_git_graph_push(walk, &b)) < 0)
		goto free_objects;
	err = git_merge_bases(&bases, repo, &a, &b);
	if (err == GIT_ENOTFOUND) {
		err = 0;  /* unrelated histories: nothing to subtract */
		goto free_objects;
	}
	for (i = 0; !err && i < bases.count; i++)
		err = ss_git_graph_hide(walk, &bases.ids[i]);
free_objects:
	git_oidarray_dispose(&bases);
	git_object_free(from);
	git_object_free(to);
	git_object_free(spec.from);
	git_object_free(spec.to);
	return err;
}

static int add_rev(ss_git_graph *walk, git_repository *repo, const ss_git_shallow *sh,
		   const char *rev)
{
	git_oid oid;
	int err;

	if (rev[0] == '^' && rev[1]) {
		err = peel_commit(&oid, repo, sh, rev + 1);
		return err < 0 ? err : ss_git_graph_hide(walk, &oid);
	}
	if (strstr(rev, ".."))
		return add_range(walk, repo, sh, rev);
	err = peel_commit(&oid, repo, sh, rev);
	return err < 0 ? err : ss_git_graph_push(walk, &oid);
}

/* Which merge brought each of the n ids in (ss_git_graph_groups() over
 * that walk) into merges[]; g is scratch of n slots. */
static int merges_of(struct ss_git_merge_of *merges, ss_git_graph *walk, const git_oid *ids,
		     size_t n, size_t *g, size_t *count)
{
	size_t i;
	int err;

	if ((err = ss_git_graph_groups(walk, ids, n, g)) < 0)
		return err;
	memset(count, 0, n * sizeof(*count));
	for (i = 0; i < n; i++)
		if (g[i] != SIZE_MAX)
			count[g[i]]++;
	for (i = 0; i < n; i++) {
		memset(&merges[i], 0, sizeof(merges[i]));
		if (g[i] != SIZE_MAX) {
			git_oid_cpy(&merges[i].merge, &ids[g[i]]);
			merges[i].commits = count[g[i]];
		}
	}
	return 0;
}

/*
 * How many commits merge m brought: those its second parent reaches and
 * its first does not (its own range, whatever range the caller walked).
 * *out 0 when m is no merge.
 */
static int merge_size(size_t *out, git_repository *repo, const char *path, const git_oid *m)
{
	ss_git_graph *walk = NULL;
	git_commit *c = NULL;
	git_oid *ids = NULL;
	size_t n = 0;
	int err;

	*out = 0;
	if (git_commit_lookup(&c, repo, m) < 0) {
		git_error_clear();
		return 0;
	}
	if (git_commit_parentcount(c) < 2) {
		git_commit_free(c);
		return 0;
	}
	if ((err = ss_git_graph_new(&walk, repo, path)) >= 0 &&
	    (err = ss_git_graph_hide(walk, git_commit_parent_id(c, 0))) >= 0 &&
	    (err = ss_git_graph_push(walk, git_commit_parent_id(c, 1))) >= 0 &&
	    (err = ss_git_graph_walk(walk, SS_GIT_GRAPH_DATE_REVERSE, &ids, &n)) >= 0)
		*out = n;
	free(ids);
	ss_git_graph_free(walk);
	git_commit_free(c);
	return err < 0 ? err : 0;
}

/*
 * The merges of the n walked ids along groups_tip's first-parent line: a
 * second walk, from groups_tip down to what revs hide, whose merges are
 * mapped back to the ids (a commit it does not reach gets none).  A
 * merge's size is its own range's (merge_size()): the hidden revisions
 * of a commit read alone ("C ^C^") would hide the merge's other commits,
 * and a ranged walk of the whole merge counts them all.
 */
static int merges_along(struct ss_git_merge_of *merges, const git_oid *ids, size_t n,
			git_repository *repo, const char *path, ss_git_shallow *sh,
			const char **revs, size_t nrevs, const char *groups_tip)
{
	ss_git_graph *walk = NULL;
	ss_u64map at = SS_U64MAP_INIT;
	struct ss_git_merge_of *m2 = NULL;
	git_oid *ids2 = NULL, tip;
	size_t n2 = 0, *g2 = NULL, *count = NULL, i, k;
	int err = 0;

	memset(merges, 0, n * sizeof(*merges));
	if ((err = ss_git_graph_new(&walk, repo, path)) < 0)
		return err;
	for (i = 0; i < nrevs && err >= 0; i++) {
		const char *dots = strstr(revs[i], "..");

		if (revs[i][0] == '^') {
			err = add_rev(walk, repo, sh, revs[i]);
		} else if (dots && dots[2] != '.' && dots > revs[i]) {
			char hide[320];

			snprintf(hide, sizeof(hide), "^%.*s", (int)(dots - revs[i]), revs[i]);
			err = add_rev(walk, repo, sh, hide);
		}
	}
	if (err >= 0 && (err = peel_commit(&tip, repo, sh, groups_tip)) >= 0)
		err = ss_git_graph_push(walk, &tip);
	if (err < 0) {
		err = ss_error_code(SS_EINVALID, "bad revision '%s' in '%s': %s", groups_tip, path,
				    ss_git_error());
		goto free_all;
	}
	if ((err = ss_git_graph_walk(walk, SS_GIT_GRAPH_DATE_REVERSE, &ids2, &n2)) < 0 || !n2)
		goto free_all;
	m2 = malloc(n2 * sizeof(*m2));
	g2 = malloc(n2 * sizeof(*g2));
	count = malloc(n2 * sizeof(*count));
	if (!m2 || !g2 || !count) {
		err = ss_error_code(SS_ENOMEM, "out of memory walking '%s'", path);
		goto free_all;
	}
	if ((err = merges_of(m2, walk, ids2, n2, g2, count)) < 0)
		goto free_all;
	for (i = 0; i < n2; i++) {
		uint64_t key;

		memcpy(&key, ids2[i].id, sizeof(key));
		if ((err = ss_u64map_find_or_put(&at, key ? key : 1, i, &k)) < 0)
			goto free_all;
	}
	for (i = 0; i < n; i++) {
		uint64_t key;

		memcpy(&key, ids[i].id, sizeof(key));
		if (ss_u64map_get(&at, key ? key : 1, &k) && git_oid_equal(&ids2[k], &ids[i])) {
			merges[i] = m2[k];
			if (merges[i].commits &&
			    (err = merge_size(&merges[i].commits, repo, path, &merges[i].merge)) < 0)
				goto free_all;
		}
	}
	err = 0;
free_all:
	ss_u64map_release(&at);
	free(ids2);
	free(m2);
	free(g2);
	free(count);
	ss_git_graph_free(walk);
	return err;
}

int ss_git_walk(git_oid **out, size_t *n, struct ss_git_merge_of **merges,
		git_repository *repo, const char *path, ss_git_shallow *sh, const char **revs,
		size_t nrevs, const char *groups_tip)
{
	static const char *head[] = { "HEAD" };
	ss_git_graph *walk = NULL;
	size_t i;
	int err;

	*out = NULL;
	*n = 0;
	if (merges)
		*merges = NULL;
	if (!nrevs) {
		revs = head;
		nrevs = 1;
	}
	if ((err = ss_git_graph_new(&walk, repo, path)) < 0)
		return err;
	for (i = 0; i < nrevs; i++) {
		if (!revs[i] || !revs[i][0] || add_rev(walk, repo, sh, revs[i]) < 0) {
			err = ss_error_code(SS_EINVALID, "bad revision '%s' in '%s': %s",
					    revs[i] ? revs[i] : "(null)", path,
					    revs[i] && revs[i][0] ? ss_git_error() : "empty revision");
			goto free_walk;
		}
	}
	err = ss_git_graph_walk(walk, SS_GIT_GRAPH_DATE_REVERSE, out, n);
	if (!err && merges && *n) {
		size_t *g = malloc(*n * sizeof(*g)), *count = malloc(*n * sizeof(*count));

		if (!(*merges = malloc(*n * sizeof(**merges))) || !g || !count)
			err = ss_error_code(SS_ENOMEM, "out of memory walking '%s'", path);
		else if (groups_tip)
			err = merges_along(*merges, *out, *n, repo, path, sh, revs, nrevs, groups_tip);
		else
			err = merges_of(*merges, walk, *out, *n, g, count);
		free(g);
		free(count);
		if (err < 0) {
			free(*merges);
			*merges = NULL;
			free(*out);
			*out = NULL;
			*n = 0;
		}
	}
free_walk:
	ss_git_graph_free(walk);
	return err;
}

/* The object store's cache for ss_git_check_walks(): commits only */
#define CHECK_STORE_CACHE ((size_t)8 << 20)

int ss_git_check_walks(const char *repo, const ss_git_check *walks, size_t n)
{
	const char *path = strncmp(repo, "git:", 4) ? repo : repo + 4;
	git_repository *r = NULL;
	ss_git_store *store = NULL;
	ss_git_graph *g = NULL;
	git_oid *ids = NULL, oid;
	size_t i, k, nids;
	int err;

	if (!n)
		return 0;
	if (git_libgit2_init() < 0)
		return ss_error_set("cannot initialise libgit2: %s", ss_git_error());
	/* as ss_git_open(): no re-hashing (process-wide), no object cache */
	git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 0);
	ss_git_object_cache_hold(1);
	if ((err = ss_git_repo_open_store(&r, &store, path, CHECK_STORE_CACHE)) < 0)
		goto out;
	if ((err = ss_git_graph_new(&g, r, path)) < 0)
		goto out;
	for (i = 0; i < n && !err; i++) {
		if (git_oid_fromstr(&oid, walks[i].tip) < 0) {
			err = ss_error_code(SS_EINVALID, "bad commit id '%s' in '%s'", walks[i].tip, path);
			break;
		}
		if ((err = ss_git_graph_push(g, &oid)) < 0)
			break;
		for (k = 0; k < walks[i].nhide && k < 2 && !err; k++) {
			if (git_oid_fromstr(&oid, walks[i].hide[k]) < 0)
				err = ss_error_code(SS_EINVALID, "bad commit id '%s' in '%s'",
						    walks[i].hide[k], path);
			else
				err = ss_git_graph_hide(g, &oid);
		}
		if (!err && !(err = ss_git_graph_walk(g, SS_GIT_GRAPH_UNSORTED, &ids, &nids))) {
			free(ids);
			ids = NULL;
		}
	}
out:
	ss_git_graph_free(g);
	git_repository_free(r);
	ss_git_store_free(store);
	ss_git_object_cache_hold(0);
	git_libgit2_shutdown();
	return err < 0 ? err : 0;
}
