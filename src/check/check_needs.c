/*
 * check_needs.c - what a commit whose hunk conflicts needs first on a
 * stable branch (see check.h): the hunk's preimage blamed at the commit's
 * parent down to the branch's fork, the owners the branch lacks kept;
 * blames shared between branches in a blame cache.  A batch announced
 * with ss_check_plan_needs() is blamed from one walk of its history
 * (check_lines.c); a commit outside it with git_blame_file().
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <git2.h>

#include "check/check_impl.h"
#include "labels/carried.h"
#include "util/error.h"
#include "util/grow.h"
#include "util/strbuf.h"

int ss_check_blame_cache_new(ss_check_blame_cache **out)
{
	ss_check_blame_cache *bc = calloc(1, sizeof(*bc));

	*out = NULL;
	if (!bc || ss_strmap_new(&bc->keys)) {
		free(bc);
		return ss_error_code(SS_ENOMEM, "out of memory for a blame cache");
	}
	*out = bc;
	return 0;
}

void ss_check_blame_cache_free(ss_check_blame_cache *bc)
{
	if (!bc)
		return;
	for (size_t i = 0; i < ss_strmap_count(bc->keys); i++)
		free(bc->e[i].own);
	ss_strmap_free(bc->keys);
	free(bc->e);
	free(bc->tips);
	ss_repo_free(bc->repo);
	free(bc);
}

void ss_check_blame_cache_stats(const ss_check_blame_cache *bc, size_t *blamed, size_t *reused)
{
	*blamed = bc ? bc->blamed : 0;
	*reused = bc ? bc->reused : 0;
}

/* Add id to out->needs unless it is there, in the branch, carried by it
 * under another id, or the list is full. */
static void need(ss_check_result *out, ss_check *ck, const git_oid *id)
{
	char hex[41];

	git_oid_tostr(hex, sizeof(hex), id);
	for (int k = 0; k < out->nneeds; k++)
		if (!strcmp(out->needs[k], hex))
			return;
	if (ck->carried && ss_carried_find(NULL, ck->carried, hex, 0) != SS_CARRIED_NONE)
		return;
	if (out->nneeds < SS_CHECK_MAX_NEEDS && ss_check_in_branch_id(ck, hex, NULL) == 0)
		memcpy(out->needs[out->nneeds++], hex, sizeof(hex));
}

/* Newest first; owners of the same time in line order (the blame's hunk
 * order), so that every blame of the hunk lists them alike. */
static int cmp_time_desc(const void *a, const void *b)
{
	const int64_t *x = a, *y = b;

	if (x[0] != y[0])
		return x[0] < y[0] ? 1 : -1;
	return x[1] < y[1] ? -1 : x[1] > y[1];
}

/*
 * Blame lines start .. start + lines - 1 of path at the parent of commit,
 * down to boundary (NULL: to the root), and hand back the owners, newest
 * first (*own malloc'd, *nown of them; none when the file is not there).
 * Which branch asks does not matter: an owner older than the boundary is
 * the boundary itself, and lines whose owner is not in a branch never
 * pass through a commit of that branch, so they have the same owner
 * whichever of the branch's commits the blame stops at.
 */
static int blame_owners(git_oid **own, size_t *nown, ss_check *ck, git_commit *commit,
			const git_oid *boundary, const char *path, int start, int lines)
{
	git_blame_options opts;
	git_blame *blame = NULL;
	int64_t (*owners)[2] = NULL;   /* time, index into blame hunks */
	const git_oid *parent = git_commit_parent_id(commit, 0);
	size_t nh, n = 0;
	int rc = 0;

	*own = NULL;
	*nown = 0;
	/* an announced batch: its history walked once (check_lines.c) */
	if (boundary && ck->nplan && parent) {
		if (ck->lines && !git_oid_equal(ss_check_lines_bottom(ck->lines), boundary)) {
			/* another fork than the one walked: walked again */
			ss_check_lines_free(ck->lines);
			ck->lines = NULL;
		}
		if (!ck->lines && !ck->lines_failed &&
		    (rc = ss_check_lines_new(&ck->lines, ck->repo, boundary, ck->plan_tops, ck->nplan,
					     (const char *const *)ck->plan_paths, ck->nplan, ck->index))) {
			if (rc == SS_ENOMEM)
				return rc;
			/* a history that cannot be walked (a partial clone):
			 * each hunk blamed alone, as before */
			ss_error_clear();
			ck->lines_failed = 1;
			rc = 0;
		}
		if (ck->lines && ss_check_lines_covers(ck->lines, boundary, parent, path))
			return ss_check_lines_owners(ck->lines, own, nown, parent, path, start, lines);
	}
	git_blame_options_init(&opts, GIT_BLAME_OPTIONS_VERSION);
	git_oid_cpy(&opts.newest_commit, parent);
	if (boundary)
		git_oid_cpy(&opts.oldest_commit, boundary);
	opts.min_line = (size_t)start;
	opts.max_line = (size_t)(start + lines - 1);
	if (git_blame_file(&blame, ck->repo, path, &opts) < 0)
		return 0;  /* not there under that name: nothing to say */
	nh = git_blame_get_hunk_count(blame);
	owners = calloc(nh ? nh : 1, sizeof(*owners));
	*own = malloc((nh ? nh : 1) * sizeof(**own));
	if (!owners || !*own) {
		free(*own);
		*own = NULL;
		rc = ss_error_code(SS_ENOMEM, "out of memory for a blame");
		goto free_blame;
	}
	for (size_t i = 0; i < nh; i++) {
		const git_blame_hunk *bh = git_blame_get_hunk_byindex(blame, (uint32_t)i);

		if (!bh || git_oid_is_zero(&bh->final_commit_id))
			continue;
		owners[n][0] = bh->final_signature ? bh->final_signature->when.time : 0;
		owners[n][1] = (int64_t)i;
		n++;
	}
	qsort(owners, n, sizeof(*owners), cmp_time_desc);
	for (size_t i = 0; i < n; i++)
		git_oid_cpy(&(*own)[i],
			    &git_blame_get_hunk_byindex(blame, (uint32_t)owners[i][1])->final_commit_id);
	*nown = n;
free_blame:
	free(owners);
	git_blame_free(blame);
	return rc;
}

/*
 * Where a blame shared by every registered branch stops: a common
 * ancestor of the commit and each branch that has one with it (the
 * oldest of their forks, on a mainline with branches forked from it).
 * 1 with *out set, 0 when there is none.
 */
static int shared_boundary(git_oid *out, ss_check *ck, const git_commit *c)
{
	ss_check_blame_cache *bc = ck->bc;
	const git_oid *commit = git_commit_id(c);
	git_oid base;
	int found = 0;

	/* any common ancestor of the tips stops a blame rightly (what is
	 * older is in each branch), and the one found last is one for every
	 * commit of the history walked down to it: no merge base walk of
	 * each pick's history (on the kernel, 100,000 commits or more) */
	if (bc->last_ntips == bc->ntips && bc->ntips && ck->lines && git_commit_parentcount(c) &&
	    git_oid_equal(ss_check_lines_bottom(ck->lines), &bc->last_base) &&
	    ss_check_lines_covers(ck->lines, NULL, git_commit_parent_id(c, 0), NULL)) {
		git_oid_cpy(out, &bc->last_base);
		return 1;
	}
	git_oid_cpy(out, commit);
	for (size_t i = 0; i < bc->ntips; i++)
		if (git_merge_base(&base, ck->repo, out, &bc->tips[i]) == 0) {
			git_oid_cpy(out, &base);
			found = 1;
		}
	if (found) {
		git_oid_cpy(&bc->last_base, out);
		bc->last_ntips = bc->ntips;
	}
	return found;
}

/* The owners of a hunk from ck's blame cache, blamed there when no branch
 * had, or when the blame cached stopped at a commit ck's branch lacks. */
static int cached_owners(const git_oid **own, size_t *nown, ss_check *ck, git_commit *commit,
			 const char *path, int start, int lines)
{
	ss_check_blame_cache *bc = ck->bc;
	struct blame_entry *e = NULL;
	ss_strbuf key = SS_STRBUF_INIT;
	char hex[41];
	git_oid boundary;
	int bounded, rc = 0;
	uint32_t at;

	git_oid_tostr(hex, sizeof(hex), git_commit_id(commit));
	if (ss_strbuf_addf(&key, "%s %d %d %s", hex, start, lines, path)) {
		ss_strbuf_release(&key);
		return ss_error_code(SS_ENOMEM, "out of memory for a blame cache");
	}
	at = ss_strmap_find(bc->keys, key.buf, key.len);
	if (at != SS_STRMAP_NONE) {
		e = &bc->e[at];
		git_oid_tostr(hex, sizeof(hex), &e->boundary);
		if (!e->bounded || ss_check_in_branch_id(ck, hex, NULL) == 1) {
			bc->reused++;
			goto found;
		}
		/* stopped at a commit this branch lacks: its own blame */
		bounded = git_merge_base(&boundary, ck->repo, git_commit_id(ck->branch),
					 git_commit_id(commit)) == 0;
	} else {
		bounded = shared_boundary(&boundary, ck, commit);
		git_oid_tostr(hex, sizeof(hex), &boundary);
		/* not one of this branch's commits (it was not registered, or
		 * has no fork with the commit): the branch's own fork */
		if (bounded && ss_check_in_branch_id(ck, hex, NULL) != 1)
			bounded = git_merge_base(&boundary, ck->repo, git_commit_id(ck->branch),
						 git_commit_id(commit)) == 0;
		if (SS_GROW(bc->e, ss_strmap_count(bc->keys) + 1, bc->cap) ||
		    ss_strmap_intern(bc->keys, key.buf, key.len, &at)) {
			rc = ss_error_code(SS_ENOMEM, "out of memory for a blame cache");
			goto free_key;
		}
		e = &bc->e[at];
		memset(e, 0, sizeof(*e));
	}
	free(e->own);
	e->own = NULL;
	e->nown = 0;
	e->bounded = bounded;
	if (bounded)
		git_oid_cpy(&e->boundary, &boundary);
	bc->blamed++;
	if ((rc = blame_owners(&e->own, &e->nown, ck, commit, bounded ? &boundary : NULL, path,
			       start, lines)))
		goto free_key;
found:
	*own = e->own;
	*nown = e->nown;
free_key:
	ss_strbuf_release(&key);
	return rc;
}

int ss_check_plan_needs(ss_check *ck, const char *const *ids, const char *const *paths, size_t n)
{
	size_t k = 0;

	ss_check_lines_free(ck->lines);
	ck->lines = NULL;
	ck->lines_failed = 0;
	for (size_t i = 0; i < ck->nplan; i++)
		free(ck->plan_paths[i]);
	free(ck->plan_paths);
	free(ck->plan_tops);
	ck->plan_paths = NULL;
	ck->plan_tops = NULL;
	ck->nplan = 0;
	if (!n)
		return 0;
	ck->plan_tops = calloc(n, sizeof(*ck->plan_tops));
	ck->plan_paths = calloc(n, sizeof(*ck->plan_paths));
	if (!ck->plan_tops || !ck->plan_paths)
		goto nomem;
	for (size_t i = 0; i < n; i++) {
		git_oid oid;
		git_commit *c = NULL;

		if (!paths[i] || strlen(ids[i]) != 40 || git_oid_fromstr(&oid, ids[i]) < 0 ||
		    git_commit_lookup(&c, ck->repo, &oid) < 0)
			continue;
		if (git_commit_parentcount(c) >= 1) {
			if (!(ck->plan_paths[k] = strdup(paths[i]))) {
				git_commit_free(c);
				ck->nplan = k;
				goto nomem;
			}
			git_oid_cpy(&ck->plan_tops[k++], git_commit_parent_id(c, 0));
		}
		git_commit_free(c);
	}
	ck->nplan = k;
	return 0;
nomem:
	ss_check_plan_needs(ck, NULL, NULL, 0);
	return ss_error_code(SS_ENOMEM, "out of memory for the picks' history");
}

/*
 * What the conflicting hunk needs first: blame, at the commit's parent,
 * every line of the hunk's preimage (context and removed: the branch must
 * match them all), and keep the owners the branch lacks, newest first.
 * The blame stops at the fork of the branch (the merge base of the
 * branch and the commit): a line older than that is in the branch, and
 * walking past it was most of the 13 minutes 100 DPDK picks took.  With
 * a blame cache the hunk is blamed once for every branch (cached_owners).
 */
int ss_check_needs(ss_check_result *out, ss_check *ck, const char *id)
{
	git_oid oid, base;
	git_commit *commit = NULL;
	git_oid *mine = NULL;
	const git_oid *own = NULL;
	size_t nown = 0;
	int rc = 0;

	out->nneeds = 0;
	if (out->apply != SS_APPLY_CONFLICT || out->hunk_lines < 1 || out->hunk_start < 1 ||
	    strlen(id) != 40 || git_oid_fromstr(&oid, id) < 0 ||
	    git_commit_lookup(&commit, ck->repo, &oid) < 0 || git_commit_parentcount(commit) < 1)
		goto free_commit;
	if (ck->bc) {
		rc = cached_owners(&own, &nown, ck, commit, out->path, out->hunk_start,
				   out->hunk_lines);
	} else {
		/* as shared_boundary(): the fork walked down to, when it was */
		int bounded = ck->lines && ss_check_lines_covers(ck->lines, NULL,
								 git_commit_parent_id(commit, 0), NULL);

		if (bounded)
			git_oid_cpy(&base, ss_check_lines_bottom(ck->lines));
		else
			bounded = git_merge_base(&base, ck->repo, git_commit_id(ck->branch), &oid) == 0;

		rc = blame_owners(&mine, &nown, ck, commit, bounded ? &base : NULL, out->path,
				  out->hunk_start, out->hunk_lines);
		own = mine;
	}
	for (size_t i = 0; !rc && i < nown; i++)
		need(out, ck, &own[i]);
	free(mine);
free_commit:
	git_commit_free(commit);
	return rc;
}
