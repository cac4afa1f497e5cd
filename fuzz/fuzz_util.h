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

#endif
