/*
 * fuzz_patch.c - libFuzzer target for the patch reader: the input is the
 * text after a commit message ("diff --git ..." and whatever follows),
 * given to ss_commit_parse_patch() with its exact length and no NUL after
 * it, as the mail reader gives it.
 *
 * The line cap depends on the input's length, so that the truncation path
 * is fuzzed while every input still replays the same way.
 */
#include <stdint.h>
#include <string.h>

#include <git2.h>

#include "source/diff.h"
#include "fuzz_util.h"
#include "util/error.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	git_libgit2_init();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ss_commit *c;
	size_t max_lines = size % 3 == 0 ? 5 : 0;
	int rc;

	c = ss_commit_new();
	if (!c)
		return 0;
	rc = ss_commit_parse_patch(c, (const char *)data, size, max_lines);
	if (rc == 0) {
		fuzz_walk_commit(c);
	} else {
		FUZZ_CHECK(rc < 0);
		FUZZ_CHECK(ss_error_last()[0] != '\0');
	}
	ss_commit_free(c);
	return 0;
}
