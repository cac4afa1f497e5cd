/*
 * backports.c - the stable-tree labeler (see backports.h).
 *
 * A small open-addressing hash table maps upstream sha -> list of branch
 * ids; branch ids name either a git branch or an mbox series whose name is
 * resolved when the table is written.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "history/histidx.h"
#include "labels/backports.h"
#include "labels/upstream.h"
#include "source/git.h"
#include "util/error.h"
#include "util/hexid.h"
#include "util/grow.h"
#include "util/strbuf.h"
#include "util/strmap.h"

struct entry {
	char sha[41];
	uint32_t n;          /* next to sha so that a slot stays 72 bytes */
	uint32_t *ids;
	size_t cap;
	size_t order;
};

struct branch {
	char *name;          /* NULL for a series not yet named */
	int64_t *times;      /* author times of a series' commits */
	size_t ntimes, cap;
};

struct ss_backports {
	ss_backports_options opts;
	ss_upstream *up;
	struct entry *slots; /* capacity a power of two */
	size_t cap, count;
	struct entry **ordered; /* by discovery, count of ordcap */
	size_t ordcap;
	struct branch *br;
	size_t nbr, brcap;
	/* the mbox series being read */
	long cur_series;
	unsigned last_n, last_total;
	ss_strbuf out;
	/* the joined lists handed out, interned: a caller may keep several
	 * (a ranking's precedents) */
	ss_strmap *joined;
};

int ss_backports_new(ss_backports **out, const ss_backports_options *opts)
{
	static const ss_backports_options defaults = SS_BACKPORTS_OPTIONS_INIT;
	ss_backports *l;
	int rc;

	*out = NULL;
	l = calloc(1, sizeof(*l));
	if (!l)
		return SS_ENOMEM;
	l->opts = opts ? *opts : defaults;
	if (!l->opts.upstream_ref)
		l->opts.upstream_ref = "HEAD";
	l->cur_series = -1;
	l->out = (ss_strbuf)SS_STRBUF_INIT;
	rc = ss_upstream_new(&l->up, l->opts.patterns, l->opts.npatterns);
	if (rc) {
		free(l);
		return rc;
	}
	l->cap = 1024;
	l->slots = calloc(l->cap, sizeof(*l->slots));
	if (!l->slots) {
		ss_backports_free(l);
		return SS_ENOMEM;
	}
	*out = l;
	return 0;
}

void ss_backports_free(ss_backports *l)
{
	size_t i;

	if (!l)
		return;
	for (i = 0; i < l->cap; i++)
		free(l->slots[i].ids);
	free(l->slots);
	free(l->ordered);
	for (i = 0; i < l->nbr; i++) {
		free(l->br[i].name);
		free(l->br[i].times);
	}
	free(l->br);
	ss_upstream_free(l->up);
	ss_strbuf_release(&l->out);
	ss_strmap_free(l->joined);
	free(l);
}

static uint64_t hash_sha(const char *sha)
{
	uint64_t h = 1469598103934665603ULL; /* FNV-1a */

	while (*sha)
		h = (h ^ (unsigned char)*sha++) * 1099511628211ULL;
	return h;
}

static struct entry *lookup(ss_backports *l, const char *sha)
{
	size_t i = hash_sha(sha) & (l->cap - 1);

	while (l->slots[i].sha[0]) {
		if (!strcmp(l->slots[i].sha, sha))
			return &l->slots[i];
		i = (i + 1) & (l->cap - 1);
	}
	return &l->slots[i];
}

static int rehash(ss_backports *l)
{
	struct entry *old = l->slots;
	size_t oldcap = l->cap, i;

	l->cap *= 2;
	l->slots = calloc(l->cap, sizeof(*l->slots));
	if (!l->slots) {
		l->slots = old;
		l->cap = oldcap;
		return SS_ENOMEM;
	}
	for (i = 0; i < oldcap; i++)
		if (old[i].sha[0]) {
			struct entry *e = lookup(l, old[i].sha);

			*e = old[i];
			l->ordered[e->order] = e;
		}
	free(old);
	return 0;
}

static int add_ref(ss_backports *l, const char *sha, uint32_t id)
{
	struct entry *e;
	uint32_t i;

	if ((l->count + 1) * 2 > l->cap && rehash(l))
		return SS_ENOMEM;
	e = lookup(l, sha);
	if (!e->sha[0]) {
		if (SS_GROW(l->ordered, l->count + 1, l->ordcap))
			return SS_ENOMEM;
		memcpy(e->sha, sha, 41);
		e->order = l->count;
		l->ordered[l->count++] = e;
	}
	for (i = 0; i < e->n; i++)
		if (e->ids[i] == id)
			return 0;
	if (SS_GROW(e->ids, (size_t)e->n + 1, e->cap))
		return SS_ENOMEM;
	e->ids[e->n++] = id;
	return 0;
}

static long new_branch(ss_backports *l, const char *name)
{
	struct branch *br;

	if (SS_GROW(l->br, l->nbr + 1, l->brcap))
		return -1;
	br = l->br;
	memset(&br[l->nbr], 0, sizeof(*br));
	if (name && !(br[l->nbr].name = strdup(name)))
		return -1;
	return (long)l->nbr++;
}

static long branch_id(ss_backports *l, const char *name)
{
	size_t i;

	for (i = 0; i < l->nbr; i++)
		if (l->br[i].name && !strcmp(l->br[i].name, name))
			return (long)i;
	return new_branch(l, name);
}

/* Place c in the current mbox series, starting a new one when the
 * "[PATCH n/N]" numbering restarts. */
static long series_of(ss_backports *l, const ss_commit *c)
{
	struct branch *b;
	ss_release_version v;

	if (l->cur_series < 0 || c->patch_total != l->last_total || c->patch_n <= l->last_n) {
		l->cur_series = new_branch(l, NULL);
		if (l->cur_series < 0)
			return -1;
	}
	l->last_n = c->patch_n;
	l->last_total = c->patch_total;
	b = &l->br[l->cur_series];
	/* a release commit of a stable series ("version: 21.11.1", "Linux
	 * 6.6.12") names it: "21.11" */
	if (!b->name && !ss_release_version_of_subject(&v, c->subject) && v.patch[0]) {
		if (asprintf(&b->name, "%s.%s", v.major, v.minor) < 0) {
			b->name = NULL;
			return -1;
		}
	}
	if (SS_GROW(b->times, b->ntimes + 1, b->cap))
		return -1;
	b->times[b->ntimes++] = c->author.time;
	return l->cur_series;
}

int ss_backports_add(ss_backports *l, const ss_commit *c, const char *branch)
{
	char shas[16][41];
	size_t n, i;
	long id;

	id = branch ? branch_id(l, branch) : series_of(l, c);
	if (id < 0)
		return SS_ENOMEM;
	n = ss_upstream_find(l->up, c->message, shas, 16);
	for (i = 0; i < n; i++)
		if (add_ref(l, shas[i], (uint32_t)id))
			return SS_ENOMEM;
	return 0;
}

int ss_backports_add_known(ss_backports *l, const char *sha, const char *branch)
{
	long id;

	if (!ss_hexid_is_full(sha, strlen(sha)))
		return ss_error_code(SS_EINVALID, "'%s' is not a full commit id", sha);
	id = branch_id(l, branch);
	if (id < 0 || add_ref(l, sha, (uint32_t)id))
		return ss_error_code(SS_ENOMEM, "out of memory");
	return 0;
}

/* What read_source() hands its callbacks. */
struct reading {
	ss_backports *l;
	const char *branch;
	size_t *skipped;
	char first[1024];   /* the first message skipped */
};

static int read_one(ss_commit *c, void *ud)
{
	struct reading *r = ud;
	int rc = ss_backports_add(r->l, c, r->branch);

	ss_commit_free(c);
	return rc;
}

static int read_skipped(void *ud)
{
	struct reading *r = ud;

	if (!r->first[0])
		snprintf(r->first, sizeof(r->first), "%s", ss_error_last());
	if (r->skipped)
		(*r->skipped)++;
	return 0;
}

static int read_source(ss_backports *l, const char *spec, const ss_source_options *so,
		       const char *branch, size_t *skipped)
{
	struct reading r = { l, branch, skipped, "" };
	ss_source *src;
	int rc = ss_source_open(&src, spec, so);

	if (rc)
		return rc;
	rc = ss_source_each(src, read_one, read_skipped, &r);
	ss_source_free(src);
	if (!rc && r.first[0])
		ss_error_set("%s", r.first);
	return rc;
}

int ss_backports_read(ss_backports *l, const char *spec, size_t *skipped)
{
	ss_source_options so = SS_SOURCE_OPTIONS_INIT;
	char **names = NULL, hide[512];
	const char *revs[2];
	size_t n = 0, i;
	int rc;

	so.with_diff = 0;
	if (!ss_source_is_repository(spec))
		return read_source(l, spec, &so, NULL, skipped);
	if (!strncmp(spec, "git:", 4))
		spec += 4;
	rc = ss_git_branches(&names, &n, spec, l->opts.branches);
	if (rc)
		return rc;
	if (!n) {
		ss_git_free_names(names, n);
		return ss_error_code(SS_ENOTFOUND, "no branch of '%s' matches '%s'", spec,
				     l->opts.branches ? l->opts.branches : "*");
	}
	snprintf(hide, sizeof(hide), "^%s", l->opts.upstream_ref);
	so.repo = spec;
	so.revs = revs;
	so.nrevs = 2;
	for (i = 0; i < n && !rc; i++) {
		if (!strcmp(names[i], l->opts.upstream_ref))
			continue;
		revs[0] = names[i];
		revs[1] = hide;
		rc = read_source(l, spec, &so, names[i], skipped);
	}
	ss_git_free_names(names, n);
	return rc;
}

size_t ss_backports_count(const ss_backports *l)
{
	return l->count;
}

static int cmp_time(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* Name the series that had no release commit, from the releases file:
 * the newest release at or before the median time of its commits. */
static int name_series(ss_backports *l)
{
	ss_releases *rel = NULL;
	size_t nrel = 0, i, j;
	int rc = 0;

	for (i = 0; i < l->nbr && l->br[i].name; i++)
		;
	if (i == l->nbr)
		return 0;
	if (l->opts.releases) {
		if ((rc = ss_releases_load_tsv(&rel, l->opts.releases)))
			return rc;
		nrel = ss_releases_count(rel);
	}
	for (i = 0; i < l->nbr; i++) {
		struct branch *b = &l->br[i];
		const ss_release *best = NULL;
		ss_release_version v;
		int64_t median;

		if (b->name)
			continue;
		if (b->ntimes && nrel) {
			qsort(b->times, b->ntimes, sizeof(*b->times), cmp_time);
			median = b->times[b->ntimes / 2];
			for (j = 0; j < nrel; j++) {
				const ss_release *r = ss_releases_get(rel, j);

				if (r->time <= median && (!best || r->time > best->time))
					best = r;
			}
		}
		/* "21.11" of "v21.11.1" or "21.11" */
		if (best && !ss_release_version_parse(&v, best->tag))
			rc = asprintf(&b->name, "%s.%s", v.major, v.minor);
		else if (best)
			rc = asprintf(&b->name, "%s", best->tag[0] == 'v' ? best->tag + 1 : best->tag);
		else
			rc = asprintf(&b->name, "series-%zu", i + 1);
		if (rc < 0) {
			b->name = NULL;
			rc = SS_ENOMEM;
			break;
		}
		rc = 0;
	}
	ss_releases_free(rel);
	return rc;
}

static int cmp_names(const void *a, const void *b)
{
	return strverscmp(*(char *const *)a, *(char *const *)b);
}

static const char *join_branches(ss_backports *l, const struct entry *e)
{
	const char *names[256];
	size_t n = 0, i, j;

	for (i = 0; i < e->n && n < 256; i++) {
		const char *nm = l->br[e->ids[i]].name;

		for (j = 0; j < n && strcmp(names[j], nm); j++)
			;
		if (j == n)
			names[n++] = nm;
	}
	qsort(names, n, sizeof(*names), cmp_names);
	ss_strbuf_reset(&l->out);
	for (i = 0; i < n; i++) {
		if (i)
			ss_strbuf_addch(&l->out, ',');
		ss_strbuf_adds(&l->out, names[i]);
	}
	return l->out.buf;
}

const char *ss_backports_branches(ss_backports *l, const char *sha)
{
	struct entry *e;
	const char *s;
	uint32_t id;

	if (name_series(l))
		return NULL;
	e = lookup(l, sha);
	if (!e->sha[0])
		return NULL;
	s = join_branches(l, e);
	if ((!l->joined && ss_strmap_new(&l->joined)) ||
	    ss_strmap_intern(l->joined, s, strlen(s), &id))
		return NULL;
	return ss_strmap_str(l->joined, id);
}

int ss_backports_write(ss_backports *l, FILE *f)
{
	size_t i;
	int rc = name_series(l);

	if (rc)
		return rc;
	fprintf(f, "sha\tin_stable\tstable_branches\n");
	for (i = 0; i < l->count; i++)
		fprintf(f, "%s\t1\t%s\n", l->ordered[i]->sha, join_branches(l, l->ordered[i]));
	return ferror(f) ? ss_error_set("cannot write labels") : 0;
}
