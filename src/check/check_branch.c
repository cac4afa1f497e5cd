/*
 * check_branch.c - commits checked against a stable branch (see check.h): the
 * branch --onto names resolved and opened, whether a commit and the bug
 * it fixes are in it, and one commit's check from the parts: its hunks
 * placed (check_apply.c) and what a conflict needs first
 * (check_needs.c), looked up in the repository with libgit2.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <git2.h>

#include "check/check_impl.h"
#include "history/histidx.h"
#include "source/source.h"
#include "labels/carried.h"
#include "commit/patchid.h"
#include "source/git.h"
#include "source/commit_graph.h"
#include "source/git_repo.h"
#include "util/error.h"
#include "util/hexid.h"
#include "util/grow.h"
#include "util/strbuf.h"
#include "util/suggest.h"

/* The repository of bc for a check of path: opened by the first check
 * (*repo NULL when path is another one: that check opens its own; else
 * a reference to bc's handle). */
static int blame_cache_repo(ss_repo **repo, ss_check_blame_cache *bc, const char *path,
			    ss_repo *given)
{
	int rc;

	*repo = NULL;
	if (!bc->repo && given)
		bc->repo = ss_repo_ref(given);
	else if (!bc->repo && (rc = ss_repo_open(&bc->repo, path)))
		return rc;
	if (!strcmp(ss_repo_path(bc->repo), path))
		*repo = ss_repo_ref(bc->repo);
	return 0;
}

/* Register ck's branch in bc (ck reads bc's repository). */
static int blame_cache_register(ss_check *ck, ss_check_blame_cache *bc)
{
	if (SS_GROW(bc->tips, bc->ntips + 1, bc->tipcap))
		return ss_error_code(SS_ENOMEM, "out of memory for a blame cache");
	git_oid_cpy(&bc->tips[bc->ntips++], git_commit_id(ck->branch));
	ck->bc = bc;
	return 0;
}

/* One thing --onto REV may name. */
struct onto_candidate {
	char ref[256];       /* "refs/heads/22.11", or "" for an id or expression */
	git_oid oid;         /* the commit it peels to */
};

/* Add what ref names (when it exists and peels to a commit) to c[*n]. */
static void onto_add(struct onto_candidate *c, size_t *n, size_t max, git_repository *repo,
		     const char *ref)
{
	git_reference *r = NULL;
	git_object *obj = NULL;

	if (*n >= max || git_reference_lookup(&r, repo, ref) < 0)
		return;
	if (git_reference_peel(&obj, r, GIT_OBJECT_COMMIT) == 0) {
		for (size_t i = 0; i < *n; i++)
			if (!strcmp(c[i].ref, ref))
				goto free_ref;
		snprintf(c[*n].ref, sizeof(c[*n].ref), "%s", ref);
		git_oid_cpy(&c[*n].oid, git_object_id(obj));
		(*n)++;
	}
free_ref:
	git_object_free(obj);
	git_reference_free(r);
}

/*
 * Whether REV naming the candidates c[0..n) (c[0] the one taken) is worth
 * a warning where git itself would warn or differ: git rev-parse tries
 * REV, refs/REV, refs/tags/REV, refs/heads/REV, refs/remotes/REV and
 * refs/remotes/REV/HEAD in that order (git's ref_rev_parse_rules) and
 * warns when more than one exists, or when a full 40-hex id is also a
 * ref.  A local branch "22.11" beside refs/remotes/github/22.11 is no
 * ambiguity for git (that is not refs/remotes/22.11), nor for us: warn
 * when git would, when git would take another commit than c[0], or, git
 * knowing no such name, when it would take the id or when c[0] is a
 * remote-tracking branch of a remote other than origin (then the
 * remotes' order decided).
 */
static int onto_git_would_warn(git_repository *repo, const char *rev,
			       const struct onto_candidate *c, size_t n)
{
	static const char *const rules[] = { "%s", "refs/%s", "refs/tags/%s", "refs/heads/%s",
					     "refs/remotes/%s", "refs/remotes/%s/HEAD" };
	struct onto_candidate g[6];
	size_t ng = 0;
	char full[300];

	for (size_t i = 0; i < sizeof(rules) / sizeof(*rules); i++) {
		/* rev alone is a ref only as "HEAD" or a full "refs/..." name */
		if (!i && strcmp(rev, "HEAD") && strncmp(rev, "refs/", 5))
			continue;
		snprintf(full, sizeof(full), rules[i], rev);
		onto_add(g, &ng, 6, repo, full);
	}
	if (ng > 1)
		return 1;
	if (ng == 1)
		return !git_oid_equal(&g[0].oid, &c[0].oid) ||
		       (strlen(rev) == GIT_OID_HEXSZ && ss_hexid_is_prefix(rev));
	for (size_t i = 1; i < n; i++)
		if (!c[i].ref[0])
			return 1;  /* git would take the id, no ref having that name */
	return strncmp(c[0].ref, "refs/remotes/origin/", 20) != 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * --onto REV names nothing in the repository at path: say so with the
 * branches it knows (local and remote-tracking, by short name, each once, at most
 * 30 named) and the closest of them when one is close.  SS_ENOTFOUND.
 */
static int onto_not_found(git_repository *repo, const char *rev, const char *path)
{
	git_reference_iterator *it = NULL;
	git_reference *r;
	ss_strbuf sb = SS_STRBUF_INIT;
	char **names = NULL;
	const char *best = NULL;
	size_t n = 0, cap = 0, i, dist = SIZE_MAX;
	int rc;

	if (git_reference_iterator_glob_new(&it, repo, "refs/*") == 0) {
		while (git_reference_next(&r, it) == 0) {
			const char *nm = git_reference_name(r), *shortname = NULL;

			if (!strncmp(nm, "refs/heads/", 11))
				shortname = nm + 11;
			else if (!strncmp(nm, "refs/remotes/", 13) && strchr(nm + 13, '/'))
				shortname = strchr(nm + 13, '/') + 1;
			if (shortname && strcmp(shortname, "HEAD") &&
			    !SS_GROW(names, n + 1, cap) && (names[n] = strdup(shortname)))
				n++;
			git_reference_free(r);
		}
		git_reference_iterator_free(it);
	}
	if (n)
		qsort(names, n, sizeof(*names), cmp_str);
	ss_strbuf_addf(&sb, "cannot resolve '%s' in '%s' to a commit: no branch, remote-tracking "
		       "branch, tag or id of that name", rev, path);
	for (i = 0, cap = 0; i < n; i++) {
		if (i && !strcmp(names[i], names[i - 1]))
			continue;
		ss_suggest_consider(&best, &dist, rev, names[i]);
		if (cap < 30)
			ss_strbuf_addf(&sb, "%s%s", !cap ? " (the branches: " : ", ", names[i]);
		else if (cap == 30)
			ss_strbuf_addf(&sb, ", ...");
		cap++;
	}
	ss_strbuf_addf(&sb, "%s", n ? ")" : " (the repository has no branch)");
	if (best)
		ss_strbuf_addf(&sb, "; did you mean '%s'?", best);
	rc = ss_error_code(SS_ENOTFOUND, "%s", sb.buf ? sb.buf : "out of memory");
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	ss_strbuf_release(&sb);
	return rc;
}

/*
 * Resolve --onto REV as a maintainer means it: a local branch first, then
 * a remote-tracking branch of that name (origin's before others': in a
 * fresh clone "22.11" is only "origin/22.11"), then a tag, then anything
 * git rev-parse takes (an id, "origin/22.11", "v22.11~3").  When several
 * of these name different commits, ck->ambiguity says which was taken.
 */
static int resolve_onto(ss_check *ck, const char *rev, git_object **out)
{
	struct onto_candidate c[16];
	git_reference_iterator *it = NULL;
	git_reference *r;
	git_object *obj = NULL;
	char full[300];
	size_t n = 0, taken;
	int rc = 0;

	*out = NULL;
	/* every name below is kept in ck->ref (and refs/remotes/origin/ + rev
	 * in full): a longer one is no branch of this repository */
	if (strlen(rev) >= sizeof(ck->ref) - 20)
		return ss_error_code(SS_EINVALID, "cannot resolve '%.40s...' to a commit: a name "
				     "of %zu bytes (at most %zu)", rev, strlen(rev), sizeof(ck->ref) - 21);
	if (strncmp(rev, "refs/", 5) && strcmp(rev, "HEAD")) {
		snprintf(full, sizeof(full), "refs/heads/%s", rev);
		onto_add(c, &n, 16, ck->repo, full);
		snprintf(full, sizeof(full), "refs/remotes/origin/%s", rev);
		onto_add(c, &n, 16, ck->repo, full);
		snprintf(full, sizeof(full), "refs/remotes/*/%s", rev);
		if (git_reference_iterator_glob_new(&it, ck->repo, full) == 0) {
			while (git_reference_next(&r, it) == 0) {
				const char *nm = git_reference_name(r);
				const char *slash = strchr(nm + 13, '/');

				/* refs/remotes/<remote>/<rev> exactly, no deeper path */
				if (slash && !strcmp(slash + 1, rev))
					onto_add(c, &n, 16, ck->repo, nm);
				git_reference_free(r);
			}
			git_reference_iterator_free(it);
		}
		snprintf(full, sizeof(full), "refs/tags/%s", rev);
		onto_add(c, &n, 16, ck->repo, full);
	}
	/* an id (also when a ref has that name: then it is ambiguous) */
	if (ss_hexid_is_prefix(rev) && n < 16) {
		git_oid prefix;
		size_t len = strlen(rev);

		if (git_oid_fromstrn(&prefix, rev, len) == 0 &&
		    git_object_lookup_prefix(&obj, ck->repo, &prefix, len, GIT_OBJECT_COMMIT) == 0) {
			c[n].ref[0] = '\0';
			git_oid_cpy(&c[n++].oid, git_object_id(obj));
		}
		git_object_free(obj);
		obj = NULL;
	}
	/* anything else rev-parse takes: "origin/22.11", "v22.11~3", "HEAD" */
	if (!n && git_revparse_single(&obj, ck->repo, rev) == 0) {
		git_object *peeled = NULL;

		if (git_object_peel(&peeled, obj, GIT_OBJECT_COMMIT) == 0) {
			c[n].ref[0] = '\0';
			git_oid_cpy(&c[n++].oid, git_object_id(peeled));
		}
		git_object_free(peeled);
		git_object_free(obj);
		obj = NULL;
	}
	if (!n)
		return onto_not_found(ck->repo, rev, ss_repo_path(ck->handle));
	taken = 0;
	{
		const char *name = c[taken].ref[0] ? c[taken].ref : rev;
		size_t len = strnlen(name, sizeof(ck->ref) - 1);  /* both are shorter */

		memcpy(ck->ref, name, len);
		ck->ref[len] = '\0';
	}
	/* the branch's short name: "22.11" of refs/remotes/origin/22.11 */
	if (!strncmp(ck->ref, "refs/heads/", 11) || !strncmp(ck->ref, "refs/tags/", 10))
		snprintf(ck->name, sizeof(ck->name), "%s", strchr(ck->ref + 5, '/') + 1);
	else if (!strncmp(ck->ref, "refs/remotes/", 13) && strchr(ck->ref + 13, '/'))
		snprintf(ck->name, sizeof(ck->name), "%s", strchr(ck->ref + 13, '/') + 1);
	else if (!strncmp(rev, "origin/", 7))
		snprintf(ck->name, sizeof(ck->name), "%s", rev + 7);
	else
		snprintf(ck->name, sizeof(ck->name), "%s", rev);
	for (size_t i = 1; i < n && !ck->ambiguity; i++) {
		ss_strbuf sb = SS_STRBUF_INIT;
		char hex[13];

		if (git_oid_equal(&c[i].oid, &c[taken].oid) || !onto_git_would_warn(ck->repo, rev, c, n))
			continue;
		ss_strbuf_addf(&sb, "'%s' is ambiguous:", rev);
		for (size_t k = 0; k < n; k++) {
			git_oid_tostr(hex, sizeof(hex), &c[k].oid);
			ss_strbuf_addf(&sb, "%s %s (%s)", k ? "," : "",
				       c[k].ref[0] ? c[k].ref : "the commit id", hex);
		}
		ss_strbuf_addf(&sb, "; took %s", c[taken].ref[0] ? c[taken].ref : "the commit id");
		if (!sb.buf || !(ck->ambiguity = strdup(sb.buf)))
			rc = SS_ENOMEM;
		ss_strbuf_release(&sb);
	}
	if (!rc && git_object_lookup(out, ck->repo, &c[taken].oid, GIT_OBJECT_COMMIT) < 0)
		rc = ss_error_code(SS_EINVALID, "cannot read commit of '%s': %s", rev, ss_git_error());
	return rc;
}

int ss_check_open(ss_check **out, const char *path, const ss_check_options *opts)
{
	ss_check_options defaults = SS_CHECK_OPTIONS_INIT;
	ss_repo *given = NULL;
	const char *rev;
	ss_check *ck;
	git_object *obj = NULL;
	int rc;

	*out = NULL;
	if (!opts)
		opts = &defaults;
	rev = opts->rev ? opts->rev : "HEAD";
	if (!strncmp(path, "git:", 4))
		path += 4;
	if (git_libgit2_init() < 0)
		return ss_error_code(SS_EINVALID, "cannot start libgit2: %s", ss_git_error());
	ck = calloc(1, sizeof(*ck));
	if (!ck) {
		git_libgit2_shutdown();
		return ss_error_code(SS_ENOMEM, "out of memory for a branch check");
	}
	/* a handle of path given (its "git:" dropped, as ss_repo_open() does) */
	if (opts->repo && !strcmp(ss_repo_path(opts->repo), path))
		given = opts->repo;
	if (opts->blame_cache &&
	    (rc = blame_cache_repo(&ck->handle, opts->blame_cache, path, given)))
		goto free_check;
	ck->shared_repo = ck->handle != NULL;
	if (!ck->handle && given)
		ck->handle = ss_repo_ref(given);
	else if (!ck->handle && (rc = ss_repo_open(&ck->handle, path)))
		goto free_check;
	ck->repo = ss_repo_git(ck->handle);
	if ((rc = resolve_onto(ck, rev, &obj)))
		goto free_check;  /* the message names rev, path and the branches */
	ck->branch = (git_commit *)obj;
	obj = NULL;
	if (git_commit_tree(&ck->tree, ck->branch) < 0) {
		rc = ss_error_code(SS_EINVALID, "cannot read the tree of '%s': %s", rev,
				   ss_git_error());
		goto free_check;
	}
	git_oid_tostr(ck->id, sizeof(ck->id), git_commit_id(ck->branch));
	ck->prereqs = opts->prereqs;
	ck->index = opts->index;
	ck->keep_min = opts->ancestry_keep_min ? opts->ancestry_keep_min : SS_CHECK_ANCESTRY_KEEP_MIN;
	if (!(ck->path = strdup(path))) {
		rc = ss_error_code(SS_ENOMEM, "out of memory for a branch check");
		goto free_check;
	}
	/* the history index reads the branch's repository through its handle */
	if ((rc = ss_histidx_new(&ck->idx)) || (rc = ss_histidx_use_repo(ck->idx, ck->handle)))
		goto free_check;
	if (ck->shared_repo && (rc = blame_cache_register(ck, opts->blame_cache)))
		goto free_check;
	*out = ck;
	return 0;

free_check:
	git_object_free(obj);
	ss_check_free(ck);
	return rc;
}

void ss_check_free(ss_check *ck)
{
	if (!ck)
		return;
	ss_histidx_free(ck->idx);
	ss_check_plan_needs(ck, NULL, NULL, 0);
	free(ck->ambiguity);
	free(ck->path);
	ss_u64map_release(&ck->ancestors);
	free(ck->kept_error);
	git_tree_free(ck->tree);
	git_commit_free(ck->branch);
	ss_repo_free(ck->handle);
	free(ck);
	git_libgit2_shutdown();
}

const char *ss_check_branch_id(const ss_check *ck)
{
	return ck->id;
}

const char *ss_check_branch_ref(const ss_check *ck)
{
	return ck->ref;
}

const char *ss_check_branch_name(const ss_check *ck)
{
	return ck->name;
}

const char *ss_check_ambiguity(const ss_check *ck)
{
	return ck->ambiguity;
}

uint64_t ss_check_oid_key(const git_oid *oid)
{
	uint64_t k = 0;

	for (int i = 0; i < 8; i++)
		k = k << 8 | oid->id[i];
	return k ? k : 1;
}

/*
 * The branch's commits from the repository's commit-graph
 * (source/commit_graph.h): the commits newer than the file read from the
 * repository down to it, the rest by the file's parent positions, no
 * object read.  1.3 M commits of a kernel-sized history in about 1 s,
 * where the revwalk below takes 15.  0 when done, 1 when there is no
 * graph or it is damaged (the map then left empty for the walk), < 0 out
 * of memory.
 */
static int ancestors_from_graph(ss_check *ck)
{
	ss_commit_graph *g = NULL;
	uint8_t *seen = NULL;
	uint32_t *stack = NULL, par[64];
	git_oid *todo = NULL, oid;
	size_t sp = 0, ntodo = 0, captodo = 0, found;
	int rc = 1;

	if ((rc = ss_commit_graph_open(&g, ck->repo)) < 0)
		return rc;
	if (!g)
		return 1;
	rc = 0;
	seen = calloc(ss_commit_graph_count(g) ? ss_commit_graph_count(g) : 1, 1);
	stack = malloc((ss_commit_graph_count(g) + 1) * sizeof(*stack));
	if (!seen || !stack) {
		rc = SS_ENOMEM;
		goto out;
	}
	/* down from the tip through the commits the graph lacks */
	if (SS_GROW(todo, ntodo + 1, captodo)) {
		rc = SS_ENOMEM;
		goto out;
	}
	git_oid_cpy(&todo[ntodo++], git_commit_id(ck->branch));
	while (ntodo && !rc) {
		uint32_t pos;
		git_commit *c = NULL;

		oid = todo[--ntodo];
		if (ss_commit_graph_find(g, &oid, &pos)) {
			if (!seen[pos]) {
				seen[pos] = 1;
				stack[sp++] = pos;
			}
			continue;
		}
		if ((rc = ss_u64map_find_or_put(&ck->ancestors, ss_check_oid_key(&oid), 1, &found)) < 0)
			break;
		if (rc == 1) {          /* seen */
			rc = 0;
			continue;
		}
		if (git_commit_lookup(&c, ck->repo, &oid) < 0) {
			rc = 1;
			break;
		}
		for (unsigned k = 0; k < git_commit_parentcount(c) && !rc; k++) {
			if (SS_GROW(todo, ntodo + 1, captodo))
				rc = SS_ENOMEM;
			else
				git_oid_cpy(&todo[ntodo++], git_commit_parent_id(c, k));
		}
		git_commit_free(c);
	}
	/* the graph's part, by positions */
	while (sp && !rc) {
		uint32_t pos = stack[--sp];
		int np = ss_commit_graph_parents(g, pos, par, sizeof(par) / sizeof(par[0]));

		if (np < 0 || np > (int)(sizeof(par) / sizeof(par[0]))) {
			rc = 1;   /* damaged, or a merge of more than 64: walk */
			break;
		}
		ss_commit_graph_id(&oid, g, pos);
		if ((rc = ss_u64map_find_or_put(&ck->ancestors, ss_check_oid_key(&oid), 1, &found)) < 0)
			break;
		rc = 0;
		for (int k = 0; k < np; k++)
			if (!seen[par[k]]) {
				seen[par[k]] = 1;
				stack[sp++] = par[k];
			}
	}
out:
	if (rc)
		ss_u64map_release(&ck->ancestors);
	free(todo);
	free(stack);
	free(seen);
	ss_commit_graph_free(g);
	return rc == SS_ENOMEM ? ss_error_code(SS_ENOMEM, "out of memory for the branch's commits") : rc;
}

/*
 * Every commit the branch holds, once: one walk from its tip (40,000
 * commits on DPDK's 20.11, 0.1 s) makes each later "is it in the branch"
 * a look-up, where git_graph_descendant_of walked both histories down to
 * their merge base for every question (17 s of 941 DPDK commits placed).
 * Keys are 64 bits of the id: a false "in the branch" needs two commits
 * sharing 64 bits.  From the commit-graph file when the repository keeps
 * one (ancestors_from_graph).  When the walk fails (a partial clone
 * missing a commit), the graph is asked each time instead.
 */
static int build_ancestors(ss_check *ck)
{
	git_revwalk *walk = NULL;
	git_oid oid;
	size_t found;
	int rc = 0, err;

	/* kept by an earlier run: read, and extended when the branch moved */
	if ((rc = ss_check_ancestry_read(ck)) != 0) {
		if (rc > 0 && ck->kept == SS_CHECK_KEPT_EXTENDED)
			ss_check_ancestry_write(ck);
		return rc < 0 ? rc : 0;
	}
	if ((rc = ancestors_from_graph(ck)) <= 0) {
		if (rc == 0)
			ss_check_ancestry_write(ck);
		return rc;
	}
	rc = 0;
	/* a walk of the whole history: none of its commits stays in the
	 * object cache of the repository, which a run's other readers share
	 * as long as the run lasts */
	ss_git_object_cache_hold(1);
	if (git_revwalk_new(&walk, ck->repo) < 0 ||
	    git_revwalk_push(walk, git_commit_id(ck->branch)) < 0) {
		ck->no_ancestors = 1;
		goto free_walk;
	}
	while ((err = git_revwalk_next(&oid, walk)) == 0) {
		if ((rc = ss_u64map_find_or_put(&ck->ancestors, ss_check_oid_key(&oid), 1, &found)) < 0)
			goto free_walk;
		ck->walked++;
	}
	if (err != GIT_ITEROVER) {
		ss_u64map_release(&ck->ancestors);
		ck->no_ancestors = 1;
	} else {
		ss_check_ancestry_write(ck);
	}
free_walk:
	git_revwalk_free(walk);
	ss_git_object_cache_hold(0);
	return rc < 0 ? rc : 0;
}

size_t ss_check_ancestry_walked(const ss_check *ck)
{
	return ck ? ck->walked : 0;
}

/* Is the commit named by id (a full or abbreviated id) in the branch?  1
 * yes, 0 no, -1 not in the repository (or not a commit); full_out gets
 * its full id when found, *time its committer time. */
int ss_check_in_branch(ss_check *ck, const char *id, char full_out[41], int64_t *time)
{
	git_object *obj = NULL;
	const git_oid *oid, *tip = git_commit_id(ck->branch);
	size_t len = strlen(id);
	git_oid prefix;
	int rc;

	/* by object id only: revparse would take a branch or tag of that
	 * name first */
	if (len < 4 || len > 40 || git_oid_fromstrn(&prefix, id, len) < 0 ||
	    git_object_lookup_prefix(&obj, ck->repo, &prefix, len, GIT_OBJECT_COMMIT) < 0)
		return -1;
	oid = git_object_id(obj);
	if (full_out)
		git_oid_tostr(full_out, 41, oid);
	if (time)
		*time = (int64_t)git_commit_time((git_commit *)obj);
	/* the tip itself: no walk of the branch's history (a replay asks
	 * for its time alone: a whole-history walk, 20 s of a week of a
	 * kernel-sized repository) */
	if (git_oid_equal(oid, tip)) {
		git_object_free(obj);
		return 1;
	}
	if (!ck->ancestors.cap && !ck->no_ancestors && build_ancestors(ck) < 0) {
		git_object_free(obj);
		return -1;
	}
	if (git_oid_equal(oid, tip))
		rc = 1;
	else if (!ck->no_ancestors) {
		size_t found;

		rc = ss_u64map_get(&ck->ancestors, ss_check_oid_key(oid), &found);
	} else
		rc = git_graph_descendant_of(ck->repo, tip, oid);
	git_object_free(obj);
	return rc < 0 ? -1 : rc;
}

int ss_check_in_branch_id(ss_check *ck, const char *id, char full_out[41])
{
	return ss_check_in_branch(ck, id, full_out, NULL);
}

int ss_check_read_commit(ss_commit **out, ss_check *ck, const char *id)
{
	int rc;

	*out = NULL;
	/* a mail's id (derived from its Message-ID) is no commit here: the
	 * walk would call it a bad revision */
	if (ss_check_in_branch(ck, id, NULL, NULL) < 0)
		return ss_error_code(SS_ENOTFOUND, "no commit %.12s in '%s'", id, ck->path);
	/* through the check's handle: no repository opened per commit */
	if ((rc = ss_repo_read_commit(out, ck->handle, id)) < 0)
		return rc;
	return *out ? 0 : ss_error_code(SS_ENOTFOUND, "no commit %.12s in '%s'", id, ck->path);
}

ss_histidx *ss_check_history(ss_check *ck)
{
	return ck->idx;
}

ss_repo *ss_check_repo(const ss_check *ck)
{
	return ck->handle;
}

void ss_check_set_carried(ss_check *ck, const ss_carried *cr)
{
	ck->carried = cr;
}

/*
 * The bug's targets against the branch: the history index resolves the
 * Fixes: and revert targets in the repository (a short id settled by the
 * quoted subject, as origin does), and each found one is looked up in the
 * branch's ancestry.
 */
static int check_bug(ss_check_result *out, ss_histidx_facts *facts, ss_check *ck,
		     const ss_commit *c)
{
	size_t found = 0;
	int rc;

	out->bug_in_branch = -1;
	out->target[0] = '\0';
	if ((rc = ss_histidx_resolve(facts, ck->idx, c, NULL, NULL)))
		return rc;
	if (facts->ntargets)
		memcpy(out->target, facts->targets[0].written, sizeof(out->target));
	for (size_t i = 0; i < facts->ntargets; i++) {
		const ss_histidx_target *t = &facts->targets[i];
		int r = t->found ? ss_check_in_branch_id(ck, t->commit.id, NULL) : -1;

		if (r < 0)
			continue;
		/* a target the branch carries as a backport: the bug is there */
		if (r == 0 && ck->carried &&
		    ss_carried_find(NULL, ck->carried, t->commit.id, 0) != SS_CARRIED_NONE)
			r = 1;
		if (r == 1 || !found++)
			memcpy(out->target, t->commit.id, sizeof(out->target));
		if (r == 1) {
			out->bug_in_branch = 1;
			return 0;
		}
	}
	/* the bug is absent only when every target was found and is absent */
	if (found && found == facts->ntargets)
		out->bug_in_branch = 0;
	return 0;
}

int ss_check_commit(ss_check_result *out, ss_check *ck, const ss_commit *c)
{
	ss_histidx_facts facts;

	return ss_check_commit_facts(out, &facts, ck, c);
}

int ss_check_commit_facts(ss_check_result *out, ss_histidx_facts *facts, ss_check *ck,
			  const ss_commit *c)
{
	int rc, r;

	memset(out, 0, sizeof(*out));
	if ((rc = ss_check_apply_tree(out, ck, c)))
		return rc;
	r = ss_check_in_branch_id(ck, c->id, NULL);
	out->in_branch = r == 1;
	out->in_repo = r >= 0;
	{
		size_t modified = 0, there = 0;

		for (size_t i = 0; i < c->nfiles; i++)
			if (c->files[i].status != SS_FILE_ADDED && c->files[i].old_path) {
				modified++;
				there += ss_check_has_path(ck, c->files[i].old_path);
			}
		out->files_in_branch = modified && there == modified;
	}
	if ((rc = check_bug(out, facts, ck, c)))
		return rc;
	if (ck->carried && !out->in_branch) {
		const char *as;

		if (ss_carried_find(&as, ck->carried, c->id, ss_commit_patch_key(c)) != SS_CARRIED_NONE)
			snprintf(out->carried_as, sizeof(out->carried_as), "%s", as);
	}
	/* blame needs the commit in the repository (in_repo); a commit the
	 * branch carries needs nothing first */
	if (ck->prereqs && out->apply == SS_APPLY_CONFLICT && out->in_repo && !out->carried_as[0] &&
	    (rc = ss_check_needs(out, ck, c->id)))
		return rc;
	return 0;
}
