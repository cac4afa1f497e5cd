/*
 * fuzz_ctok.c - libFuzzer target for the C tokenizer (features/ctok.h):
 * the input is split into lines, tokenized with one state per input as a
 * hunk would be, and each line is also given to the error-check detector.
 *
 * It checks what ctok.h promises: the count does not depend on cap (the
 * snprintf convention), a cut never writes past cap, and every token is
 * non-empty and lies inside its line unless it is one of the static
 * texts ("<num>", "<str>", ...).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "features/ctok.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CAP 64

static void check_line(ss_ctok_state *st, const char *line, size_t len)
{
	ss_ctok toks[CAP + 1], few[4];
	ss_ctok_state st0 = *st, st1 = *st;
	size_t n, n0, n1, i;

	memset(&toks[CAP], 0xa5, sizeof(toks[CAP]));
	n = ss_ctok_line(toks, CAP, st, line, len);
	n0 = ss_ctok_line(NULL, 0, &st0, line, len);
	n1 = ss_ctok_line(few, 3, &st1, line, len);
	FUZZ_CHECK(n == n0 && n == n1);
	FUZZ_CHECK(st->in_comment == st0.in_comment && st->in_comment == st1.in_comment);
	/* the guard after cap is untouched */
	{
		ss_ctok guard;

		memset(&guard, 0xa5, sizeof(guard));
		FUZZ_CHECK(!memcmp(&guard, &toks[CAP], sizeof(guard)));
	}
	for (i = 0; i < n && i < CAP; i++) {
		const ss_ctok *t = &toks[i];
		int inside = t->text >= line && t->text + t->len <= line + len;

		FUZZ_CHECK(t->text != NULL);
		FUZZ_CHECK(t->len > 0 || t->kind == SS_CTOK_HEADER);
		FUZZ_CHECK(inside || t->kind == SS_CTOK_NUMBER || t->kind == SS_CTOK_STRING ||
			   t->kind == SS_CTOK_CHAR || t->kind == SS_CTOK_PREPROC ||
			   t->kind == SS_CTOK_KEYWORD || t->kind == SS_CTOK_PUNCT);
		if (!inside) /* a static string: readable for len bytes */
			FUZZ_CHECK(strnlen(t->text, t->len) == t->len);
		ss_ctok_is(t, "if");
		if (i < 3)
			FUZZ_CHECK(few[i].kind == t->kind && few[i].len == t->len &&
				   !memcmp(few[i].text, t->text, t->len));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ss_ctok_state st = SS_CTOK_STATE_INIT;
	const char *p = (const char *)data, *end = p + size;
	char *copy, *prev = NULL;

	/* lines as they are (with their newline, exact length) */
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl + 1 : end;
		char *line = malloc((size_t)(e - p)); /* exact: overreads are caught */

		if (!line)
			return 0;
		memcpy(line, p, (size_t)(e - p));
		check_line(&st, line, (size_t)(e - p));
		free(line);
		p = e;
	}

	/* the error-check detector on NUL-terminated lines, with the next */
	copy = malloc(size + 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	copy[size] = '\0';
	for (char *s = copy; s;) {
		char *nl = strchr(s, '\n');

		if (nl)
			*nl = '\0';
		if (prev)
			ss_ctok_is_error_check(prev, s);
		prev = s;
		s = nl ? nl + 1 : NULL;
	}
	if (prev)
		ss_ctok_is_error_check(prev, NULL);
	free(copy);
	return 0;
}
