/* strbuf.c - growable byte buffer (see strbuf.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "strbuf.h"

char ss_strbuf_empty[1];

int ss_strbuf_grow(ss_strbuf *sb, size_t extra)
{
	size_t want = sb->len + extra + 1;
	char *p;

	if (want <= sb->alloc)
		return 0;
	if (want < sb->alloc * 2)
		want = sb->alloc * 2;
	if (want < 64)
		want = 64;
	p = realloc(sb->alloc ? sb->buf : NULL, want);
	if (!p)
		return SS_ENOMEM;
	if (!sb->alloc)
		p[0] = '\0';
	sb->buf = p;
	sb->alloc = want;
	return 0;
}

int ss_strbuf_add(ss_strbuf *sb, const void *data, size_t len)
{
	if (ss_strbuf_grow(sb, len))
		return SS_ENOMEM;
	memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
	return 0;
}

int ss_strbuf_adds(ss_strbuf *sb, const char *s)
{
	return ss_strbuf_add(sb, s, strlen(s));
}

int ss_strbuf_addch(ss_strbuf *sb, int c)
{
	char ch = (char)c;

	return ss_strbuf_add(sb, &ch, 1);
}

int ss_strbuf_addf(ss_strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || ss_strbuf_grow(sb, (size_t)n))
		return SS_ENOMEM;
	va_start(ap, fmt);
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	sb->len += (size_t)n;
	return 0;
}

/* Length of the valid UTF-8 sequence at s, or 0 when it is not one. */
static size_t utf8_len(const unsigned char *s)
{
	size_t n, i;
	unsigned cp;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0) {
		n = 2;
		cp = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		n = 3;
		cp = s[0] & 0x0f;
	} else if ((s[0] & 0xf8) == 0xf0) {
		n = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) ||
	    (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

int ss_utf8_valid(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + n;

	while (p < end) {
		size_t k = *p ? utf8_len(p) : 1;

		if (!k || (size_t)(end - p) < k)
			return 0;
		p += k;
	}
	return 1;
}

/* The escape of control character c ("\\n", "\\x1b"), appended. */
static int add_control(ss_strbuf *sb, unsigned c)
{
	switch (c) {
	case '\n': return ss_strbuf_adds(sb, "\\n");
	case '\t': return ss_strbuf_adds(sb, "\\t");
	case '\r': return ss_strbuf_adds(sb, "\\r");
	default: return ss_strbuf_addf(sb, "\\x%02x", c);
	}
}

int ss_strbuf_add_escaped(ss_strbuf *sb, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	int rc = ss_strbuf_grow(sb, strlen((const char *)p));

	while (!rc && *p) {
		size_t n;

		if (*p < 0x20 || *p == 0x7f) {
			rc = add_control(sb, *p++);
			continue;
		}
		if (!(n = utf8_len(p))) {
			rc = ss_strbuf_addf(sb, "\\x%02x", *p++);
			continue;
		}
		/* C1 controls (U+0080..U+009F: 0xc2 0x80..0x9f) act as escapes
		 * on some terminals */
		if (n == 2 && p[0] == 0xc2 && p[1] < 0xa0)
			rc = ss_strbuf_addf(sb, "\\u%04x", p[1]);
		else
			rc = ss_strbuf_add(sb, p, n);
		p += n;
	}
	return rc;
}

int ss_strbuf_add_json(ss_strbuf *sb, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	int rc = ss_strbuf_addch(sb, '"');

	while (!rc && *p) {
		size_t n;

		switch (*p) {
		case '"': rc = ss_strbuf_adds(sb, "\\\""); p++; continue;
		case '\\': rc = ss_strbuf_adds(sb, "\\\\"); p++; continue;
		case '\n': rc = ss_strbuf_adds(sb, "\\n"); p++; continue;
		case '\t': rc = ss_strbuf_adds(sb, "\\t"); p++; continue;
		case '\r': rc = ss_strbuf_adds(sb, "\\r"); p++; continue;
		default: break;
		}
		if (*p < 0x20) {
			rc = ss_strbuf_addf(sb, "\\u%04x", *p);
			p++;
			continue;
		}
		n = utf8_len(p);
		if (!n) {
			rc = ss_strbuf_adds(sb, "\\ufffd");
			p++;
			continue;
		}
		rc = ss_strbuf_add(sb, p, n);
		p += n;
	}
	return rc ? rc : ss_strbuf_addch(sb, '"');
}

void ss_strbuf_reset(ss_strbuf *sb)
{
	sb->len = 0;
	if (sb->alloc)
		sb->buf[0] = '\0';
}

void ss_strbuf_release(ss_strbuf *sb)
{
	if (sb->alloc)
		free(sb->buf);
	sb->buf = ss_strbuf_empty;
	sb->len = sb->alloc = 0;
}

char *ss_strbuf_detach(ss_strbuf *sb, size_t *len)
{
	char *p;

	if (!sb->alloc && ss_strbuf_grow(sb, 0))
		return NULL;
	p = sb->buf;
	if (len)
		*len = sb->len;
	sb->buf = ss_strbuf_empty;
	sb->len = sb->alloc = 0;
	return p;
}
