/*
 * series.c - a commit's patch series (see series.h): the "[PATCH vK n/m]"
 * of a mail subject, and numbered message ids (git-send-email, b4) as a
 * Link: trailer names them.  Hand-written scanners over untrusted text:
 * bounded lengths, bounded numbers, nothing allocated.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "commit/series.h"
#include "util/hexid.h"

/* s[0..len) all digits, 1 to 6 of them, the value 0..SS_SERIES_MAX_N. */
static int number(unsigned *out, const char *s, size_t len)
{
	unsigned v = 0;

	if (!len || len > 6)
		return 0;
	for (size_t i = 0; i < len; i++) {
		if (!isdigit((unsigned char)s[i]))
			return 0;
		v = v * 10 + (unsigned)(s[i] - '0');
	}
	if (v > SS_SERIES_MAX_N)
		return 0;
	*out = v;
	return 1;
}

/* Digits from s: how many (0 when none). */
static size_t digits(const char *s)
{
	size_t i = 0;

	while (isdigit((unsigned char)s[i]))
		i++;
	return i;
}

int ss_series_subject(unsigned *n, unsigned *total, unsigned *version, const char *subject)
{
	const char *s = subject;

	*n = *total = *version = 0;
	if (!s)
		return 0;
	for (;;) {
		const char *open, *close, *p;
		unsigned a = 0, b = 0, ver = 1;
		int patch = 0, have = 0;

		while (*s == ' ' || *s == '\t')
			s++;
		if (*s != '[')
			return 0;
		open = s + 1;
		close = strchr(open, ']');
		if (!close || close - open > 200)
			return 0;
		/* the bracket's words, one by one */
		for (p = open; p < close;) {
			size_t len;
			const char *slash;

			while (p < close && *p == ' ')
				p++;
			len = strcspn(p, " ]");
			if (p + len > close)
				len = (size_t)(close - p);
			if (!len)
				break;
			slash = memchr(p, '/', len);
			if (len == 5 && !strncasecmp(p, "PATCH", 5)) {
				patch = 1;
			} else if ((*p == 'v' || *p == 'V') && number(&ver, p + 1, len - 1)) {
				if (!ver)
					return 0;
			} else if (slash && !have) {
				if (!number(&a, p, (size_t)(slash - p)) ||
				    !number(&b, slash + 1, len - (size_t)(slash - p) - 1))
					a = b = 0;
				have = a || b;
			}
			p += len;
		}
		if (!patch) {
			s = close + 1;
			continue;
		}
		/* the first PATCH bracket decides: a cover letter (0/m), n > m,
		 * no number: no series */
		if (!have || !a || !b || a > b)
			return 0;
		*n = a;
		*total = b;
		*version = ver;
		return 1;
	}
}

/* out->key = "link:" + the id's s[0..cut) + "-*-" + rest, n from the id. */
static int set_key(ss_series *out, const char *s, size_t cut, const char *rest, unsigned n)
{
	int len;

	if (!n)
		return 0;
	len = snprintf(out->key, sizeof(out->key), "link:%.*s-*-%s", (int)cut, s, rest);
	if (len < 0 || (size_t)len >= sizeof(out->key)) {
		out->key[0] = '\0';
		return 0;
	}
	out->n = n;
	out->total = 0;
	return 1;
}

/* "20240101120000.12345-3-ann@example.org": date.pid-N-sender */
static int gse_new(ss_series *out, const char *s)
{
	size_t d = digits(s), p, k;
	unsigned n;

	if (d != 14 || s[14] != '.')
		return 0;
	p = digits(s + 15);
	if (!p || s[15 + p] != '-')
		return 0;
	k = digits(s + 16 + p);
	if (s[16 + p + k] != '-' || !number(&n, s + 16 + p, k) || !strchr(s + 17 + p + k, '@'))
		return 0;
	return set_key(out, s, 15 + p, s + 17 + p + k, n);
}

/* "1563900266-19734-2-git-send-email-ann@example.org" */
static int gse_old(ss_series *out, const char *s)
{
	static const char tag[] = "-git-send-email-";
	size_t t = digits(s), p, k;
	unsigned n;

	if (!t || s[t] != '-')
		return 0;
	p = digits(s + t + 1);
	if (!p || s[t + 1 + p] != '-')
		return 0;
	k = digits(s + t + 2 + p);
	if (!number(&n, s + t + 2 + p, k) || strncmp(s + t + 2 + p + k, tag, sizeof(tag) - 1) ||
	    !strchr(s + t + 2 + p + k, '@'))
		return 0;
	return set_key(out, s, t + 1 + p, s + t + 2 + p + k + 1, n);
}

/* "20240117-topic-v2-3-4e0b6c85bc6d@kernel.org": date-slug-vK-N-hash@host */
static int b4(ss_series *out, const char *s)
{
	const char *at = strchr(s, '@'), *h, *q;
	size_t hex = 0, k = 0;
	unsigned n, ver;

	if (!at || digits(s) != 8 || s[8] != '-')
		return 0;
	for (h = at; h > s && isxdigit((unsigned char)h[-1]); h--)
		hex++;
	if (hex < 6 || hex > 40 || h - s < 2 || h[-1] != '-')
		return 0;
	for (q = h - 1; q > s && isdigit((unsigned char)q[-1]); q--)
		k++;
	if (!number(&n, q, k) || q - s < 2 || q[-1] != '-')
		return 0;
	/* "-vK" before the number */
	{
		const char *v = q - 1;
		size_t kv = 0;

		while (v > s && isdigit((unsigned char)v[-1])) {
			v--;
			kv++;
		}
		/* and a slug between the date and "-vK" */
		if (!kv || v - s < 12 || v[-1] != 'v' || v[-2] != '-' || !number(&ver, v, kv) || !ver)
			return 0;
		/* the slug stays in the key: b4 numbers each series from 1 */
		return set_key(out, s, (size_t)(q - 1 - s), h, n);
	}
}

int ss_series_msgid(ss_series *out, const char *msgid)
{
	char id[SS_SERIES_KEY_MAX];
	size_t len;

	memset(out, 0, sizeof(*out));
	if (!msgid)
		return 0;
	while (*msgid == ' ' || *msgid == '\t' || *msgid == '<')
		msgid++;
	len = strcspn(msgid, "> \t\r\n");
	if (!len || len >= sizeof(id) - 16)
		return 0;
	memcpy(id, msgid, len);
	id[len] = '\0';
	return gse_new(out, id) || gse_old(out, id) || b4(out, id);
}

int ss_series_link(ss_series *out, const char *value)
{
	char seg[SS_SERIES_KEY_MAX];
	const char *p, *lt;

	memset(out, 0, sizeof(*out));
	if (!value)
		return 0;
	while (*value == ' ' || *value == '\t')
		value++;
	lt = strchr(value, '<');
	if (lt && strchr(lt, '>'))
		return ss_series_msgid(out, lt);
	if (strncasecmp(value, "http://", 7) && strncasecmp(value, "https://", 8))
		return 0;
	p = strstr(value, "://") + 3;
	p += strcspn(p, "/ \t");        /* past the host */
	/* the first path segment holding an '@' (%40 decoded) is the id */
	while (*p == '/') {
		size_t n = 0;
		int at = 0;

		p++;
		while (*p && *p != '/' && *p != ' ' && *p != '\t' && *p != '?' && *p != '#') {
			int ch = (unsigned char)*p++;

			if (ch == '%' && ss_hexid_digit((unsigned char)p[0]) >= 0 &&
			    ss_hexid_digit((unsigned char)p[1]) >= 0) {
				ch = ss_hexid_digit((unsigned char)p[0]) * 16 +
				     ss_hexid_digit((unsigned char)p[1]);
				p += 2;
			}
			if (n + 1 >= sizeof(seg))
				return 0;
			at |= ch == '@';
			seg[n++] = (char)ch;
		}
		seg[n] = '\0';
		if (at)
			return ss_series_msgid(out, seg);
		if (*p != '/')
			break;
	}
	return 0;
}

int ss_series_of(ss_series *out, const ss_commit *c)
{
	const ss_trailer *t;
	size_t pos = 0;
	int len;

	while ((t = ss_commit_trailer(c, "Link", &pos)))
		if (ss_series_link(out, t->value))
			return 1;
	memset(out, 0, sizeof(*out));
	if (!c->mail_thread || !c->mail_thread[0] || !c->mail_n || !c->mail_total ||
	    c->mail_n > c->mail_total || c->mail_total > SS_SERIES_MAX_N)
		return 0;
	len = snprintf(out->key, sizeof(out->key), "thread:%s/%u", c->mail_thread, c->mail_total);
	if (len < 0 || (size_t)len >= sizeof(out->key)) {
		out->key[0] = '\0';
		return 0;
	}
	out->n = c->mail_n;
	out->total = c->mail_total;
	return 1;
}
