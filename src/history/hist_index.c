/*
 * hist_index.c - the history index: commit ids to time, subject and
 * flags, with abbreviated-id look-up, and an optional repository behind it.
 *
 * Entries are appended as commits are read.  e[0..nsorted) is sorted by
 * id (a prefix is found with one binary search, and its matches are the
 * entries that follow); the entries added since, e[nsorted..n), are
 * searched one by one until there are more than pending_max() of them,
 * when a look-up sorts them and merges them in.  So a stream that
 * alternates look-ups and adds (features: each commit is resolved against
 * the commits before it, then added) costs O(n) per merge every ~sqrt(n)
 * adds instead of a full sort per commit, and a bulk load one sort.
 * Repositories are asked only for what the added commits do not have, so
 * that a run over a mail archive never needs one.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "history/impl.h"
#include "util/arena.h"
#include "util/error.h"
#include "util/grow.h"

/* Matches listed when a prefix is ambiguous in the repository. */
#define HIST_REPO_MATCHES 16

struct ss_histidx {
	struct hist_entry *e;
	size_t n, cap;
	size_t nsorted;           /* e[0..nsorted) sorted and without duplicates */
	uint32_t added;           /* commits added so far (entry order) */
	const char **sources;     /* names of the sources seen, by number */
	size_t nsources, capsources;
	ss_arena *arena;          /* subjects, source names, repository entries */
	ss_repo *handle;          /* the repository attached (a reference), NULL */
	git_repository *repo;     /* handle's */
};

int64_t hist_commit_time(const ss_commit *c)
{
	return c->committer.time > 0 ? c->committer.time : c->author.time;
}

int ss_histidx_new(ss_histidx **out)
{
	ss_histidx *h = calloc(1, sizeof(*h));

	*out = NULL;
	if (!h)
		return ss_error_code(SS_ENOMEM, "out of memory");
	h->arena = ss_arena_new(1 << 16);
	if (!h->arena) {
		free(h);
		return ss_error_code(SS_ENOMEM, "out of memory");
	}
	*out = h;
	return 0;
}

void ss_histidx_free(ss_histidx *h)
{
	if (!h)
		return;
	ss_repo_free(h->handle);
	ss_arena_free(h->arena);
	free(h->sources);
	free(h->e);
	free(h);
}

static int is_hex(int ch)
{
	return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f') || (ch >= 'A' && ch <= 'F');
}

size_t ss_histidx_revert_ids(char ids[][41], size_t max, const char *msg)
{
	static const char key[] = "this reverts commit";
	const char *p = msg;
	size_t n = 0, len, i;

	if (!msg)
		return 0;
	while ((p = strcasestr(p, key))) {
		p += sizeof(key) - 1;
		while (*p == ' ' || *p == '\t' || *p == '\n')
			p++;
		for (len = 0; is_hex((unsigned char)p[len]); len++)
			;
		if (len >= 4 && len <= 40 && !isalnum((unsigned char)p[len]) && n < max) {
			for (i = 0; i < len; i++)
				ids[n][i] = (char)tolower((unsigned char)p[i]);
			ids[n][len] = '\0';
			n++;
		}
		p += len;
	}
	return n;
}

static uint32_t source_number(ss_histidx *h, const char *name)
{
	size_t i;

	if (!name)
		name = "";
	/* most runs read one to three sources, and commits come source by source */
	for (i = h->nsources; i-- > 0;)
		if (!strcmp(h->sources[i], name))
			return (uint32_t)i;
	if (SS_GROW(h->sources, h->nsources + 1, h->capsources))
		return HIST_NO_SOURCE;
	h->sources[h->nsources] = ss_arena_strdup(h->arena, name);
	if (!h->sources[h->nsources])
		return HIST_NO_SOURCE;
	return (uint32_t)h->nsources++;
}

uint32_t hist_source_find(const ss_histidx *h, const char *name)
{
	size_t i;

	if (!name)
		name = "";
	for (i = h->nsources; i-- > 0;)
		if (!strcmp(h->sources[i], name))
			return (uint32_t)i;
	return HIST_NO_SOURCE;
}

/* A new entry (not yet counted: the caller fills it and bumps h->n), its
 * id lower-cased and its subject copied; NULL when out of memory. */
static struct hist_entry *new_entry(ss_histidx *h, const char *id, const char *subject)
{
	struct hist_entry *e;
	size_t i;

	if (SS_GROW(h->e, h->n + 1, h->cap))
		return NULL;
	e = &h->e[h->n];
	memset(e, 0, sizeof(*e));
	for (i = 0; i < 40 && id[i]; i++)
		e->id[i] = (char)tolower((unsigned char)id[i]);
	e->id[i] = '\0';
	e->subject = ss_arena_strdup(h->arena, subject ? subject : "");
	if (!e->subject)
		return NULL;
	e->order = h->added++;
	return e;
}

int ss_histidx_add_commit(ss_histidx *h, const ss_commit *c)
{
	struct hist_entry *e = new_entry(h, c->id, c->subject);
	char ids[1][41];

	if (!e || (e->src = source_number(h, c->source)) == HIST_NO_SOURCE)
		return ss_error_code(SS_ENOMEM, "out of memory");
	e->seq = (uint32_t)c->index;
	e->time = hist_commit_time(c);
	e->has_fixes = ss_commit_trailer(c, "Fixes", NULL) != NULL;
	e->is_revert = ss_histidx_revert_ids(ids, 1, c->message) > 0;
	h->n++;
	return 0;
}

int ss_histidx_add_known(ss_histidx *h, const ss_histidx_commit *k)
{
	struct hist_entry *e = new_entry(h, k->id, k->subject);

	if (!e)
		return ss_error_code(SS_ENOMEM, "out of memory");
	e->src = HIST_NO_SOURCE;
	e->time = k->time;
	e->has_fixes = k->has_fixes != 0;
	e->is_revert = k->is_revert != 0;
	e->indexed = 1;
	h->n++;
	return 0;
}

static int entry_cmp(const void *a, const void *b)
{
	const struct hist_entry *x = a, *y = b;
	int c = strcmp(x->id, y->id);

	if (c)
		return c;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Entries added since the last sort that look-ups may scan one by one:
 * about sqrt(n), at least 64. */
static size_t pending_max(const ss_histidx *h)
{
	size_t r = 64;

	while (r * r < h->nsorted)
		r *= 2;
	return r;
}

/* Sort what was added since the last sort in, and drop later copies (the
 * first copy of an id wins). */
static void sort_entries(ss_histidx *h)
{
	size_t i, k, np = h->n - h->nsorted;
	struct hist_entry *tmp;

	if (!np)
		return;
	/* merge the sorted tail in from the back; a full sort when the tail
	 * is large or no memory is left for the copy */
	tmp = np * 4 < h->nsorted ? malloc(np * sizeof(*tmp)) : NULL;
	if (tmp) {
		size_t a = h->nsorted, b = np, out = h->n;

		memcpy(tmp, h->e + h->nsorted, np * sizeof(*tmp));
		qsort(tmp, np, sizeof(*tmp), entry_cmp);
		while (b > 0) {
			if (a > 0 && entry_cmp(&h->e[a - 1], &tmp[b - 1]) > 0)
				h->e[--out] = h->e[--a];
			else
				h->e[--out] = tmp[--b];
		}
		free(tmp);
	} else {
		qsort(h->e, h->n, sizeof(*h->e), entry_cmp);
	}
	for (i = k = 0; i < h->n; i++)
		if (!k || strcmp(h->e[k - 1].id, h->e[i].id))
			h->e[k++] = h->e[i];
	h->n = h->nsorted = k;
}

/* Sort only when the unsorted tail is too long to scan. */
static void maybe_sort(ss_histidx *h)
{
	if (h->n - h->nsorted > pending_max(h))
		sort_entries(h);
}

/* The earliest added unsorted entry with exactly this id, or NULL. */
static const struct hist_entry *pending_find(const ss_histidx *h, const char *id)
{
	size_t i;

	for (i = h->nsorted; i < h->n; i++)
		if (!strcmp(h->e[i].id, id))
			return &h->e[i];
	return NULL;
}

size_t ss_histidx_count(ss_histidx *h)
{
	if (!h)
		return 0;
	sort_entries(h);
	return h->n;
}

git_repository *hist_repo(ss_histidx *h)
{
	return h->repo;
}

int ss_histidx_open_repo(ss_histidx *h, const char *path)
{
	ss_repo *r;
	int rc;

	ss_repo_free(h->handle);
	h->handle = NULL;
	h->repo = NULL;
	if ((rc = ss_repo_open(&r, path)))
		return rc;
	rc = ss_histidx_use_repo(h, r);
	ss_repo_free(r);
	return rc;
}

int ss_histidx_use_repo(ss_histidx *h, ss_repo *r)
{
	ss_repo_ref(r);
	ss_repo_free(h->handle);
	h->handle = r;
	h->repo = r ? ss_repo_git(r) : NULL;
	return 0;
}

/* First sorted entry whose id is not below prefix. */
static size_t lower_bound(const ss_histidx *h, const char *prefix, size_t len)
{
	size_t lo = 0, hi = h->nsorted;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strncmp(h->e[mid].id, prefix, len) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const struct hist_entry *hist_find_added(ss_histidx *h, const char *id)
{
	size_t i;

	maybe_sort(h);
	i = lower_bound(h, id, 40);
	if (i < h->nsorted && !strcmp(h->e[i].id, id))
		return &h->e[i];
	return pending_find(h, id);
}

const struct hist_entry *hist_entry_from_repo(ss_histidx *h, const git_oid *oid)
{
	struct hist_entry *e = NULL;
	git_commit *gc = NULL;
	ss_commit *c = NULL;
	char ids[1][41];
	const char *msg;

	if (git_commit_lookup(&gc, h->repo, oid) < 0) {
		ss_error_code(SS_ENOTFOUND, "cannot read commit %s: %s", git_oid_tostr_s(oid),
			      ss_git_error());
		goto out_free;
	}
	e = ss_arena_calloc(h->arena, 1, sizeof(*e));
	c = ss_commit_new();
	msg = git_commit_message(gc);
	if (!e || !c || !msg || ss_commit_set_message(c, msg, strlen(msg))) {
		ss_error_code(SS_ENOMEM, "out of memory");
		e = NULL;
		goto out_free;
	}
	git_oid_tostr(e->id, sizeof(e->id), oid);
	e->subject = ss_arena_strdup(h->arena, git_commit_summary(gc) ? git_commit_summary(gc) : "");
	if (!e->subject) {
		ss_error_code(SS_ENOMEM, "out of memory");
		e = NULL;
		goto out_free;
	}
	e->time = git_commit_time(gc);
	e->has_fixes = ss_commit_trailer(c, "Fixes", NULL) != NULL;
	e->is_revert = ss_histidx_revert_ids(ids, 1, msg) > 0;
	e->from_repo = 1;
	e->src = HIST_NO_SOURCE;
out_free:
	ss_commit_free(c);
	git_commit_free(gc);
	return e;
}

struct prefix_scan {
	git_odb *odb;
	const char *prefix;
	size_t len, n;
	git_oid ids[HIST_REPO_MATCHES];
};

static int scan_object(const git_oid *oid, void *data)
{
	struct prefix_scan *s = data;
	char hex[GIT_OID_HEXSZ + 1];
	git_object_t type;
	size_t size;

	git_oid_tostr(hex, sizeof(hex), oid);
	if (strncmp(hex, s->prefix, s->len))
		return 0;
	if (git_odb_read_header(&size, &type, s->odb, oid) < 0 || type != GIT_OBJECT_COMMIT)
		return 0;
	/* packs and loose objects may both hold an object */
	for (size_t i = 0; i < s->n && i < HIST_REPO_MATCHES; i++)
		if (git_oid_equal(&s->ids[i], oid))
			return 0;
	if (s->n < HIST_REPO_MATCHES)
		git_oid_cpy(&s->ids[s->n], oid);
	s->n++;
	return 0;
}

static int oid_cmp(const void *a, const void *b)
{
	return git_oid_cmp(a, b);
}

/* Commits of the repository whose id starts with prefix. */
static int repo_lookup(const struct hist_entry **out, size_t max, ss_histidx *h,
		       const char *prefix, size_t len)
{
	struct prefix_scan scan;
	git_object *obj = NULL;
	git_oid oid;
	size_t i;
	int err;

	if (git_oid_fromstrn(&oid, prefix, len) < 0)
		return ss_error_code(SS_EINVALID, "invalid commit id '%s'", prefix);
	err = git_object_lookup_prefix(&obj, h->repo, &oid, len, GIT_OBJECT_ANY);
	if (!err) {
		int is_commit = git_object_type(obj) == GIT_OBJECT_COMMIT;

		git_oid_cpy(&oid, git_object_id(obj));
		git_object_free(obj);
		if (!is_commit)
			return 0;
		if (max) {
			out[0] = hist_entry_from_repo(h, &oid);
			if (!out[0])
				return SS_ERROR;
		}
		return 1;
	}
	if (err == GIT_ENOTFOUND)
		return 0;
	if (err != GIT_EAMBIGUOUS)
		return ss_error_set("cannot look up '%s': %s", prefix, ss_git_error());
	/* libgit2 only says "ambiguous": list the commits (rare, and slow on
	 * big repositories, as it reads every object id) */
	memset(&scan, 0, sizeof(scan));
	scan.prefix = prefix;
	scan.len = len;
	if (git_repository_odb(&scan.odb, h->repo) < 0)
		return ss_error_set("cannot read objects of the repository: %s", ss_git_error());
	err = git_odb_foreach(scan.odb, scan_object, &scan);
	git_odb_free(scan.odb);
	if (err < 0)
		return ss_error_set("cannot list objects of the repository: %s", ss_git_error());
	if (scan.n > 1)
		qsort(scan.ids, scan.n < HIST_REPO_MATCHES ? scan.n : HIST_REPO_MATCHES,
		      sizeof(scan.ids[0]), oid_cmp);
	for (i = 0; i < scan.n && i < max && i < HIST_REPO_MATCHES; i++) {
		out[i] = hist_entry_from_repo(h, &scan.ids[i]);
		if (!out[i])
			return SS_ERROR;
	}
	return scan.n > (size_t)INT32_MAX ? INT32_MAX : (int)scan.n;
}

int hist_lookup(const struct hist_entry **out, size_t max, ss_histidx *h, const char *prefix,
		size_t len)
{
	size_t i, j, n = 0, lo;

	maybe_sort(h);
	lo = lower_bound(h, prefix, len);
	for (i = lo; i < h->nsorted && !strncmp(h->e[i].id, prefix, len); i++) {
		if (n < max)
			out[n] = &h->e[i];
		n++;
	}
	/* the unsorted tail: skip ids already met, keep out sorted by id */
	for (i = h->nsorted; i < h->n; i++) {
		const struct hist_entry *p = &h->e[i];
		size_t k;

		if (strncmp(p->id, prefix, len))
			continue;
		k = lower_bound(h, p->id, 40);
		if ((k < h->nsorted && !strcmp(h->e[k].id, p->id)) || pending_find(h, p->id) != p)
			continue;
		for (k = 0; k < n && k < max && strcmp(out[k]->id, p->id) < 0; k++)
			;
		if (k < max) {
			for (j = (n < max ? n : max - 1); j > k; j--)
				out[j] = out[j - 1];
			out[k] = p;
		}
		n++;
	}
	if (n || !h->repo)
		return n > (size_t)INT32_MAX ? INT32_MAX : (int)n;
	return repo_lookup(out, max, h, prefix, len);
}

void hist_entry_view(ss_histidx_commit *out, const struct hist_entry *e)
{
	memcpy(out->id, e->id, sizeof(out->id));
	out->subject = e->subject;
	out->time = e->time;
	out->has_fixes = e->has_fixes;
	out->is_revert = e->is_revert;
	out->from_repo = e->from_repo;
}

int ss_histidx_lookup_prefix(ss_histidx_commit *out, size_t max, ss_histidx *h,
			     const char *prefix)
{
	const struct hist_entry *found[HIST_REPO_MATCHES];
	char lower[41];
	size_t len = strlen(prefix), i;
	int n;

	if (len < 4 || len > 40)
		return ss_error_code(SS_EINVALID, "commit id '%s' is not 4 to 40 hex digits", prefix);
	for (i = 0; i < len; i++) {
		if (!is_hex((unsigned char)prefix[i]))
			return ss_error_code(SS_EINVALID, "commit id '%s' is not 4 to 40 hex digits",
					     prefix);
		lower[i] = (char)tolower((unsigned char)prefix[i]);
	}
	lower[len] = '\0';
	if (max > HIST_REPO_MATCHES)
		max = HIST_REPO_MATCHES;
	n = hist_lookup(found, max, h, lower, len);
	for (i = 0; n > 0 && i < (size_t)n && i < max; i++)
		hist_entry_view(&out[i], found[i]);
	return n;
}

int ss_histidx_rev_parse(char out[41], size_t *nparents, ss_histidx *h, const char *rev)
{
	git_object *obj = NULL, *peeled = NULL;
	int rc = 0;

	out[0] = '\0';
	if (!h->repo)
		return ss_error_code(SS_ENOTFOUND, "no repository to look '%s' up in", rev);
	if (git_revparse_single(&obj, h->repo, rev) < 0 ||
	    git_object_peel(&peeled, obj, GIT_OBJECT_COMMIT) < 0) {
		rc = ss_error_code(SS_ENOTFOUND, "unknown revision '%s': %s", rev, ss_git_error());
		goto out_free;
	}
	git_oid_tostr(out, 41, git_object_id(peeled));
	if (nparents)
		*nparents = git_commit_parentcount((git_commit *)peeled);
out_free:
	git_object_free(peeled);
	git_object_free(obj);
	return rc;
}
