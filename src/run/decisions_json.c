/*
 * decisions_json.c - the review decisions as JSON a team keeps in git
 * (decisions_json.h; "stablesel review --export FILE / --import FILE",
 * whose command side, one concept split across two floors, is
 * cmd/review_share.c):
 *
 *   {"stablesel_decisions": 1, "decisions": [
 *   {"commit": "<40 hex>", "branch": "21.11", "patch_id": "<40 hex or empty>",
 *    "state": "accepted", "until": "", "who": "Name <email>", "time": 1796375441,
 *    "note": ""},
 *   ...]}
 *
 * one decision a line, by branch then commit.  The reader takes exactly
 * this shape (keys in any order, unknown keys ignored, JSON escapes
 * decoded); anything else is one error naming the file and line.
 */
#include "run/decisions_json.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/grow.h"
#include "util/hexid.h"
#include "util/strbuf.h"

/* s as a JSON string: always valid UTF-8 (a byte that is none, from an
 * index written before notes were checked, as U+FFFD). */
static void json_string(FILE *f, const char *s)
{
	ss_strbuf sb = SS_STRBUF_INIT;

	if (ss_strbuf_add_json(&sb, s))
		fputs("\"\"", f);
	else
		fputs(sb.buf, f);
	ss_strbuf_release(&sb);
}

struct export {
	FILE *f;
	size_t n;
};

static int export_one(const ss_decision *d, void *ud)
{
	struct export *x = ud;

	fprintf(x->f, "%s\n{\"commit\": \"%s\", \"branch\": ", x->n ? "," : "", d->commit);
	json_string(x->f, d->branch);
	fprintf(x->f, ", \"patch_id\": \"%s\", \"state\": \"%s\", \"until\": ", d->patch_id,
		ss_decision_state_name(d->state));
	json_string(x->f, d->until);
	fprintf(x->f, ", \"who\": ");
	json_string(x->f, d->who);
	fprintf(x->f, ", \"time\": %lld, \"note\": ", (long long)d->time);
	json_string(x->f, d->note);
	fputc('}', x->f);
	x->n++;
	return 0;
}

int ss_run_decisions_export(FILE *f, ss_index *ix, size_t *n)
{
	struct export x = { f, 0 };

	fprintf(x.f, "{\"stablesel_decisions\": 1, \"decisions\": [");
	if (ss_index_for_each_decision(ix, NULL, export_one, &x))
		return SS_ERROR;
	fprintf(x.f, "%s]}\n", x.n ? "\n" : "");
	*n = x.n;
	return 0;
}

/* ------------------------------------------------------------------ */
/* The reader. */

struct reader {
	const char *file, *p, *start;
	char err[300];
};

static int fail(struct reader *r, const char *what)
{
	size_t line = 1;

	for (const char *q = r->start; q < r->p; q++)
		line += *q == '\n';
	if (!r->err[0])
		snprintf(r->err, sizeof(r->err), "%s:%zu: %s", r->file, line, what);
	return -1;
}

static void ws(struct reader *r)
{
	while (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r')
		r->p++;
}

static int expect(struct reader *r, char c)
{
	char what[40];

	ws(r);
	if (*r->p != c) {
		snprintf(what, sizeof(what), "'%c' expected", c);
		return fail(r, what);
	}
	r->p++;
	return 0;
}

static void utf8(ss_strbuf *sb, unsigned cp)
{
	if (cp < 0x80) {
		ss_strbuf_addch(sb, (int)cp);
	} else if (cp < 0x800) {
		ss_strbuf_addch(sb, (int)(0xc0 | cp >> 6));
		ss_strbuf_addch(sb, (int)(0x80 | (cp & 0x3f)));
	} else if (cp < 0x10000) {
		ss_strbuf_addch(sb, (int)(0xe0 | cp >> 12));
		ss_strbuf_addch(sb, (int)(0x80 | (cp >> 6 & 0x3f)));
		ss_strbuf_addch(sb, (int)(0x80 | (cp & 0x3f)));
	} else {
		ss_strbuf_addch(sb, (int)(0xf0 | cp >> 18));
		ss_strbuf_addch(sb, (int)(0x80 | (cp >> 12 & 0x3f)));
		ss_strbuf_addch(sb, (int)(0x80 | (cp >> 6 & 0x3f)));
		ss_strbuf_addch(sb, (int)(0x80 | (cp & 0x3f)));
	}
}

/* Four hex digits at p into *cp; -1 when they are not. */
static int hex4(const char *p, unsigned *cp)
{
	*cp = 0;
	for (int i = 0; i < 4; i++) {
		int v = ss_hexid_digit((unsigned char)p[i]);

		if (v < 0)
			return -1;
		*cp = *cp << 4 | (unsigned)v;
	}
	return 0;
}

/*
 * The \\u escape at r->p (on the 'u') into sb: a surrogate pair is one
 * code point (4 bytes of UTF-8, never CESU-8), a lone surrogate and
 * \\u0000 are refused.  r->p is left on the last hex digit.
 */
static int unicode_escape(struct reader *r, ss_strbuf *sb)
{
	unsigned cp, lo;

	if (hex4(r->p + 1, &cp))
		return fail(r, "bad \\u escape");
	r->p += 4;
	if (!cp)
		return fail(r, "\\u0000 in a string");
	if (cp >= 0xdc00 && cp <= 0xdfff)
		return fail(r, "a lone low surrogate in a string");
	if (cp >= 0xd800 && cp <= 0xdbff) {
		if (r->p[1] != '\\' || r->p[2] != 'u' || hex4(r->p + 3, &lo) || lo < 0xdc00 ||
		    lo > 0xdfff)
			return fail(r, "a lone high surrogate in a string");
		cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
		r->p += 6;
	}
	utf8(sb, cp);
	return 0;
}

/* The raw UTF-8 sequence at r->p into sb (r->p past it); refused when
 * it is none (a Latin-1 byte, an overlong form, a surrogate). */
static int raw_utf8(struct reader *r, ss_strbuf *sb)
{
	const unsigned char *p = (const unsigned char *)r->p;
	size_t n = p[0] < 0x80 ? 1 : (p[0] & 0xe0) == 0xc0 ? 2 : (p[0] & 0xf0) == 0xe0 ? 3
		   : (p[0] & 0xf8) == 0xf0 ? 4 : 0;
	char seq[5];

	for (size_t i = 1; i < n; i++)
		if (!p[i]) {
			n = 0;
			break;
		}
	if (n) {
		memcpy(seq, p, n);
		seq[n] = '\0';
	}
	if (!n || !ss_utf8_valid(seq, n))
		return fail(r, "a string that is not valid UTF-8");
	ss_strbuf_add(sb, p, n);
	r->p += n;
	return 0;
}

/* A JSON string into *out (malloc'd). */
static int string(struct reader *r, char **out)
{
	ss_strbuf sb = SS_STRBUF_INIT;

	*out = NULL;
	if (expect(r, '"'))
		return -1;
	while (*r->p != '"') {
		unsigned char c = (unsigned char)*r->p;

		if (!c || c < 0x20) {
			ss_strbuf_release(&sb);
			return fail(r, "unterminated string");
		}
		if (c != '\\') {
			if (raw_utf8(r, &sb)) {
				ss_strbuf_release(&sb);
				return -1;
			}
			continue;
		}
		r->p++;
		switch (*r->p) {
		case '"': case '\\': case '/':
			ss_strbuf_addch(&sb, *r->p);
			break;
		case 'n': ss_strbuf_addch(&sb, '\n'); break;
		case 't': ss_strbuf_addch(&sb, '\t'); break;
		case 'r': ss_strbuf_addch(&sb, '\r'); break;
		case 'b': ss_strbuf_addch(&sb, '\b'); break;
		case 'f': ss_strbuf_addch(&sb, '\f'); break;
		case 'u':
			if (unicode_escape(r, &sb)) {
				ss_strbuf_release(&sb);
				return -1;
			}
			break;
		default:
			ss_strbuf_release(&sb);
			return fail(r, "bad escape in a string");
		}
		r->p++;
	}
	r->p++;
	*out = ss_strbuf_detach(&sb, NULL);
	return *out ? 0 : fail(r, "out of memory");
}

/* "time": digits, 0 up to the end of year 9999 (no sign, fraction,
 * exponent, nor a number strtoll would clamp). */
static int read_time(struct reader *r, int64_t *out)
{
	char *end;
	long long t;

	if (!isdigit((unsigned char)*r->p))
		return fail(r, "\"time\" is no integer of seconds from 1970");
	errno = 0;
	t = strtoll(r->p, &end, 10);
	if (*end == '.' || *end == 'e' || *end == 'E')
		return fail(r, "\"time\" is no integer of seconds from 1970");
	if (errno == ERANGE || t > SS_DECISION_TIME_MAX)
		return fail(r, "\"time\" is out of range (after the year 9999)");
	*out = t;
	r->p = end;
	return 0;
}

/* One decision object; its strings into owned[0..4]. */
static int decision(struct reader *r, ss_decision *d, char *owned[5])
{
	int have_time = 0;

	memset(d, 0, sizeof(*d));
	if (expect(r, '{'))
		return -1;
	for (;;) {
		char *key = NULL, *val = NULL;

		if (string(r, &key) || expect(r, ':')) {
			free(key);
			return -1;
		}
		ws(r);
		if (!strcmp(key, "time")) {
			if (read_time(r, &d->time)) {
				free(key);
				return -1;
			}
			have_time = 1;
		} else if (string(r, &val)) {
			free(key);
			return fail(r, "values are strings, \"time\" an integer");
		}
		if (!strcmp(key, "commit") || !strcmp(key, "patch_id")) {
			char *dst = key[0] == 'c' ? d->commit : d->patch_id;
			size_t len = strlen(val);

			if ((len || key[0] == 'c') && !ss_hexid_is_full(val, len)) {
				free(key);
				free(val);
				return fail(r, "a commit or patch id that is not 40 hex digits");
			}
			/* one spelling of an id: "ABC..." is "abc..." */
			for (size_t i = 0; i <= len; i++)
				dst[i] = (char)tolower((unsigned char)val[i]);
			free(val);
		} else if (!strcmp(key, "state")) {
			int rc = ss_decision_state_parse(&d->state, val);

			free(val);
			if (rc) {
				free(key);
				return fail(r, ss_error_last());
			}
		} else {
			static const char *const names[] = { "branch", "until", "who", "note" };
			size_t i;

			for (i = 0; i < 4 && strcmp(key, names[i]); i++)
				;
			if (i < 4) {
				free(owned[i]);
				owned[i] = val;
			} else {
				free(val);  /* a key of a later version */
			}
		}
		free(key);
		ws(r);
		if (*r->p == ',') {
			r->p++;
			continue;
		}
		if (expect(r, '}'))
			return -1;
		break;
	}
	if (!d->commit[0] || !owned[0] || !*owned[0] || !d->state || !have_time)
		return fail(r, "a decision needs commit, branch, state and time");
	d->branch = owned[0];
	d->until = owned[1] ? owned[1] : "";
	d->who = owned[2] ? owned[2] : "";
	d->note = owned[3] ? owned[3] : "";
	return 0;
}

int ss_run_decisions_read(ss_run_decision_file *out, const char *path)
{
	char err[400];
	size_t errsize = sizeof(err);

	char *text = NULL, *key = NULL;
	size_t len = 0;
	struct reader r;
	FILE *f = fopen(path, "rb");
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (!f)
		return ss_error_code(SS_EINVALID, "cannot open '%s': %m", path);
	{
		ss_strbuf sb = SS_STRBUF_INIT;
		char buf[65536];
		size_t got;

		while ((got = fread(buf, 1, sizeof(buf), f)) > 0)
			ss_strbuf_add(&sb, buf, got);
		fclose(f);
		text = ss_strbuf_detach(&sb, &len);
	}
	memset(&r, 0, sizeof(r));
	r.file = path;
	r.p = r.start = text ? text : "";
	if (text && strlen(text) != len) {
		fail(&r, "a NUL byte in the file");
		goto done;
	}
	/* {"stablesel_decisions": 1, "decisions": [ ... ]} */
	if (expect(&r, '{') || string(&r, &key) || strcmp(key, "stablesel_decisions")) {
		fail(&r, "not a stablesel decisions file (\"stablesel_decisions\" first)");
		goto done;
	}
	free(key);
	key = NULL;
	if (expect(&r, ':'))
		goto done;
	ws(&r);
	if (*r.p != '1') {
		fail(&r, "an unknown version of the decisions file (this stablesel reads 1)");
		goto done;
	}
	r.p++;
	if (expect(&r, ',') || string(&r, &key) || strcmp(key, "decisions") || expect(&r, ':') ||
	    expect(&r, '[')) {
		fail(&r, "\"decisions\": [...] expected");
		goto done;
	}
	ws(&r);
	if (*r.p == ']') {
		r.p++;
	} else {
		for (;;) {
			if (SS_GROW(out->d, out->n + 1, out->cap) ||
			    SS_GROW(out->owned, out->n + 1, out->ocap)) {
				fail(&r, "out of memory");
				goto done;
			}
			memset(out->owned[out->n], 0, sizeof(out->owned[out->n]));
			rc = decision(&r, &out->d[out->n], out->owned[out->n]);
			out->n++;
			if (rc)
				goto done;
			rc = -1;
			ws(&r);
			if (*r.p == ',') {
				r.p++;
				continue;
			}
			if (expect(&r, ']'))
				goto done;
			break;
		}
	}
	if (expect(&r, '}'))
		goto done;
	ws(&r);
	if (*r.p) {
		fail(&r, "text after the end");
		goto done;
	}
	rc = 0;
done:
	if (rc)
		snprintf(err, errsize, "%s", r.err);
	free(key);
	free(text);
	return rc ? ss_error_code(SS_EINVALID, "%s", err) : 0;
}

void ss_run_decision_file_release(ss_run_decision_file *ds)
{
	for (size_t i = 0; i < ds->n; i++)
		for (int j = 0; j < 5; j++)
			free(ds->owned[i][j]);
	free(ds->owned);
	free(ds->d);
	memset(ds, 0, sizeof(*ds));
}

int ss_run_decisions_identities(ss_run_decision_file *ds, ss_index *ix, const ss_run_report *rp)
{
	char name[256];

	for (size_t i = 0; i < ds->n; i++) {
		int rc = ss_index_branch_identity(name, sizeof(name), ix, ds->d[i].branch, NULL);
		int said = 0;

		if (rc == SS_ENOTFOUND) {
			ss_strbuf e = SS_STRBUF_INIT;

			for (size_t j = 0; j < i && !said; j++)
				said = !strcmp(ds->d[j].branch, ds->d[i].branch);
			/* whole (ss_run_say() would cut it): escaped, it may be
			 * longer than the message was */
			if (!said && (ss_strbuf_add_escaped(&e, ss_error_last()) ||
				      ss_strbuf_adds(&e, ": imported under that name")))
				return ss_error_code(SS_ENOMEM, "out of memory");
			if (!said && rp && rp->say)
				rp->say(SS_RUN_WARNING, e.buf, rp->ud);
			ss_strbuf_release(&e);
			continue;
		}
		if (rc)
			return rc;
		if (strcmp(name, ds->d[i].branch)) {
			free(ds->owned[i][0]);
			if (!(ds->owned[i][0] = strdup(name)))
				return ss_error_code(SS_ENOMEM, "out of memory");
			ds->d[i].branch = ds->owned[i][0];
		}
	}
	return 0;
}
