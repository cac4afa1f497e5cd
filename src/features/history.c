/* history.c - abbreviated ids, releases and path ages of past commits (see
 * history.h).  Three interning maps; times live in side arrays by id. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "features/history.h"
#include "features/strmap.h"
#include "util/error.h"

struct ss_history {
	ss_strmap *ids12, *ids7, *paths;
	int64_t *t12, *t7, *tpath;
	size_t cap12, cap7, cappath;
	int64_t *releases;  /* sorted ascending */
	char (*lines)[8];   /* release line of each release, same order */
	size_t nrel, caprel;
	size_t count;
};

int ss_history_new(ss_history **out)
{
	ss_history *h = calloc(1, sizeof(*h));

	*out = NULL;
	if (!h)
		return SS_ENOMEM;
	if (ss_strmap_new(&h->ids12) || ss_strmap_new(&h->ids7) || ss_strmap_new(&h->paths)) {
		ss_history_free(h);
		return SS_ENOMEM;
	}
	*out = h;
	return 0;
}

void ss_history_free(ss_history *h)
{
	if (!h)
		return;
	ss_strmap_free(h->ids12);
	ss_strmap_free(h->ids7);
	ss_strmap_free(h->paths);
	free(h->t12);
	free(h->t7);
	free(h->tpath);
	free(h->releases);
	free(h->lines);
	free(h);
}

/* Record t for key unless the key is known (the first commit wins). */
static int remember(ss_strmap *m, int64_t **times, size_t *cap, const char *key, size_t len,
		    int64_t t)
{
	size_t before = ss_strmap_count(m);
	uint32_t id;
	int rc;

	if ((rc = ss_strmap_intern(m, key, len, &id)))
		return rc;
	if (ss_strmap_count(m) == before)
		return 0;
	if (id >= *cap) {
		size_t ncap = *cap ? *cap * 2 : 4096;
		int64_t *p = realloc(*times, ncap * sizeof(*p));

		if (!p)
			return SS_ENOMEM;
		*times = p;
		*cap = ncap;
	}
	(*times)[id] = t;
	return 0;
}

/* The release line of a release subject into line[8]; 0 when c is no
 * release. */
static int release_line(const ss_commit *c, char *line)
{
	const char *s = c->subject, *p, *v, *dot;
	size_t n;

	if (!s)
		return 0;
	if (!strncmp(s, "version: ", 9))
		p = s + 9;
	else if (!strncmp(s, "Linux ", 6))
		p = s + 6;
	else
		return 0;
	if (!isdigit((unsigned char)*p))
		return 0;
	v = p;
	while (isdigit((unsigned char)*p) || *p == '.')
		p++;
	/* "21.11" or "21.11.0" but not "21.11-rc1" */
	if (!(*p == '\0' || *p == ' ' || *p == '\n'))
		return 0;
	dot = memchr(v, '.', (size_t)(p - v));
	if (!dot)
		return 0;
	dot++;
	n = strspn(dot, "0123456789");
	if (!n || n > 7)
		return 0;
	memcpy(line, dot, n);
	line[n] = '\0';
	return 1;
}

int ss_history_is_release(const ss_commit *c)
{
	char line[8];

	return release_line(c, line);
}

int ss_history_add(ss_history *h, const ss_commit *c)
{
	char low[41], line[8];
	size_t i, len = strlen(c->id);
	int64_t t = c->author.time;
	int rc;

	for (i = 0; i < len && i < 40; i++)
		low[i] = (char)tolower((unsigned char)c->id[i]);
	low[i] = '\0';
	if (len >= 12 && (rc = remember(h->ids12, &h->t12, &h->cap12, low, 12, t)))
		return rc;
	if (len >= 7 && (rc = remember(h->ids7, &h->t7, &h->cap7, low, 7, t)))
		return rc;
	for (i = 0; i < c->nfiles; i++) {
		const char *p = ss_file_path(&c->files[i]);

		if ((rc = remember(h->paths, &h->tpath, &h->cappath, p, strlen(p), t)))
			return rc;
	}
	if (release_line(c, line)) {
		size_t k;

		if (h->nrel == h->caprel) {
			size_t ncap = h->caprel ? h->caprel * 2 : 64;
			int64_t *p = realloc(h->releases, ncap * sizeof(*p));
			char (*l)[8];

			if (!p)
				return SS_ENOMEM;
			h->releases = p;
			l = realloc(h->lines, ncap * sizeof(*l));
			if (!l)
				return SS_ENOMEM;
			h->lines = l;
			h->caprel = ncap;
		}
		for (k = h->nrel; k > 0 && h->releases[k - 1] > t; k--) {
			h->releases[k] = h->releases[k - 1];
			memcpy(h->lines[k], h->lines[k - 1], sizeof(h->lines[k]));
		}
		h->releases[k] = t;
		memcpy(h->lines[k], line, sizeof(line));
		h->nrel++;
	}
	h->count++;
	return 0;
}

int64_t ss_history_time(const ss_history *h, const char *hex, size_t len)
{
	char low[12];
	size_t i, use = len >= 12 ? 12 : 7;
	uint32_t id;

	if (len < 7)
		return -1;
	for (i = 0; i < use; i++)
		low[i] = (char)tolower((unsigned char)hex[i]);
	if (use == 12) {
		id = ss_strmap_find(h->ids12, low, 12);
		return id == SS_STRMAP_NONE ? -1 : h->t12[id];
	}
	id = ss_strmap_find(h->ids7, low, 7);
	return id == SS_STRMAP_NONE ? -1 : h->t7[id];
}

/* Index of the first release > t. */
static size_t first_after(const ss_history *h, int64_t t)
{
	size_t lo = 0, hi = h->nrel;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (h->releases[mid] <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int64_t ss_history_release_before(const ss_history *h, int64_t t)
{
	size_t k = first_after(h, t);

	return k ? h->releases[k - 1] : -1;
}

size_t ss_history_releases_between(const ss_history *h, int64_t after, int64_t until)
{
	size_t a = first_after(h, after), b = first_after(h, until);

	return b > a ? b - a : 0;
}

size_t ss_history_release_lines(const ss_history *h, int64_t after, int64_t until,
				const char **out, size_t max)
{
	size_t a = first_after(h, after), b = first_after(h, until), n = 0;

	while (b > a && n < max)
		out[n++] = h->lines[--b];
	return n;
}

int64_t ss_history_path_time(const ss_history *h, const char *path)
{
	uint32_t id = ss_strmap_find(h->paths, path, strlen(path));

	return id == SS_STRMAP_NONE ? -1 : h->tpath[id];
}

size_t ss_history_count(const ss_history *h)
{
	return h->count;
}
