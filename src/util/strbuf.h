/*
 * strbuf.h - a growable NUL-terminated byte buffer, after git's strbuf.h.
 *
 * Invariant: buf is never NULL once initialised with SS_STRBUF_INIT and
 * buf[len] == '\0'.  Functions that can fail return 0 or SS_ENOMEM.
 */
#ifndef SS_STRBUF_H
#define SS_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

typedef struct {
	char *buf;
	size_t len, alloc;
} ss_strbuf;

extern char ss_strbuf_empty[];
#define SS_STRBUF_INIT { ss_strbuf_empty, 0, 0 }

int ss_strbuf_grow(ss_strbuf *sb, size_t extra);
int ss_strbuf_add(ss_strbuf *sb, const void *data, size_t len);
int ss_strbuf_adds(ss_strbuf *sb, const char *s);
int ss_strbuf_addch(ss_strbuf *sb, int c);
int ss_strbuf_addf(ss_strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Append s as a JSON string literal, quotes included; invalid UTF-8 bytes
 * become U+FFFD so that the output is always valid JSON. */
int ss_strbuf_add_json(ss_strbuf *sb, const char *s);
/*
 * Append s (NULL as "") for a terminal or a one-line log: every control
 * character shown escaped, so that text from commits, notes or files can
 * neither break a line nor drive the terminal ("\n", "\t", "\r", "\x1b",
 * DEL as "\x7f"; C1 controls U+0080..U+009F as "\u0085"), and a byte
 * that is no valid UTF-8 as "\xe9".  Printable text, valid UTF-8 and
 * backslashes are kept as they are.
 */
int ss_strbuf_add_escaped(ss_strbuf *sb, const char *s);
/* Whether s (n bytes) is valid UTF-8 (no surrogates, no overlong forms,
 * nothing past U+10FFFF). */
int ss_utf8_valid(const char *s, size_t n);
void ss_strbuf_reset(ss_strbuf *sb);
void ss_strbuf_release(ss_strbuf *sb); /* frees and re-initialises */
/* Hand the buffer to the caller (malloc'd, never NULL on success). */
char *ss_strbuf_detach(ss_strbuf *sb, size_t *len);

#endif
