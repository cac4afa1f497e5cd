/*
 * upstream.c - backport references in stable commit messages (upstream.h).
 *
 * POSIX regexes (regcomp with REG_ICASE) match the phrases; no library
 * knows these conventions, and the table is small.
 */
#include <ctype.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "labels/upstream.h"
#include "util/error.h"

#define SHA "([0-9a-f]{40})"

static const char *const builtin[] = {
	"commit[[:space:]]+" SHA "[[:space:]]+upstream",
	"\\[[[:space:]]*upstream[[:space:]]+commit[[:space:]]+" SHA,
	"upstream[[:space:]]+commit[[:space:]:]+" SHA,
	"backported[[:space:]]+from[[:space:]]+upstream[[:space:]]+commit[[:space:]]+" SHA,
	"cherry[[:space:]]+picked[[:space:]]+from[[:space:]]+commit[[:space:]]+" SHA,
};

struct ss_upstream {
	regex_t *re;
	size_t n;
};

int ss_upstream_new(ss_upstream **out, const char **extra, size_t nextra)
{
	size_t nb = sizeof(builtin) / sizeof(builtin[0]), i;
	ss_upstream *u;

	*out = NULL;
	u = calloc(1, sizeof(*u));
	if (!u || !(u->re = calloc(nb + nextra, sizeof(*u->re)))) {
		free(u);
		return SS_ENOMEM;
	}
	for (i = 0; i < nb + nextra; i++) {
		const char *pat = i < nb ? builtin[i] : extra[i - nb];
		int rc = regcomp(&u->re[i], pat, REG_EXTENDED | REG_ICASE);

		if (rc) {
			char msg[256];

			regerror(rc, &u->re[i], msg, sizeof(msg));
			ss_upstream_free(u);
			return ss_error_code(SS_EINVALID, "bad upstream pattern '%s': %s", pat, msg);
		}
		u->n++;
	}
	*out = u;
	return 0;
}

void ss_upstream_free(ss_upstream *u)
{
	size_t i;

	if (!u)
		return;
	for (i = 0; i < u->n; i++)
		regfree(&u->re[i]);
	free(u->re);
	free(u);
}

/* The first run of exactly 40 hex digits in [s, e), or NULL. */
static const char *find_sha(const char *s, const char *e)
{
	const char *p = s;

	while (p < e) {
		const char *q = p;

		while (q < e && isxdigit((unsigned char)*q))
			q++;
		if (q - p == 40)
			return p;
		p = q < e ? q + 1 : e;
	}
	return NULL;
}

static size_t add_sha(char (*out)[41], size_t n, size_t max, const char *sha)
{
	size_t i;
	char low[41];

	for (i = 0; i < 40; i++)
		low[i] = (char)tolower((unsigned char)sha[i]);
	low[40] = '\0';
	for (i = 0; i < n; i++)
		if (!strcmp(out[i], low))
			return n;
	if (n < max)
		memcpy(out[n++], low, 41);
	return n;
}

size_t ss_upstream_find(const ss_upstream *u, const char *message, char (*out)[41], size_t max)
{
	size_t i, n = 0;

	for (i = 0; i < u->n; i++) {
		const char *p = message;
		regmatch_t m[8];

		while (*p && !regexec(&u->re[i], p, 8, m, p == message ? 0 : REG_NOTBOL)) {
			const char *sha = NULL;
			size_t g;

			for (g = 1; g < 8 && !sha; g++)
				if (m[g].rm_so >= 0 && m[g].rm_eo - m[g].rm_so == 40)
					sha = p + m[g].rm_so;
			if (!sha)
				sha = find_sha(p + m[0].rm_so, p + m[0].rm_eo);
			if (sha)
				n = add_sha(out, n, max, sha);
			if (m[0].rm_eo == 0)
				break;
			p += m[0].rm_eo;
		}
	}
	return n;
}
