/*
 * check_lines.c - who last changed some lines of a file, for many hunks
 * at once (check_impl.h, ss_check_lines): the blame the prerequisites of
 * conflicting picks need (check_needs.c), done as one walk for a whole
 * batch of picks instead of one history walk per hunk.
 *
 * Why by hand: libgit2's git_blame_file() walks every commit between the
 * commit and its oldest_commit and diffs two trees for each (a config
 * snapshot and a pathspec per commit).  That is 20 us a commit: 0.2 s a
 * hunk on a generated repository whose branch forked 10,000 commits
 * back, 234 s for a week of 1,500 commits --onto that branch
 * (bench/results/index-scale.md), and several seconds a hunk on the
 * kernel, where a stable branch forked 100,000 commits or more back.
 * Here the commits between the fork and the picks are walked once for the
 * batch (ss_check_lines_new: the picks' parents are its tops, the
 * branch's fork its bottom), each compared with its parent only along
 * the tree paths of the files the batch's hunks are in (a trie, pruned
 * where two subtrees are the same object), which gives each file's list
 * of commits that changed it, newest first.  With the project index,
 * the commits it holds take that list from its rows of the files each
 * changed instead (one scan of the table: a dozen tree objects a commit
 * are read otherwise), and only the others' trees are compared.  A
 * hunk's lines are then followed from the pick's parent down that list,
 * only through the commits the parent has in its history (a stamp per
 * walked commit, set by a walk of the parent's ancestors among them),
 * with one blob diff (no context) for each: a line inside a change is
 * that commit's, the others move by what the change added and removed
 * before them.
 *
 * Where it differs from git_blame_file(): a file changed on two sides of
 * a merge is followed through both sides' commits in the walk's
 * topological order, not side by side (the owners may then differ from
 * git blame's, never leave the history of the parent); renames are not
 * followed (the file's lines then stop at the commit that created it
 * under this name, as blame does without copy detection); merge commits
 * own no lines.  tests/test_check_lines.c compares it with
 * git_blame_file().
 */
#include <stdlib.h>
#include <string.h>

#include <git2.h>

#include "check/check_impl.h"
#include "index/index.h"
#include "source/git.h"
#include "util/error.h"
#include "util/grow.h"
#include "util/strmap.h"
#include "util/u64map.h"

/* A node of the trie of the batch's file paths: one path component. */
struct node {
	char *name;
	struct node *kid;    /* first child */
	struct node *next;   /* next sibling */
	int path;            /* index into paths when a file ends here, else -1 */
};

struct ss_check_lines {
	git_repository *repo;   /* borrowed */
	git_oid bottom;         /* the walk's bottom (hidden), the fork */
	size_t n;               /* commits walked, topological, newest first */
	git_oid *id;            /* [n] */
	int64_t *atime;         /* [n] author time */
	size_t *par0;           /* [n + 1] offsets into par */
	size_t *par;            /* parent indices; SIZE_MAX: outside the walk */
	uint32_t *stamp;        /* [n] the query whose ancestor it is */
	uint32_t query;
	size_t *stack;          /* [n] */
	ss_u64map at;           /* first 64 bits of an id -> index */
	ss_strmap *paths;       /* the batch's file paths -> index */
	struct node *root;
	size_t **touch;         /* [path] indices of the commits that changed it */
	size_t *ntouch, *captouch;
};

static void free_node(struct node *t)
{
	while (t) {
		struct node *next = t->next;

		free_node(t->kid);
		free(t->name);
		free(t);
		t = next;
	}
}

void ss_check_lines_free(ss_check_lines *h)
{
	if (!h)
		return;
	free(h->id);
	free(h->atime);
	free(h->par0);
	free(h->par);
	free(h->stamp);
	free(h->stack);
	ss_u64map_release(&h->at);
	if (h->touch)
		for (size_t i = 0; i < ss_strmap_count(h->paths); i++)
			free(h->touch[i]);
	free(h->touch);
	free(h->ntouch);
	free(h->captouch);
	ss_strmap_free(h->paths);
	free_node(h->root);
	free(h);
}

/* Add path (index i) to the trie under root. */
static int trie_add(struct node *root, const char *path, int i)
{
	struct node *t = root;
	const char *p = path;

	while (*p) {
		const char *slash = strchr(p, '/');
		size_t len = slash ? (size_t)(slash - p) : strlen(p);
		struct node *k;

		for (k = t->kid; k && (strlen(k->name) != len || memcmp(k->name, p, len)); k = k->next)
			;
		if (!k) {
			if (!(k = calloc(1, sizeof(*k))) || !(k->name = strndup(p, len))) {
				free(k);
				return SS_ENOMEM;
			}
			k->path = -1;
			k->next = t->kid;
			t->kid = k;
		}
		t = k;
		p += len;
		while (*p == '/')
			p++;
	}
	t->path = i;
	return 0;
}

/* Commit index ci changed the file of node t (when one ends there). */
static int touched(ss_check_lines *h, const struct node *t, size_t ci)
{
	size_t p = (size_t)t->path;

	if (t->path < 0)
		return 0;
	if (SS_GROW(h->touch[p], h->ntouch[p] + 1, h->captouch[p]))
		return SS_ENOMEM;
	h->touch[p][h->ntouch[p]++] = ci;
	return 0;
}

/* Commit index ci changed every file under t and its siblings. */
static int touch_all(ss_check_lines *h, const struct node *t, size_t ci)
{
	for (; t; t = t->next)
		if (touched(h, t, ci) || (t->kid && touch_all(h, t->kid, ci)))
			return SS_ENOMEM;
	return 0;
}

/*
 * The files of the trie's children of t that differ between trees a and
 * b (either may be NULL: no such tree), recorded as changed by commit ci.
 */
static int compare(ss_check_lines *h, const struct node *t, git_tree *a, git_tree *b, size_t ci)
{
	int rc = 0;

	for (const struct node *k = t->kid; k && !rc; k = k->next) {
		const git_tree_entry *ea = a ? git_tree_entry_byname(a, k->name) : NULL;
		const git_tree_entry *eb = b ? git_tree_entry_byname(b, k->name) : NULL;
		git_tree *sa = NULL, *sb = NULL;

		if (!ea && !eb)
			continue;
		if (ea && eb && git_oid_equal(git_tree_entry_id(ea), git_tree_entry_id(eb)))
			continue;
		if (touched(h, k, ci))
			return SS_ENOMEM;
		if (!k->kid)
			continue;
		if (ea && git_tree_entry_type(ea) == GIT_OBJECT_TREE &&
		    git_tree_lookup(&sa, h->repo, git_tree_entry_id(ea)) < 0)
			sa = NULL;
		if (eb && git_tree_entry_type(eb) == GIT_OBJECT_TREE &&
		    git_tree_lookup(&sb, h->repo, git_tree_entry_id(eb)) < 0)
			sb = NULL;
		if (sa || sb)
			rc = compare(h, k, sa, sb, ci);
		else
			rc = touch_all(h, k->kid, ci);
		git_tree_free(sa);
		git_tree_free(sb);
	}
	return rc;
}

/* The index's rows of the walked commits (struct from_index). */
struct from_index {
	ss_check_lines *h;
	uint8_t *known;         /* [n] 1: the index holds the commit's files */
};

static int index_file(const char *commit, const char *path, void *ud)
{
	struct from_index *x = ud;
	ss_check_lines *h = x->h;
	git_oid oid;
	size_t i;
	uint32_t p;

	if (strlen(commit) != 40 || git_oid_fromstrn(&oid, commit, 40) < 0 ||
	    ss_u64map_get(&h->at, ss_check_oid_key(&oid), &i) != 1 || !git_oid_equal(&h->id[i], &oid))
		return 0;
	/* a merge's rows are its first parent's diff: its sides' commits
	 * own the lines, as below */
	if (h->par0[i + 1] - h->par0[i] > 1)
		return 0;
	x->known[i] = 1;
	if ((p = ss_strmap_find(h->paths, path, strlen(path))) == SS_STRMAP_NONE)
		return 0;
	if (SS_GROW(h->touch[p], h->ntouch[p] + 1, h->captouch[p]))
		return SS_ENOMEM;
	h->touch[p][h->ntouch[p]++] = i;
	return 0;
}

static int cmp_index(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? -1 : x > y;
}

int ss_check_lines_new(ss_check_lines **out, git_repository *repo, const git_oid *bottom,
		       const git_oid *tops, size_t ntops, const char *const *paths, size_t npaths,
		       ss_index *ix)
{
	uint8_t *known = NULL;  /* [n] the index gave the commit's files */
	ss_check_lines *h = calloc(1, sizeof(*h));
	git_revwalk *walk = NULL;
	size_t cap = 0, npar = 0, parcap = 0, found;
	git_oid oid;
	int rc = 0, err;

	*out = NULL;
	if (!h || ss_strmap_new(&h->paths) || !(h->root = calloc(1, sizeof(*h->root)))) {
		rc = SS_ENOMEM;
		goto fail;
	}
	h->repo = repo;
	h->root->path = -1;
	git_oid_cpy(&h->bottom, bottom);
	for (size_t i = 0; i < npaths; i++) {
		uint32_t at;

		if (ss_strmap_find(h->paths, paths[i], strlen(paths[i])) != SS_STRMAP_NONE)
			continue;
		if (ss_strmap_intern(h->paths, paths[i], strlen(paths[i]), &at) ||
		    trie_add(h->root, paths[i], (int)at)) {
			rc = SS_ENOMEM;
			goto fail;
		}
	}
	npaths = ss_strmap_count(h->paths);
	h->touch = calloc(npaths ? npaths : 1, sizeof(*h->touch));
	h->ntouch = calloc(npaths ? npaths : 1, sizeof(*h->ntouch));
	h->captouch = calloc(npaths ? npaths : 1, sizeof(*h->captouch));
	if (!h->touch || !h->ntouch || !h->captouch) {
		rc = SS_ENOMEM;
		goto fail;
	}
	/* the walk: what the tops hold and the bottom does not */
	ss_git_object_cache_hold(1);
	if (git_revwalk_new(&walk, repo) < 0 ||
	    git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL) < 0 ||
	    git_revwalk_hide(walk, bottom) < 0) {
		rc = ss_error_set("cannot walk the history of the picks: %s", ss_git_error());
		goto fail_walk;
	}
	for (size_t i = 0; i < ntops; i++)
		if (git_revwalk_push(walk, &tops[i]) < 0) {
			rc = ss_error_set("cannot walk the history of the picks: %s", ss_git_error());
			goto fail_walk;
		}
	while ((err = git_revwalk_next(&oid, walk)) == 0) {
		if (SS_GROW(h->id, h->n + 1, cap)) {
			rc = SS_ENOMEM;
			goto fail_walk;
		}
		git_oid_cpy(&h->id[h->n], &oid);
		if ((rc = ss_u64map_find_or_put(&h->at, ss_check_oid_key(&oid), h->n, &found)) < 0)
			goto fail_walk;
		h->n++;
	}
	if (err != GIT_ITEROVER) {
		rc = ss_error_set("cannot walk the history of the picks: %s", ss_git_error());
		goto fail_walk;
	}
	h->atime = calloc(h->n ? h->n : 1, sizeof(*h->atime));
	h->par0 = calloc(h->n + 1, sizeof(*h->par0));
	h->stamp = calloc(h->n ? h->n : 1, sizeof(*h->stamp));
	h->stack = calloc(h->n ? h->n : 1, sizeof(*h->stack));
	if (!h->atime || !h->par0 || !h->stamp || !h->stack) {
		rc = SS_ENOMEM;
		goto fail_walk;
	}
	/* each commit's time and parents */
	for (size_t i = 0; i < h->n && !rc; i++) {
		git_commit *c = NULL;
		unsigned np;

		if (git_commit_lookup(&c, repo, &h->id[i]) < 0) {
			rc = ss_error_set("cannot read commit %s: %s", git_oid_tostr_s(&h->id[i]),
					  ss_git_error());
			break;
		}
		h->atime[i] = git_commit_author(c)->when.time;
		np = git_commit_parentcount(c);
		h->par0[i] = npar;
		for (unsigned k = 0; k < np; k++) {
			size_t pi = SIZE_MAX;

			if (ss_u64map_get(&h->at, ss_check_oid_key(git_commit_parent_id(c, k)), &found) == 1)
				pi = found;
			if (SS_GROW(h->par, npar + 1, parcap)) {
				rc = SS_ENOMEM;
				break;
			}
			h->par[npar++] = pi;
		}
		git_commit_free(c);
	}
	if (rc)
		goto fail_walk;
	h->par0[h->n] = npar;
	/* the files the index holds for its commits (one scan of its rows,
	 * where comparing trees reads a dozen tree objects a commit: 12 s of
	 * a week --onto a branch forked 145,000 commits back on a
	 * kernel-sized history); a row a deletion names changes no line a
	 * later blob has (ss_check_lines_owners passes over a commit without
	 * the file), so the rows' paths are the changes that count */
	if (ix && npaths) {
		struct from_index x = { h, NULL };

		if (!(known = calloc(h->n ? h->n : 1, 1))) {
			rc = SS_ENOMEM;
			goto fail_walk;
		}
		x.known = known;
		if ((rc = ss_index_for_each_file(ix, index_file, &x))) {
			if (rc == SS_ENOMEM)
				goto fail_walk;
			/* an index that cannot be read: every tree compared */
			ss_error_clear();
			rc = 0;
			memset(known, 0, h->n);
			for (size_t p = 0; p < npaths; p++)
				h->ntouch[p] = 0;
		}
	}
	/* the others: the files each changed against its only parent (a
	 * merge changes none of them: its sides' commits did) */
	for (size_t i = 0; i < h->n && !rc && npaths; i++) {
		git_commit *c = NULL, *p = NULL;
		git_tree *tc = NULL, *tp = NULL;
		size_t np = h->par0[i + 1] - h->par0[i];

		if (np > 1 || (known && known[i]))
			continue;
		if (git_commit_lookup(&c, repo, &h->id[i]) < 0 || git_commit_tree(&tc, c) < 0 ||
		    (np == 1 && (git_commit_parent(&p, c, 0) < 0 || git_commit_tree(&tp, p) < 0)))
			rc = ss_error_set("cannot read the tree of %s: %s",
					  git_oid_tostr_s(&h->id[i]), ss_git_error());
		else
			rc = compare(h, h->root, tc, tp, i);
		git_tree_free(tc);
		git_tree_free(tp);
		git_commit_free(p);
		git_commit_free(c);
	}
	/* rows come in no order: each list newest first, each commit once */
	for (size_t p = 0; known && !rc && p < npaths; p++) {
		size_t k = 0;

		if (h->ntouch[p] < 2)
			continue;
		qsort(h->touch[p], h->ntouch[p], sizeof(*h->touch[p]), cmp_index);
		for (size_t j = 0; j < h->ntouch[p]; j++)
			if (!k || h->touch[p][k - 1] != h->touch[p][j])
				h->touch[p][k++] = h->touch[p][j];
		h->ntouch[p] = k;
	}
	if (rc)
		goto fail_walk;
	free(known);
	git_revwalk_free(walk);
	ss_git_object_cache_hold(0);
	*out = h;
	return 0;

fail_walk:
	free(known);
	git_revwalk_free(walk);
	ss_git_object_cache_hold(0);
fail:
	ss_check_lines_free(h);
	return rc == SS_ENOMEM ? ss_error_code(SS_ENOMEM, "out of memory for the picks' history") : rc;
}

const git_oid *ss_check_lines_bottom(const ss_check_lines *h)
{
	return &h->bottom;
}

int ss_check_lines_covers(const ss_check_lines *h, const git_oid *bottom, const git_oid *parent,
			  const char *path)
{
	size_t found;

	return (!bottom || git_oid_equal(&h->bottom, bottom)) &&
	       ss_u64map_get(&h->at, ss_check_oid_key(parent), &found) == 1 &&
	       git_oid_equal(&h->id[found], parent) &&
	       (!path || ss_strmap_find(h->paths, path, strlen(path)) != SS_STRMAP_NONE);
}

/* The id of path's blob in commit's tree (its first parent's when
 * parent): 1, or 0 when it is no blob there. */
static int blob_id(git_oid *out, ss_check_lines *h, const git_oid *commit, int parent,
		   const char *path)
{
	git_commit *c = NULL, *p = NULL;
	git_tree *t = NULL;
	git_tree_entry *e = NULL;
	int found = 0;

	if (git_commit_lookup(&c, h->repo, commit) < 0)
		return 0;
	if (parent && git_commit_parent(&p, c, 0) < 0)
		goto out;
	if (git_commit_tree(&t, p ? p : c) == 0 && git_tree_entry_bypath(&e, t, path) == 0 &&
	    git_tree_entry_type(e) == GIT_OBJECT_BLOB) {
		git_oid_cpy(out, git_tree_entry_id(e));
		found = 1;
	}
out:
	git_tree_entry_free(e);
	git_tree_free(t);
	git_commit_free(p);
	git_commit_free(c);
	return found;
}

/* The blob id names: *carry when it is that one (taken: *carry becomes
 * NULL), else read; NULL when it cannot be read. */
static git_blob *blob_take(ss_check_lines *h, const git_oid *id, git_blob **carry)
{
	git_blob *b = NULL;

	if (*carry && git_oid_equal(git_blob_id(*carry), id)) {
		b = *carry;
		*carry = NULL;
		return b;
	}
	return git_blob_lookup(&b, h->repo, id) < 0 ? NULL : b;
}

/* Owners newest first (author time), the same time in the order of the
 * lines they own. */
struct owner {
	int64_t time;
	size_t line;
	size_t ci;
};

static int cmp_owner(const void *a, const void *b)
{
	const struct owner *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? 1 : -1;
	return x->line < y->line ? -1 : x->line > y->line;
}

int ss_check_lines_owners(ss_check_lines *h, git_oid **own, size_t *nown, const git_oid *parent,
			  const char *path, int start, int lines)
{
	size_t pi, p = ss_strmap_find(h->paths, path, strlen(path)), sp = 0, left;
	long *pos = NULL;             /* each line's number in the version reached */
	struct owner *o = NULL;
	size_t no = 0;
	git_blob *carry = NULL;       /* the last change's old side: the next one's new */
	git_oid id;
	int rc = 0;

	*own = NULL;
	*nown = 0;
	if (ss_u64map_get(&h->at, ss_check_oid_key(parent), &pi) != 1 || p == SS_STRMAP_NONE ||
	    lines < 1)
		return 0;
	/* not a file at the parent: nothing to say (as a blame that fails) */
	if (!blob_id(&id, h, parent, 0, path))
		return 0;
	/* the parent's ancestors among the walked commits */
	if (++h->query == 0) {
		memset(h->stamp, 0, h->n * sizeof(*h->stamp));
		h->query = 1;
	}
	h->stamp[pi] = h->query;
	h->stack[sp++] = pi;
	while (sp) {
		size_t c = h->stack[--sp];

		for (size_t k = h->par0[c]; k < h->par0[c + 1]; k++) {
			size_t q = h->par[k];

			if (q != SIZE_MAX && h->stamp[q] != h->query) {
				h->stamp[q] = h->query;
				h->stack[sp++] = q;
			}
		}
	}
	if (!(pos = malloc((size_t)lines * sizeof(*pos))) ||
	    !(o = malloc((size_t)lines * sizeof(*o)))) {
		rc = ss_error_code(SS_ENOMEM, "out of memory for a blame");
		goto out;
	}
	for (int i = 0; i < lines; i++)
		pos[i] = start + i;
	left = (size_t)lines;
	/* down the file's changes, newest first, in the parent's history */
	for (size_t t = 0; t < h->ntouch[p] && left && !rc; t++) {
		size_t ci = h->touch[p][t];
		git_blob *nb, *ob = NULL;
		git_patch *patch = NULL;
		git_diff_options opts;
		size_t nh;

		if (h->stamp[ci] != h->query)
			continue;
		/* deleted there: a newer commit made the lines */
		if (!blob_id(&id, h, &h->id[ci], 0, path) || !(nb = blob_take(h, &id, &carry)))
			continue;
		if (blob_id(&id, h, &h->id[ci], 1, path))
			ob = blob_take(h, &id, &carry);
		git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION);
		opts.context_lines = 0;
		if (git_patch_from_blobs(&patch, ob, path, nb, path, &opts) < 0) {
			rc = ss_error_set("cannot diff %s in %s: %s", path, git_oid_tostr_s(&h->id[ci]),
					  ss_git_error());
			git_blob_free(nb);
			git_blob_free(ob);
			break;
		}
		nh = git_patch_num_hunks(patch);
		for (int i = 0; i < lines; i++) {
			long l = pos[i], shift = 0;
			int mine = !ob;   /* a new file: every line is this commit's */

			if (!l)
				continue;
			for (size_t k = 0; k < nh && !mine; k++) {
				const git_diff_hunk *hk;
				size_t nl;

				if (git_patch_get_hunk(&hk, &nl, patch, k) < 0)
					continue;
				if (hk->new_lines > 0 && l >= hk->new_start &&
				    l < hk->new_start + hk->new_lines)
					mine = 1;
				else if (hk->new_lines > 0 ? hk->new_start + hk->new_lines <= l
							   : hk->new_start < l)
					shift += (long)hk->old_lines - (long)hk->new_lines;
			}
			if (mine) {
				o[no].time = h->atime[ci];
				o[no].line = (size_t)i;
				o[no].ci = ci;
				no++;
				pos[i] = 0;
				left--;
			} else {
				pos[i] = l + shift;
			}
		}
		git_patch_free(patch);
		git_blob_free(nb);
		/* linear history: the next change's new side */
		git_blob_free(carry);
		carry = ob;
	}
	if (rc)
		goto out;
	qsort(o, no, sizeof(*o), cmp_owner);
	if (no && !(*own = malloc(no * sizeof(**own)))) {
		rc = ss_error_code(SS_ENOMEM, "out of memory for a blame");
		goto out;
	}
	for (size_t i = 0; i < no; i++) {
		size_t k;

		for (k = 0; k < *nown && !git_oid_equal(&(*own)[k], &h->id[o[i].ci]); k++)
			;
		if (k == *nown)
			git_oid_cpy(&(*own)[(*nown)++], &h->id[o[i].ci]);
	}
out:
	git_blob_free(carry);
	free(pos);
	free(o);
	return rc;
}
