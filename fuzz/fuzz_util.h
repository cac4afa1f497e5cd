/*
 * fuzz_util.h - what the libFuzzer targets share: a walk over every byte a
 * commit points to, so that AddressSanitizer sees any dangling or short
 * pointer the parsers leave, and checks of the invariants commit.h states.
 *
 * A broken invariant aborts (__builtin_trap), which libFuzzer reports as a
 * crash with the input that caused it.
 */
#ifndef SS_FUZZ_UTIL_H
#define SS_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "commit/commit.h"

#define FUZZ_CHECK(cond)                                                       \
	do {                                                                   \
		if (!(cond))                                                   \
			__builtin_trap();                                      \
	} while (0)

/* Touch a NUL-terminated string (NULL allowed when nullable). */
static inline size_t fuzz_touch(const char *s, int nullable)
{
	if (!s) {
		FUZZ_CHECK(nullable);
		return 0;
	}
	return strlen(s);
}

static inline void fuzz_walk_person(const ss_person *p)
{
	fuzz_touch(p->name, 0);  /* never NULL */
	fuzz_touch(p->email, 0); /* never NULL */
}

/* Read everything c points to; returns a sum so that nothing is optimised
 * away. */
static inline size_t fuzz_walk_commit(const ss_commit *c)
{
	size_t sum = 0, i, j, k;

	FUZZ_CHECK(c->id[40] == '\0');
	fuzz_walk_person(&c->author);
	fuzz_walk_person(&c->committer);
	sum += fuzz_touch(c->subject, 1);
	sum += fuzz_touch(c->message, 1);
	sum += fuzz_touch(c->body, 1);
	sum += fuzz_touch(c->source, 1);
	for (i = 0; i < c->ntrailers; i++) {
		sum += fuzz_touch(c->trailers[i].key, 0);
		sum += fuzz_touch(c->trailers[i].value, 0);
	}
	for (i = 0; i < c->nfiles; i++) {
		const ss_file *f = &c->files[i];

		FUZZ_CHECK(f->old_path || f->new_path);
		sum += fuzz_touch(ss_file_path(f), 0);
		sum += fuzz_touch(f->old_path, 1) + fuzz_touch(f->new_path, 1);
		FUZZ_CHECK((int)f->status >= SS_FILE_MODIFIED &&
			   f->status <= SS_FILE_TYPECHANGE);
		for (j = 0; j < f->nhunks; j++) {
			const ss_hunk *h = &f->hunks[j];

			sum += fuzz_touch(h->func, 0);
			for (k = 0; k < h->nlines; k++) {
				const ss_line *l = &h->lines[k];

				FUZZ_CHECK(l->origin == '+' || l->origin == '-' ||
					   l->origin == ' ');
				FUZZ_CHECK(l->text);
				/* text holds len bytes and a NUL after them */
				FUZZ_CHECK(l->text[l->len] == '\0');
				if (l->len)
					sum += (unsigned char)l->text[l->len - 1];
			}
		}
	}
	return sum;
}

/*
 * Bugs already found and reported are listed in fuzz/README.md ("Known
 * bugs") and kept as inputs in fuzz/regressions/.  While one is open, every
 * run would stop on it again and again; with SS_FUZZ_SKIP_KNOWN=1 in the
 * environment (fuzz/run.sh sets it) the targets skip inputs of those shapes
 * so that a long run explores past them.  The regression replay runs
 * without it.  Remove a shape here when its bug is fixed.
 */
static inline int fuzz_skip_known_enabled(void)
{
	static int on = -1;

	if (on < 0) {
		const char *e = getenv("SS_FUZZ_SKIP_KNOWN");

		on = e && *e && strcmp(e, "0");
	}
	return on;
}

static inline int fuzz_isspace(int ch)
{
	return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\v' || ch == '\f' ||
	       ch == '\r';
}

/*
 * Known bug 2 (src/commit/diff.c, parse_recounted): strtoul() on the
 * "@@ -a,b +c,d @@" of a hunk libgit2 refused skips leading white space,
 * newlines included, and reads past the end of an unterminated buffer.
 * True for a hunk header where a number starts with white space or which
 * has no newline.
 */
static inline int fuzz_known_recount(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *q = p + 4;
		int i;

		if (end - p >= 4 && !memcmp(p, "@@ -", 4)) {
			if (!nl)
				return 1;
			/* -a ,b +c ,d: each number's first byte */
			for (i = 0; i < 4 && q <= nl; i++) {
				if (fuzz_isspace(*q))
					return 1;
				while (q < nl && *q >= '0' && *q <= '9')
					q++;
				if (q < nl && *q == ',')
					q++;
				else if (nl - q >= 2 && q[0] == ' ' && q[1] == '+')
					q += 2;
				else
					break;
			}
		}
		p = nl ? nl + 1 : end;
	}
	return 0;
}

/*
 * Known bug 4 (src/commit/diff.c, parse_header_only): a file section with
 * both "new file mode" and "deleted file mode" gets neither an old nor a
 * new path, and ss_file_path() returns NULL.
 */
static inline int fuzz_known_no_path(const uint8_t *data, size_t size)
{
	return memmem(data, size, "new file mode", 13) &&
	       memmem(data, size, "deleted file mode", 17);
}

/*
 * Known bug 10 (src/commit/commit.c, find_stable_at): "\r" (or "\v",
 * "\f") right before "stable@" is no address boundary, so such a Cc line is
 * neither a tag nor masked, and masking is not idempotent once the line
 * loses its leading white space.
 */
static inline int fuzz_known_cr_stable(const uint8_t *data, size_t size)
{
	size_t i;

	for (i = 0; i + 8 <= size; i++)
		if ((data[i] == '\r' || data[i] == '\v' || data[i] == '\f') &&
		    !strncasecmp((const char *)data + i + 1, "stable@", 7))
			return 1;
	return 0;
}

#endif
