/*
 * fuzz_trailer.c - libFuzzer target for commit messages: trailer blocks
 * (ss_commit_set_message), stable-tag masking (ss_commit_mask_stable) and
 * backport references (ss_upstream_find).
 *
 * Beyond "no crash", it checks what the headers promise: after masking no
 * stable tag is left, masking twice changes nothing more, and every
 * upstream sha found is 40 lower-case hex digits, each found once.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "labels/upstream.h"
#include "fuzz_util.h"
#include "util/error.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static ss_upstream *upstream;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	/* like --upstream-pattern: one with a group, one that can match
	 * nothing at all */
	static const char *extra[] = { "upstream-id:[[:space:]]*([0-9a-f]{40})", "x*" };

	(void)argc;
	(void)argv;
	if (ss_upstream_new(&upstream, extra, 2))
		abort();
	return 0;
}

static void check_upstream(const char *msg)
{
	char shas[8][41];
	size_t n, i, j, k;

	n = ss_upstream_find(upstream, msg, shas, 8);
	if (n > 8)
		n = 8;
	for (i = 0; i < n; i++) {
		for (k = 0; k < 40; k++)
			FUZZ_CHECK((shas[i][k] >= '0' && shas[i][k] <= '9') ||
				   (shas[i][k] >= 'a' && shas[i][k] <= 'f'));
		FUZZ_CHECK(shas[i][40] == '\0');
		for (j = 0; j < i; j++)
			FUZZ_CHECK(strcmp(shas[i], shas[j]));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ss_commit *c = ss_commit_new();
	const ss_trailer *t;
	char *raw, *once;
	size_t pos = 0;
	int tagged;

	if (!c)
		return 0;
	if (ss_commit_set_message(c, (const char *)data, size))
		goto free_commit;
	fuzz_walk_commit(c);
	for (pos = 0; (t = ss_commit_trailer(c, "cc", &pos)); pos++)
		ss_is_stable_address(t->value);

	raw = malloc(size + 1);
	if (raw) {
		memcpy(raw, data, size);
		raw[size] = '\0';
		check_upstream(raw);
		free(raw);
	}
	if (c->message)
		check_upstream(c->message);

	tagged = ss_commit_has_stable_tag(c);
	if (ss_commit_mask_stable(c))
		goto free_commit;
	fuzz_walk_commit(c);
	FUZZ_CHECK(!ss_commit_has_stable_tag(c));
	if (tagged)
		FUZZ_CHECK(c->masked);
	once = c->message ? strdup(c->message) : NULL;
	if (!ss_commit_mask_stable(c) && once)
		FUZZ_CHECK(!strcmp(once, c->message));
	free(once);
free_commit:
	ss_commit_free(c);
	return 0;
}
