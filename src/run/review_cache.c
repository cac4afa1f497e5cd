/*
 * review_cache.c - a review's ranking kept for the next start
 * (review_cache.h): the key, the file (a header line, then each field as
 * "<length>:<bytes>\n"), the decisions made since.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "run/decisions.h"
#include "run/review_cache.h"
#include "util/atomic.h"
#include "util/error.h"
#include "util/strbuf.h"

#define MAGIC "stablesel review ranking 2\n"

/* Strings an item keeps, in file order. */
#define ITEM_FIELDS 13

struct ss_review_cache {
	char *buf;                /* the file, its fields NUL-terminated in place */
	ss_review_item *items;
	const char **strs;        /* branches then hidden ids */
	ss_review_cache_data d;
};

static void fnv(uint64_t *h, const void *p, size_t len)
{
	const unsigned char *s = p;

	for (size_t i = 0; i < len; i++)
		*h = (*h ^ s[i]) * 0x100000001b3ull;
	*h = (*h ^ 0xff) * 0x100000001b3ull;  /* ends each part */
}

/* The identity of the file at path: size, change time and inode ("-"
 * when missing). */
static void hash_file(uint64_t *h, const char *path)
{
	struct stat st;
	char buf[128];

	if (stat(path, &st))
		snprintf(buf, sizeof(buf), "-");
	else
		snprintf(buf, sizeof(buf), "%jd %jd.%09ld %ju %jd.%09ld", (intmax_t)st.st_size,
			 (intmax_t)st.st_mtim.tv_sec, st.st_mtim.tv_nsec, (uintmax_t)st.st_ino,
			 (intmax_t)st.st_ctim.tv_sec, st.st_ctim.tv_nsec);
	fnv(h, path, strlen(path));
	fnv(h, buf, strlen(buf));
}

int ss_review_cache_key_of(ss_review_cache_key out, ss_index *ix, const char *index_path,
			   const char *model, const char *const *parts, size_t n)
{
	/* beside <gitdir>/stablesel/index.db: the project model, and the
	 * repository's refs one folder up (a ref written is a file renamed
	 * into its folder, which changes the folder) */
	static const char *const beside[] = { "project.model", "../HEAD", "../packed-refs",
					      "../refs/heads", "../refs/tags", "../refs/remotes" };
	uint64_t h = 0xcbf29ce484222325ull, state;
	const char *slash = strrchr(index_path, '/');
	ss_strbuf p = SS_STRBUF_INIT;
	int rc;

	out[0] = '\0';
	if ((rc = ss_index_state_hash(ix, &state)))
		return rc;
	fnv(&h, &state, sizeof(state));
	for (size_t i = 0; i < sizeof(beside) / sizeof(beside[0]); i++) {
		ss_strbuf_reset(&p);
		if (slash)
			ss_strbuf_add(&p, index_path, (size_t)(slash - index_path + 1));
		if (ss_strbuf_adds(&p, beside[i])) {
			ss_strbuf_release(&p);
			return SS_ENOMEM;
		}
		hash_file(&h, p.buf);
	}
	ss_strbuf_release(&p);
	if (model)
		hash_file(&h, model);
	for (size_t i = 0; i < n; i++)
		fnv(&h, parts[i] ? parts[i] : "", parts[i] ? strlen(parts[i]) : 0);
	snprintf(out, sizeof(ss_review_cache_key), "%016" PRIx64, h);
	return 0;
}

int ss_review_cache_path(char **out, const char *index_path)
{
	const char *slash = strrchr(index_path, '/');
	ss_strbuf p = SS_STRBUF_INIT;

	*out = NULL;
	if ((slash && ss_strbuf_add(&p, index_path, (size_t)(slash - index_path + 1))) ||
	    ss_strbuf_adds(&p, "review-ranking")) {
		ss_strbuf_release(&p);
		return SS_ENOMEM;
	}
	*out = p.buf;
	return 0;
}

static void put(FILE *f, const char *s)
{
	s = s ? s : "";
	fprintf(f, "%zu:", strlen(s));
	fwrite(s, 1, strlen(s), f);
	fputc('\n', f);
}

int ss_review_cache_save(const char *path, const ss_review_cache_key key,
			 const ss_review_cache_data *d)
{
	ss_atomic *a;
	FILE *f;
	int rc;

	if ((rc = ss_atomic_open(&a, path)))
		return rc;
	f = ss_atomic_file(a);
	fprintf(f, "%s%s %" PRId64 " %zu %zu %zu\n", MAGIC, key, d->made, d->nbranches, d->nhidden,
		d->n);
	for (size_t b = 0; b < d->nbranches; b++)
		put(f, d->branches[b]);
	for (size_t i = 0; i < d->nhidden; i++)
		put(f, d->hidden[i]);
	for (size_t i = 0; i < d->n; i++) {
		const ss_review_item *it = &d->items[i];
		char score[32];

		snprintf(score, sizeof(score), "%.9g", (double)it->score);
		put(f, it->id);
		put(f, it->subject);
		put(f, it->author);
		put(f, it->date);
		put(f, score);
		put(f, it->band);
		put(f, it->verdicts);
		put(f, it->conflict);
		put(f, it->flags);
		put(f, it->reasons);
		put(f, it->message);
		put(f, it->diff);
		put(f, it->manual_only ? "manual" : "");
	}
	return ss_atomic_commit(a);
}

/* The next field at *p (below end), NUL-terminated in place; NULL when
 * the file is cut short or malformed. */
static const char *take(char **p, const char *end)
{
	char *q = *p, *colon;
	unsigned long long len;

	if (q >= end || !(colon = memchr(q, ':', (size_t)(end - q))))
		return NULL;
	errno = 0;
	len = strtoull(q, NULL, 10);
	if (errno || len > (unsigned long long)(end - colon - 1) || colon[1 + len] != '\n')
		return NULL;
	colon[1 + len] = '\0';
	*p = colon + 2 + len;
	return colon + 1;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	ss_strbuf sb = SS_STRBUF_INIT;
	char chunk[65536];
	size_t got;

	if (!f)
		return NULL;
	while ((got = fread(chunk, 1, sizeof(chunk), f)) > 0)
		if (ss_strbuf_add(&sb, chunk, got)) {
			fclose(f);
			ss_strbuf_release(&sb);
			return NULL;
		}
	fclose(f);
	*len = sb.len;
	return sb.buf ? sb.buf : calloc(1, 1);
}

int ss_review_cache_load(ss_review_cache **out, const char *path, const ss_review_cache_key key)
{
	ss_review_cache *c = calloc(1, sizeof(*c));
	size_t len = 0, nb, nh, n;
	long long made;
	char k[17], *p, *end;
	int used = 0;

	*out = NULL;
	if (!c)
		return SS_ENOMEM;
	if (!(c->buf = slurp(path, &len)) || strncmp(c->buf, MAGIC, strlen(MAGIC)))
		goto not_found;
	end = c->buf + len;
	p = c->buf + strlen(MAGIC);
	if (sscanf(p, "%16s %lld %zu %zu %zu%n", k, &made, &nb, &nh, &n, &used) != 5 || !used ||
	    strcmp(k, key) || nb > 64 || nh > len || n > len)
		goto not_found;
	p += used;
	if (p >= end || *p++ != '\n')
		goto not_found;
	if (!(c->items = calloc(n + 1, sizeof(*c->items))) || !(c->strs = calloc(nb + nh + 1, sizeof(*c->strs))))
		goto nomem;
	for (size_t i = 0; i < nb + nh; i++)
		if (!(c->strs[i] = take(&p, end)))
			goto not_found;
	for (size_t i = 0; i < n; i++) {
		const char *f[ITEM_FIELDS];

		for (int j = 0; j < ITEM_FIELDS; j++)
			if (!(f[j] = take(&p, end)))
				goto not_found;
		c->items[i] = (ss_review_item){ .id = f[0], .subject = f[1], .author = f[2], .date = f[3],
						.score = strtof(f[4], NULL), .band = f[5],
						.verdicts = f[6], .conflict = f[7], .flags = f[8],
						.reasons = f[9], .message = f[10], .diff = f[11],
						.manual_only = !strcmp(f[12], "manual") };
		if (strlen(c->items[i].id) != 40)
			goto not_found;
	}
	c->d = (ss_review_cache_data){ c->items, n, c->strs, nb, c->strs + nb, nh, (int64_t)made };
	*out = c;
	return 0;
nomem:
	ss_review_cache_free(c);
	return SS_ENOMEM;
not_found:
	ss_review_cache_free(c);
	return SS_ENOTFOUND;
}

const ss_review_cache_data *ss_review_cache_get(const ss_review_cache *c)
{
	return &c->d;
}

void ss_review_cache_free(ss_review_cache *c)
{
	if (!c)
		return;
	free(c->buf);
	free(c->items);
	free(c->strs);
	free(c);
}

int ss_review_cache_decided(int *out, ss_index *ix, const char *id, const char *const *branches,
			    size_t nb, int64_t now)
{
	size_t decided = 0;
	int rc;

	*out = 0;
	for (size_t b = 0; b < nb; b++) {
		ss_decision_owned od;
		int found;

		if ((rc = ss_index_decision_get(&od, &found, ix, id, branches[b])))
			return rc;
		if (!found)
			return 0;
		decided += ss_run_decision_active(ix, &od.d, now) != 0;
		ss_decision_owned_release(&od);
	}
	*out = nb && decided == nb;
	return 0;
}
