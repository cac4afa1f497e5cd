/*
 * hist_lines.c - was the code a commit changes already in a release?
 *
 * A fix belongs in a stable branch only when the bug it fixes is there:
 * when the lines it removes or rewrites were in the release the branch
 * grew from.  A fix of code written after the last release has nothing to
 * fix in any stable branch (systemd's "add missing return after the
 * logging refactor" of a refactor newer than the release).  Blame at the
 * release (hist_blame.c) says it exactly but costs a blame per file; the
 * question asked here is cheaper and nearly the same: is the text of each
 * changed line (trimmed, non-trivial) a line of the file at the release?
 * A moved or re-indented line still counts as old, which is what we want.
 *
 * The lines checked are those hist_blame.c would blame
 * (hist_hunk_evidence()): the removed lines of a change block, or, for a
 * block that only adds, the nearest non-trivial context line above and
 * below (the code the addition guards).  Each blob is read once and kept
 * as a sorted array of 64-bit line hashes, shared by every release that
 * has it (most files do not change from one release to the next), and
 * each (release, path) pair is looked up in its tree once; the cache is
 * dropped whole when it passes SS_HISTLINES_CACHE_LINES hashes, so memory
 * stays bounded whatever the order commits come in.  A file whose blob is missing (a partial clone)
 * or binary is not checked: it counts neither way.
 */
#include <stdlib.h>
#include <string.h>

#include <git2.h>

#include "history/impl.h"
#include "source/git_repo.h"
#include "util/error.h"
#include "util/grow.h"
#include "util/u64map.h"

/* 8 bytes a line: at most 128 MB of cached line hashes. */
#define SS_HISTLINES_CACHE_LINES (16u << 20)
/* Release trees kept open at once (training walks across releases). */
#define SS_HISTLINES_TREES 8

struct lineset {
	uint64_t *h;      /* sorted line hashes; NULL when the file was absent */
	size_t n;
	int present;      /* the path existed at the release */
	int unreadable;   /* missing blob or binary: not checked */
};

struct tree_slot {
	char sha[41];
	git_tree *tree;
	uint64_t used;    /* for replacing the least recently used */
};

struct ss_histlines {
	ss_repo *handle;          /* a reference: the repository read */
	git_repository *repo;     /* handle's, or own's */
	git_repository *own;      /* ss_histlines_new_stored()'s, or NULL */
	void *store;              /* its object store (NULL: libgit2's reader) */
	size_t max_lines;         /* SS_HISTLINES_CACHE_LINES, or less */
	ss_u64map map;          /* hash(release sha, path) -> sets index */
	ss_u64map by_blob;      /* a blob id's first 8 bytes -> sets index */
	size_t absent;          /* the set of an absent path, SIZE_MAX: none yet */
	struct lineset *sets;
	size_t nsets, capsets;
	size_t cached;          /* line hashes held */
	struct tree_slot trees[SS_HISTLINES_TREES];
	uint64_t clock;
};

static uint64_t fnv(uint64_t h, const char *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= (unsigned char)p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

#define FNV_INIT 0xcbf29ce484222325ULL

/* The hash of a line's text without leading and trailing white space
 * (never 0). */
static uint64_t line_hash(const char *p, size_t len)
{
	const char *end = p + len;
	uint64_t h;

	while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
		p++;
	while (end > p && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
		end--;
	h = fnv(FNV_INIT, p, (size_t)(end - p));
	return h ? h : 1;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int ss_histlines_new_repo(ss_histlines **out, ss_repo *r)
{
	ss_histlines *hl;

	*out = NULL;
	if (!(hl = calloc(1, sizeof(*hl))))
		return ss_error_code(SS_ENOMEM, "out of memory");
	hl->absent = SIZE_MAX;
	hl->handle = ss_repo_ref(r);
	hl->repo = ss_repo_git(r);
	hl->max_lines = SS_HISTLINES_CACHE_LINES;
	*out = hl;
	return 0;
}

int ss_histlines_new_stored(ss_histlines **out, const char *path, size_t cache, size_t lines)
{
	ss_histlines *hl;
	int rc;

	*out = NULL;
	if (!(hl = calloc(1, sizeof(*hl))))
		return ss_error_code(SS_ENOMEM, "out of memory");
	hl->absent = SIZE_MAX;
	hl->max_lines = lines && lines < SS_HISTLINES_CACHE_LINES ? lines : SS_HISTLINES_CACHE_LINES;
	/* "git:" dropped, as ss_repo_open() drops it */
	if (!strncmp(path, "git:", 4))
		path += 4;
	if ((rc = ss_git_repo_open_stored(&hl->own, &hl->store, path, cache))) {
		free(hl);
		return rc;
	}
	hl->repo = hl->own;
	*out = hl;
	return 0;
}

int ss_histlines_new(ss_histlines **out, const char *path)
{
	ss_repo *r;
	int rc;

	*out = NULL;
	/* "git:" dropped, as the reader always did */
	if ((rc = ss_repo_open(&r, path)))
		return rc;
	rc = ss_histlines_new_repo(out, r);
	ss_repo_free(r);
	return rc;
}

void ss_histlines_borrow(ss_histlines *hl, struct git_repository *repo)
{
	size_t i;

	/* the trees kept open are objects of the handle they came from */
	for (i = 0; i < SS_HISTLINES_TREES; i++) {
		git_tree_free(hl->trees[i].tree);
		hl->trees[i].tree = NULL;
		hl->trees[i].used = 0;
	}
	hl->repo = repo ? repo : hl->own ? hl->own : ss_repo_git(hl->handle);
}

static void drop_cache(ss_histlines *hl)
{
	size_t i;

	for (i = 0; i < hl->nsets; i++)
		free(hl->sets[i].h);
	hl->nsets = 0;
	hl->cached = 0;
	hl->absent = SIZE_MAX;
	ss_u64map_release(&hl->map);
	ss_u64map_release(&hl->by_blob);
}

void ss_histlines_free(ss_histlines *hl)
{
	size_t i;

	if (!hl)
		return;
	drop_cache(hl);
	free(hl->sets);
	for (i = 0; i < SS_HISTLINES_TREES; i++)
		git_tree_free(hl->trees[i].tree);
	ss_repo_free(hl->handle);
	git_repository_free(hl->own);
	ss_git_store_release(hl->store);
	free(hl);
}

/* The tree of release commit sha, from the few kept open; NULL when the
 * commit cannot be read (the message is not kept: the release is then
 * simply not checked against). */
static git_tree *release_tree(ss_histlines *hl, const char *sha)
{
	struct tree_slot *slot = &hl->trees[0];
	git_commit *commit = NULL;
	git_oid oid;
	size_t i;

	hl->clock++;
	for (i = 0; i < SS_HISTLINES_TREES; i++) {
		if (hl->trees[i].tree && !strcmp(hl->trees[i].sha, sha)) {
			hl->trees[i].used = hl->clock;
			return hl->trees[i].tree;
		}
		if (hl->trees[i].used < slot->used)
			slot = &hl->trees[i];
	}
	git_tree_free(slot->tree);
	slot->tree = NULL;
	slot->used = 0;
	if (git_oid_fromstr(&oid, sha) < 0 || git_commit_lookup(&commit, hl->repo, &oid) < 0)
		return NULL;
	if (git_commit_tree(&slot->tree, commit) < 0)
		slot->tree = NULL;
	git_commit_free(commit);
	if (slot->tree) {
		memcpy(slot->sha, sha, 41);
		slot->used = hl->clock;
	}
	return slot->tree;
}

/* Read path at the release into a new set; its index in *out.  0 or
 * SS_ENOMEM. */
/* Keep s as a new set; its index in *out.  0 or SS_ENOMEM (s freed). */
static int add_set(ss_histlines *hl, struct lineset *s, size_t *out)
{
	if (SS_GROW(hl->sets, hl->nsets + 1, hl->capsets)) {
		free(s->h);
		return ss_error_code(SS_ENOMEM, "out of memory");
	}
	hl->sets[hl->nsets] = *s;
	*out = hl->nsets++;
	hl->cached += s->n + 1;
	return 0;
}

/* The sorted non-trivial line hashes of blob into s.  0 or SS_ENOMEM. */
static int hash_lines(struct lineset *s, git_blob *blob)
{
	const char *p = git_blob_rawcontent(blob), *end = p + git_blob_rawsize(blob);
	size_t cap = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end;
		ss_line l;

		l.origin = '-';
		l.no_eol = 0;
		l.text = p;
		l.len = (uint32_t)(e - p);
		if (!hist_line_trivial(&l)) {
			if (SS_GROW(s->h, s->n + 1, cap)) {
				free(s->h);
				s->h = NULL;
				return ss_error_code(SS_ENOMEM, "out of memory");
			}
			s->h[s->n++] = line_hash(p, (size_t)(e - p));
		}
		p = e + (nl != NULL);
	}
	if (s->n)
		qsort(s->h, s->n, sizeof(*s->h), cmp_u64);
	return 0;
}

/*
 * The set of path at the release into *out.  Sets are shared by blob: a
 * file no release changed is read and hashed once whatever the number of
 * releases asked about it (hl->by_blob); an absent path is one shared set.
 * 0 or SS_ENOMEM.
 */
static int load_set(ss_histlines *hl, git_tree *tree, const char *path, size_t *out)
{
	struct lineset s = { NULL, 0, 1, 0 };
	git_tree_entry *te = NULL;
	git_blob *blob = NULL;
	uint64_t bkey;
	int rc = 0;

	if (!tree || git_tree_entry_bypath(&te, tree, path) != 0) {
		git_error_clear();
		if (hl->absent == SIZE_MAX) {
			struct lineset none = { NULL, 0, 0, 0 };

			if ((rc = add_set(hl, &none, &hl->absent)))
				return rc;
		}
		*out = hl->absent;
		return 0;
	}
	memcpy(&bkey, git_tree_entry_id(te)->id, sizeof(bkey));
	bkey = bkey ? bkey : 1;
	if (ss_u64map_get(&hl->by_blob, bkey, out)) {
		git_tree_entry_free(te);
		return 0;
	}
	if (git_tree_entry_type(te) != GIT_OBJECT_BLOB ||
	    git_blob_lookup(&blob, hl->repo, git_tree_entry_id(te)) < 0 || git_blob_is_binary(blob))
		s.unreadable = 1;  /* a missing blob (partial clone), binary, a submodule */
	else
		rc = hash_lines(&s, blob);
	git_blob_free(blob);
	git_tree_entry_free(te);
	git_error_clear();
	if (rc || (rc = add_set(hl, &s, out)))
		return rc;
	return ss_u64map_find_or_put(&hl->by_blob, bkey, *out, out) < 0 ? SS_ENOMEM : 0;
}

static int has_line(const struct lineset *s, uint64_t h)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->h[mid] < h)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->n && s->h[lo] == h;
}

struct hunk_check {
	ss_histlines_facts *out;
	const struct lineset *s;
	const ss_hunk *h;
};

static int check_line(void *ud, size_t j, double weight)
{
	struct hunk_check *hc = ud;
	const ss_line *l = &hc->h->lines[j];

	(void)weight;
	hc->out->lines++;
	hc->out->old += has_line(hc->s, line_hash(l->text, l->len));
	return 0;
}

/* Count the lines of hunk h to check (hist_hunk_evidence()) and those
 * of them in s. */
static void check_hunk(ss_histlines_facts *out, const struct lineset *s, const ss_hunk *h)
{
	struct hunk_check hc = { out, s, h };

	hist_hunk_evidence(h, check_line, &hc);
}

int ss_histlines_check(ss_histlines_facts *out, ss_histlines *hl, const char *release_sha,
		       const ss_commit *c)
{
	git_tree *tree;
	size_t f, h;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!hl || !release_sha || strlen(release_sha) != 40 || !(tree = release_tree(hl, release_sha)))
		return 0;
	for (f = 0; f < c->nfiles; f++) {
		const ss_file *file = &c->files[f];
		uint64_t key;
		size_t idx;

		if (!file->old_path)
			continue;  /* an added file: nothing of it was released */
		out->files++;
		key = fnv(fnv(FNV_INIT, release_sha, 40), file->old_path, strlen(file->old_path));
		key = key ? key : 1;
		if (hl->cached > hl->max_lines)
			drop_cache(hl);
		if ((rc = ss_u64map_get(&hl->map, key, &idx)) == 0) {
			if ((rc = load_set(hl, tree, file->old_path, &idx)) ||
			    (rc = ss_u64map_find_or_put(&hl->map, key, idx, &idx)) < 0)
				return rc;
		}
		if (!hl->sets[idx].present)
			continue;
		out->files_old++;
		if (hl->sets[idx].unreadable)
			continue;
		for (h = 0; h < file->nhunks; h++)
			check_hunk(out, &hl->sets[idx], &file->hunks[h]);
	}
	out->checked = 1;
	return 0;
}
