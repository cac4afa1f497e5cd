/*
 * check.c - commits checked against a stable branch (see check.h): the
 * hunks placed on the branch's blobs as git apply places them, and the
 * commit, the bug it fixes and what a conflict needs first looked up in
 * the repository with libgit2.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <git2.h>

#include "check/check.h"
#include "history/histidx.h"
#include "source/source.h"
#include "labels/carried.h"
#include "commit/patchid.h"
#include "source/git.h"
#include "util/error.h"
#include "util/hexid.h"
#include "util/strbuf.h"
#include "util/grow.h"
#include "util/u64map.h"
#include "util/strmap.h"

struct ss_check {
	git_repository *repo;
	git_commit *branch;
	git_tree *tree;
	char id[41];
	char ref[256];       /* what --onto named: a full ref name or the id */
	char name[128];      /* the branch's short name ("22.11") */
	char *ambiguity;     /* NULL, or which of several candidates was taken */
	char *path;          /* the repository as opened */
	int prereqs;         /* opts.prereqs */
	const ss_carried *carried; /* borrowed, NULL */
	ss_u64map ancestors; /* the branch's commits (first 64 bits of each id),
				built on the first look-up; cap 0: not yet */
	int no_ancestors;    /* the walk failed: ask libgit2's graph each time */
	ss_histidx *idx;     /* no commits, the repository attached: Fixes:
				and revert targets are resolved there */
	ss_check_blame_cache *bc; /* borrowed, NULL: blames not shared */
	int shared_repo;     /* repo is bc's (not freed with ck) */
};

/* One blamed hunk: its owners, whichever branch asked. */
struct blame_entry {
	git_oid boundary;    /* the blame's oldest commit */
	int bounded;         /* 0: walked down to the root */
	git_oid *own;        /* the owners, newest first, same time in line order */
	size_t nown;
};

struct ss_check_blame_cache {
	char *path;          /* the repository of the first check registered */
	git_repository *repo; /* opened there, shared by the checks of path:
				 one object cache, not one per branch */
	git_oid *tips;       /* the registered branches */
	size_t ntips, tipcap;
	ss_strmap *keys;     /* "<id> <start> <lines> <path>" -> index into e */
	struct blame_entry *e;
	size_t cap;
	size_t blamed, reused;
};

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
	free(bc->path);
	if (bc->repo) {
		git_repository_free(bc->repo);
		git_libgit2_shutdown();
	}
	free(bc);
}

void ss_check_blame_cache_stats(const ss_check_blame_cache *bc, size_t *blamed, size_t *reused)
{
	*blamed = bc ? bc->blamed : 0;
	*reused = bc ? bc->reused : 0;
}

/* Open the repository at path (libgit2 started); *out NULL on failure. */
static int open_repo(git_repository **out, const char *path)
{
	if (git_repository_open_ext(out, path, 0, NULL) < 0) {
		*out = NULL;
		return ss_error_code(SS_ENOTFOUND, "cannot open repository '%s': %s", path,
				     ss_git_error());
	}
	return 0;
}

/* The repository of bc for a check of path: opened by the first check
 * (*repo NULL when path is another one: that check opens its own). */
static int blame_cache_repo(git_repository **repo, ss_check_blame_cache *bc, const char *path)
{
	int rc;

	*repo = NULL;
	if (!bc->path) {
		char *p = strdup(path);

		if (!p)
			return ss_error_code(SS_ENOMEM, "out of memory for a blame cache");
		if (git_libgit2_init() < 0) {
			free(p);
			return ss_error_code(SS_EINVALID, "cannot start libgit2: %s", ss_git_error());
		}
		if ((rc = open_repo(&bc->repo, path))) {
			git_libgit2_shutdown();
			free(p);
			return rc;
		}
		bc->path = p;
	}
	if (!strcmp(bc->path, path))
		*repo = bc->repo;
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
		return ss_error_code(SS_ENOTFOUND, "cannot resolve '%s' to a commit: no branch, "
				     "remote-tracking branch, tag or id of that name", rev);
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

		if (git_oid_equal(&c[i].oid, &c[taken].oid))
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
	if (opts->blame_cache && (rc = blame_cache_repo(&ck->repo, opts->blame_cache, path)))
		goto free_check;
	ck->shared_repo = ck->repo != NULL;
	if (!ck->repo && (rc = open_repo(&ck->repo, path)))
		goto free_check;
	if ((rc = resolve_onto(ck, rev, &obj))) {
		if (rc == SS_ENOTFOUND)
			ss_error_set("cannot resolve '%s' in '%s' to a commit: no branch, "
				     "remote-tracking branch, tag or id of that name", rev, path);
		goto free_check;
	}
	ck->branch = (git_commit *)obj;
	obj = NULL;
	if (git_commit_tree(&ck->tree, ck->branch) < 0) {
		rc = ss_error_code(SS_EINVALID, "cannot read the tree of '%s': %s", rev,
				   ss_git_error());
		goto free_check;
	}
	git_oid_tostr(ck->id, sizeof(ck->id), git_commit_id(ck->branch));
	ck->prereqs = opts->prereqs;
	if (!(ck->path = strdup(path))) {
		rc = ss_error_code(SS_ENOMEM, "out of memory for a branch check");
		goto free_check;
	}
	if ((rc = ss_histidx_new(&ck->idx)) || (rc = ss_histidx_open_repo(ck->idx, path)))
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
	free(ck->ambiguity);
	free(ck->path);
	ss_u64map_release(&ck->ancestors);
	git_tree_free(ck->tree);
	git_commit_free(ck->branch);
	if (!ck->shared_repo)
		git_repository_free(ck->repo);
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

const char *ss_apply_status_name(ss_apply_status s)
{
	switch (s) {
	case SS_APPLY_CLEAN:
		return "applies";
	case SS_APPLY_CONFLICT:
		return "conflict";
	case SS_APPLY_MISSING:
		return "missing";
	case SS_APPLY_EXISTS:
		return "exists";
	case SS_APPLY_UNKNOWN:
		break;
	}
	return "unknown";
}

/* An id's first 64 bits, never 0 (the map's empty key). */
static uint64_t oid_key(const git_oid *oid)
{
	uint64_t k = 0;

	for (int i = 0; i < 8; i++)
		k = k << 8 | oid->id[i];
	return k ? k : 1;
}

/*
 * Every commit the branch holds, once: one walk from its tip (40,000
 * commits on DPDK's 20.11, 0.1 s) makes each later "is it in the branch"
 * a look-up, where git_graph_descendant_of walked both histories down to
 * their merge base for every question (17 s of 941 DPDK commits placed).
 * Keys are 64 bits of the id: a false "in the branch" needs two commits
 * sharing 64 bits.  When the walk fails (a partial clone missing a
 * commit), the graph is asked each time instead.
 */
static int build_ancestors(ss_check *ck)
{
	git_revwalk *walk = NULL;
	git_oid oid;
	size_t found;
	int rc = 0, err;

	if (git_revwalk_new(&walk, ck->repo) < 0 ||
	    git_revwalk_push(walk, git_commit_id(ck->branch)) < 0) {
		ck->no_ancestors = 1;
		goto free_walk;
	}
	while ((err = git_revwalk_next(&oid, walk)) == 0)
		if ((rc = ss_u64map_find_or_put(&ck->ancestors, oid_key(&oid), 1, &found)) < 0)
			goto free_walk;
	if (err != GIT_ITEROVER) {
		ss_u64map_release(&ck->ancestors);
		ck->no_ancestors = 1;
	}
free_walk:
	git_revwalk_free(walk);
	return rc < 0 ? rc : 0;
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
	if (!ck->ancestors.cap && !ck->no_ancestors && build_ancestors(ck) < 0) {
		git_object_free(obj);
		return -1;
	}
	if (git_oid_equal(oid, tip))
		rc = 1;
	else if (!ck->no_ancestors) {
		size_t found;

		rc = ss_u64map_get(&ck->ancestors, oid_key(oid), &found);
	} else
		rc = git_graph_descendant_of(ck->repo, tip, oid);
	git_object_free(obj);
	return rc < 0 ? -1 : rc;
}

static int in_branch(ss_check *ck, const char *id, char full_out[41])
{
	return ss_check_in_branch(ck, id, full_out, NULL);
}

int ss_check_read_commit(ss_commit **out, ss_check *ck, const char *id)
{
	ss_source_options so = SS_SOURCE_OPTIONS_INIT;
	char parent[48];
	const char *revs[2] = { id, parent };
	ss_source *src;
	ss_commit *c;
	int rc;

	*out = NULL;
	/* a mail's id (derived from its Message-ID) is no commit here: the
	 * walk would call it a bad revision */
	if (ss_check_in_branch(ck, id, NULL, NULL) < 0)
		return ss_error_code(SS_ENOTFOUND, "no commit %.12s in '%s'", id, ck->path);
	/* the commit alone: it, without its first parent's history */
	snprintf(parent, sizeof(parent), "^%s^", id);
	so.repo = ck->path;
	so.revs = revs;
	so.nrevs = 2;
	if ((rc = ss_source_open(&src, ck->path, &so)))
		return rc;
	while (!*out && (rc = ss_source_next(&c, src)) != SS_ITEROVER) {
		if (rc == SS_ESKIP)
			continue;
		if (rc)
			break;
		if (!strcmp(c->id, id))
			*out = c;
		else
			ss_commit_free(c);
	}
	ss_source_free(src);
	if (*out)
		return 0;
	return rc && rc != SS_ITEROVER ? rc
	       : ss_error_code(SS_ENOTFOUND, "no commit %.12s in '%s'", id, ck->path);
}

ss_histidx *ss_check_history(ss_check *ck)
{
	return ck->idx;
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
		int r = t->found ? in_branch(ck, t->commit.id, NULL) : -1;

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

/* Is path a blob in the branch's tree? */
static int has_path(ss_check *ck, const char *path)
{
	git_tree_entry *e = NULL;
	int found = git_tree_entry_bypath(&e, ck->tree, path) == 0;

	git_tree_entry_free(e);
	return found;
}

/* A blob's lines: starts and lengths without the newline. */
struct lines {
	const char **p;
	size_t *len;
	size_t n;
};

static int split_lines(struct lines *l, const char *buf, size_t size)
{
	size_t cap = 1;

	for (size_t i = 0; i < size; i++)
		cap += buf[i] == '\n';
	l->p = malloc(cap * sizeof(*l->p));
	l->len = malloc(cap * sizeof(*l->len));
	l->n = 0;
	if (!l->p || !l->len)
		return SS_ENOMEM;
	for (size_t i = 0; i < size;) {
		const char *nl = memchr(buf + i, '\n', size - i);
		size_t end = nl ? (size_t)(nl - buf) : size;

		l->p[l->n] = buf + i;
		l->len[l->n++] = end - i;
		i = end + 1;
	}
	return 0;
}

/* Do the preimage lines of h (context and removed) stand at line at? */
static int hunk_fits(const struct lines *l, const ss_hunk *h, size_t at)
{
	size_t k = at;

	for (size_t i = 0; i < h->nlines; i++) {
		const ss_line *ln = &h->lines[i];

		if (ln->origin == '+')
			continue;
		if (k >= l->n || l->len[k] != ln->len || memcmp(l->p[k], ln->text, ln->len))
			return 0;
		k++;
	}
	return 1;
}

/*
 * Apply f's hunks to lines as "git apply --check" does (git's apply.c,
 * apply_one_fragment and find_pos, without fuzz or whitespace options):
 * each hunk's preimage must match exactly, at its line shifted by the
 * offset the hunks before it needed, or at the nearest position after the
 * previous hunk where it matches (lines added or removed earlier in the
 * file by other commits only move a hunk), forward first; a hunk starting
 * at line 1 must match at the start of the file, and one without trailing
 * context at its end.  0 when all fit, else the 1-based number of the
 * first hunk that does not.
 */
static int fit_hunks(const struct lines *l, const ss_file *f, size_t *pos)
{
	size_t from = 0;
	long offset = 0;

	for (size_t i = 0; i < f->nhunks; i++) {
		const ss_hunk *h = &f->hunks[i];
		size_t pre = 0, want;
		long best = -1;

		size_t trailing = 0;
		int at_start, at_end;

		for (size_t k = 0; k < h->nlines; k++)
			pre += h->lines[k].origin != '+';
		while (trailing < h->nlines && h->lines[h->nlines - 1 - trailing].origin == ' ')
			trailing++;
		/* as git apply: a hunk from line 1 must match at the start, one
		 * without trailing context at the end of the file */
		at_start = h->old_start <= 1;
		at_end = trailing == 0;
		/* old_start is the line before the hunk when it removes nothing
		 * and has no context (old_lines 0) */
		want = h->old_lines ? h->old_start - 1 : h->old_start;
		want = (long)want + offset < (long)from ? from : (size_t)((long)want + offset);
		if (at_start || at_end) {
			size_t p = at_start ? 0 : l->n >= pre ? l->n - pre : 0;

			if (p >= from && p + pre <= l->n && (!at_end || p + pre == l->n) &&
			    (!pre || hunk_fits(l, h, p)))
				best = (long)p;
		} else if (pre == 0) {
			best = (long)(want <= l->n ? want : l->n);
		} else if (pre <= l->n) {
			size_t last = l->n - pre;   /* the last line a hunk can start at */

			/* nearest to want first, later lines before earlier ones */
			for (size_t d = 0; best < 0; d++) {
				int hi = want + d <= last;
				int lo_left = d <= want && want - d >= from;

				if (!hi && !lo_left)
					break;
				if (hi && hunk_fits(l, h, want + d))
					best = (long)(want + d);
				else if (d && lo_left && want - d <= last && hunk_fits(l, h, want - d))
					best = (long)(want - d);
			}
		}
		if (best < 0)
			return (int)i + 1;
		if (pos)
			pos[i] = (size_t)best;
		offset = best - (long)(h->old_lines ? h->old_start - 1 : h->old_start);
		from = (size_t)best + pre;
	}
	return 0;
}

/*
 * Does c's patch apply to the branch's tree?  libgit2's git_apply_to_tree
 * was tried first: it reads the whole tree into an index for every commit
 * (9 ms a commit on a 3,000-file tree) and, unlike git apply, does not
 * look for a hunk away from its line, so hunks that other commits had only
 * moved were reported as conflicts (37 of 40 sampled "conflicts" applied
 * with git apply --check).  Written by hand instead: only the blobs the
 * patch touches are read, and each hunk is placed as git apply places it.
 */
static int check_apply(ss_check_result *out, ss_check *ck, const ss_commit *c)
{
	int rc = 0;

	out->apply = SS_APPLY_UNKNOWN;
	out->path[0] = '\0';
	out->hunk = 0;
	if (c->truncated || !c->nfiles)
		return 0;
	for (size_t i = 0; i < c->nfiles; i++)
		if (c->files[i].binary) {
			snprintf(out->path, sizeof(out->path), "%s", ss_file_path(&c->files[i]));
			return 0;
		}
	for (size_t i = 0; i < c->nfiles && !rc; i++) {
		const ss_file *f = &c->files[i];
		git_tree_entry *e = NULL;
		git_blob *blob = NULL;
		struct lines l = { NULL, NULL, 0 };
		int bad;

		if (f->status == SS_FILE_ADDED) {
			if (!has_path(ck, f->new_path))
				continue;
			out->apply = SS_APPLY_EXISTS;
			snprintf(out->path, sizeof(out->path), "%s", f->new_path);
			return 0;
		}
		if (git_tree_entry_bypath(&e, ck->tree, f->old_path) < 0 ||
		    git_tree_entry_type(e) != GIT_OBJECT_BLOB) {
			git_tree_entry_free(e);
			out->apply = SS_APPLY_MISSING;
			snprintf(out->path, sizeof(out->path), "%s", f->old_path);
			return 0;
		}
		if (git_blob_lookup(&blob, ck->repo, git_tree_entry_id(e)) < 0) {
			rc = ss_error_code(SS_EINVALID, "cannot read '%s' in the branch: %s",
					   f->old_path, ss_git_error());
		} else if (!(rc = split_lines(&l, git_blob_rawcontent(blob),
					      (size_t)git_blob_rawsize(blob)))) {
			if ((bad = fit_hunks(&l, f, NULL))) {
				out->apply = SS_APPLY_CONFLICT;
				out->hunk = bad;
				out->hunk_start = (int)f->hunks[bad - 1].old_start;
				out->hunk_lines = (int)f->hunks[bad - 1].old_lines;
				snprintf(out->path, sizeof(out->path), "%s", f->old_path);
			}
		} else {
			rc = ss_error_code(SS_ENOMEM, "out of memory for '%s'", f->old_path);
		}
		free(l.p);
		free(l.len);
		git_blob_free(blob);
		git_tree_entry_free(e);
		if (out->apply == SS_APPLY_CONFLICT) {
			/* a file the branch lacks (or has already) outweighs a
			 * conflict: what must come first cannot be one hunk's
			 * blame then */
			for (size_t j = i + 1; j < c->nfiles && !rc; j++) {
				const ss_file *g = &c->files[j];
				int there = has_path(ck, g->status == SS_FILE_ADDED ? g->new_path : g->old_path);

				if (g->status == SS_FILE_ADDED ? there : !there) {
					out->apply = g->status == SS_FILE_ADDED ? SS_APPLY_EXISTS : SS_APPLY_MISSING;
					snprintf(out->path, sizeof(out->path), "%s",
						 g->status == SS_FILE_ADDED ? g->new_path : g->old_path);
					out->hunk = out->hunk_start = out->hunk_lines = 0;
					break;
				}
			}
			return rc;
		}
	}
	if (!rc)
		out->apply = SS_APPLY_CLEAN;
	return rc;
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
	if (out->nneeds < SS_CHECK_MAX_NEEDS && in_branch(ck, hex, NULL) == 0)
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
	size_t nh, n = 0;
	int rc = 0;

	*own = NULL;
	*nown = 0;
	git_blame_options_init(&opts, GIT_BLAME_OPTIONS_VERSION);
	git_oid_cpy(&opts.newest_commit, git_commit_parent_id(commit, 0));
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
static int shared_boundary(git_oid *out, ss_check *ck, const git_oid *commit)
{
	const ss_check_blame_cache *bc = ck->bc;
	git_oid base;
	int found = 0;

	git_oid_cpy(out, commit);
	for (size_t i = 0; i < bc->ntips; i++)
		if (git_merge_base(&base, ck->repo, out, &bc->tips[i]) == 0) {
			git_oid_cpy(out, &base);
			found = 1;
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
		if (!e->bounded || in_branch(ck, hex, NULL) == 1) {
			bc->reused++;
			goto found;
		}
		/* stopped at a commit this branch lacks: its own blame */
		bounded = git_merge_base(&boundary, ck->repo, git_commit_id(ck->branch),
					 git_commit_id(commit)) == 0;
	} else {
		bounded = shared_boundary(&boundary, ck, git_commit_id(commit));
		git_oid_tostr(hex, sizeof(hex), &boundary);
		/* not one of this branch's commits (it was not registered, or
		 * has no fork with the commit): the branch's own fork */
		if (bounded && in_branch(ck, hex, NULL) != 1)
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
		int bounded = git_merge_base(&base, ck->repo, git_commit_id(ck->branch), &oid) == 0;

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
	if ((rc = check_apply(out, ck, c)))
		return rc;
	r = in_branch(ck, c->id, NULL);
	out->in_branch = r == 1;
	out->in_repo = r >= 0;
	{
		size_t modified = 0, there = 0;

		for (size_t i = 0; i < c->nfiles; i++)
			if (c->files[i].status != SS_FILE_ADDED && c->files[i].old_path) {
				modified++;
				there += has_path(ck, c->files[i].old_path);
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

/* ------------------------------------------------------------------ */
/* A series applied in memory, one commit after another. */

struct overlay_file {
	char *path;
	char *buf;           /* the content after the series so far */
	size_t len;
	int present;         /* 0: deleted by the series */
};

struct ss_check_series {
	ss_check *ck;
	struct overlay_file *f;
	size_t n, cap;
};

int ss_check_series_new(ss_check_series **out, ss_check *ck)
{
	*out = calloc(1, sizeof(**out));
	if (!*out)
		return ss_error_code(SS_ENOMEM, "out of memory for a series");
	(*out)->ck = ck;
	return 0;
}

static void overlay_release(struct overlay_file *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(f[i].path);
		free(f[i].buf);
	}
}

void ss_check_series_free(ss_check_series *s)
{
	if (!s)
		return;
	overlay_release(s->f, s->n);
	free(s->f);
	free(s);
}

/* The content of path after the series so far: 1 and a malloc'd copy, 0
 * when it is not there, < 0 on error. */
static int series_read(ss_check_series *s, const char *path, char **buf, size_t *len)
{
	git_tree_entry *e = NULL;
	git_blob *blob = NULL;
	int rc;

	*buf = NULL;
	*len = 0;
	for (size_t i = s->n; i-- > 0;)
		if (!strcmp(s->f[i].path, path)) {
			if (!s->f[i].present)
				return 0;
			*buf = malloc(s->f[i].len + 1);
			if (!*buf)
				return SS_ENOMEM;
			memcpy(*buf, s->f[i].buf, s->f[i].len);
			*len = s->f[i].len;
			return 1;
		}
	if (git_tree_entry_bypath(&e, s->ck->tree, path) < 0 ||
	    git_tree_entry_type(e) != GIT_OBJECT_BLOB) {
		git_tree_entry_free(e);
		return 0;
	}
	rc = git_blob_lookup(&blob, s->ck->repo, git_tree_entry_id(e));
	git_tree_entry_free(e);
	if (rc < 0)
		return ss_error_code(SS_EINVALID, "cannot read '%s' in the branch: %s", path,
				     ss_git_error());
	*len = (size_t)git_blob_rawsize(blob);
	*buf = malloc(*len + 1);
	if (*buf)
		memcpy(*buf, git_blob_rawcontent(blob), *len);
	git_blob_free(blob);
	return *buf ? 1 : SS_ENOMEM;
}

/* The file after f's hunks, placed at pos: lines before, between and
 * after the hunks kept, each hunk's preimage replaced by its postimage. */
static int rebuild(ss_strbuf *sb, const struct lines *l, const char *buf, size_t size,
		   const ss_file *f, const size_t *pos)
{
	int eol_at_end = size && buf[size - 1] == '\n';
	size_t k = 0;
	int rc = 0;

	for (size_t i = 0; i < f->nhunks; i++) {
		const ss_hunk *h = &f->hunks[i];

		for (; k < pos[i] && k < l->n; k++) {
			rc |= ss_strbuf_add(sb, l->p[k], l->len[k]);
			if (k + 1 < l->n || eol_at_end)
				rc |= ss_strbuf_addch(sb, '\n');
		}
		for (size_t j = 0; j < h->nlines; j++) {
			const ss_line *ln = &h->lines[j];

			if (ln->origin != '+') {
				k++;
				if (ln->origin == '-')
					continue;
			}
			rc |= ss_strbuf_add(sb, ln->text, ln->len);
			if (!ln->no_eol)
				rc |= ss_strbuf_addch(sb, '\n');
		}
	}
	for (; k < l->n; k++) {
		rc |= ss_strbuf_add(sb, l->p[k], l->len[k]);
		if (k + 1 < l->n || eol_at_end)
			rc |= ss_strbuf_addch(sb, '\n');
	}
	return rc ? SS_ENOMEM : 0;
}

/* Record path's new content (NULL: deleted) among the pending changes. */
static int pend(struct overlay_file **p, size_t *n, size_t *cap, const char *path, ss_strbuf *sb)
{
	struct overlay_file *o;

	if (SS_GROW(*p, *n + 1, *cap))
		return SS_ENOMEM;
	o = &(*p)[*n];
	memset(o, 0, sizeof(*o));
	if (!(o->path = strdup(path)))
		return SS_ENOMEM;
	(*n)++;
	if (!sb)
		return 0;
	o->present = 1;
	o->len = sb->len;
	o->buf = malloc(sb->len + 1);
	if (!o->buf)
		return SS_ENOMEM;
	memcpy(o->buf, sb->buf, sb->len);
	return 0;
}

int ss_check_series_apply(ss_check_result *out, ss_check_series *s, const ss_commit *c)
{
	struct overlay_file *p = NULL;
	size_t np = 0, pcap = 0;
	ss_strbuf sb = SS_STRBUF_INIT;
	int rc = 0, failed = 0;

	memset(out, 0, sizeof(*out));
	out->apply = SS_APPLY_UNKNOWN;
	if (c->truncated || !c->nfiles)
		return 1;
	out->apply = SS_APPLY_CLEAN;
	for (size_t i = 0; i < c->nfiles && !rc && !failed; i++) {
		const ss_file *f = &c->files[i];
		const char *from = f->status == SS_FILE_ADDED ? f->new_path : f->old_path;
		struct lines l = { NULL, NULL, 0 };
		size_t *pos = NULL;
		char *buf = NULL;
		size_t len;
		int there, bad;

		snprintf(out->path, sizeof(out->path), "%s", from ? from : "");
		if (f->binary || !from) {
			out->apply = SS_APPLY_UNKNOWN;
			failed = 1;
			break;
		}
		if ((there = series_read(s, from, &buf, &len)) < 0) {
			rc = there;
			break;
		}
		if (f->status == SS_FILE_ADDED ? there : !there) {
			out->apply = f->status == SS_FILE_ADDED ? SS_APPLY_EXISTS : SS_APPLY_MISSING;
			failed = 1;
		} else if (f->status == SS_FILE_DELETED) {
			rc = pend(&p, &np, &pcap, from, NULL);
		} else if (!(pos = calloc(f->nhunks + 1, sizeof(*pos))) ||
			   split_lines(&l, buf ? buf : "", len)) {
			rc = SS_ENOMEM;
		} else if ((bad = fit_hunks(&l, f, pos))) {
			out->apply = SS_APPLY_CONFLICT;
			out->hunk = bad;
			failed = 1;
		} else {
			ss_strbuf_reset(&sb);
			rc = rebuild(&sb, &l, buf ? buf : "", len, f, pos);
			if (!rc && f->status == SS_FILE_RENAMED && strcmp(f->old_path, f->new_path))
				rc = pend(&p, &np, &pcap, f->old_path, NULL);
			if (!rc)
				rc = pend(&p, &np, &pcap, f->new_path ? f->new_path : from, &sb);
		}
		free(l.p);
		free(l.len);
		free(pos);
		free(buf);
	}
	ss_strbuf_release(&sb);
	if (!rc && !failed) {
		/* every file fits: the commit joins the series */
		if (np && SS_GROW(s->f, s->n + np, s->cap)) {
			rc = SS_ENOMEM;
		} else {
			if (np)
				memcpy(s->f + s->n, p, np * sizeof(*p));
			s->n += np;
			np = 0;
			out->path[0] = '\0';
		}
	}
	overlay_release(p, np);
	free(p);
	if (rc)
		return ss_error_code(rc, "out of memory applying %.12s in memory", c->id);
	return failed;
}

int ss_check_series_file(char **out, size_t *len, ss_check_series *s, const char *path)
{
	int rc = series_read(s, path, out, len);

	if (rc == 1)
		(*out)[*len] = '\0';
	return rc;
}
