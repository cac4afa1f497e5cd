/*
 * fuzz_mbox.c - libFuzzer target for the mail reader: the input is a whole
 * mbox file (plain, gzip or zstd: the reader sniffs it), read through
 * ss_source_open()/ss_source_next() exactly as the CLI reads it.
 *
 * The input goes into a memfd opened by its /proc path, so the reader's
 * decompression thread and pipe are exercised too.  The options depend on
 * the input's length so that masking and the line cap get fuzzed while
 * every input still replays the same way.
 */
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#include <git2.h>
#include <gmime/gmime.h>

#include "fuzz_util.h"
#include "source/source.h"
#include "util/error.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	git_libgit2_init();
	g_mime_init();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ss_source_options opts = SS_SOURCE_OPTIONS_INIT;
	ss_source *src = NULL;
	char path[64];
	size_t off = 0, n = 0, stuck = 0, last_messages = (size_t)-1;
	int fd, rc;

	fd = memfd_create("fuzz-mbox", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	while (off < size) {
		ssize_t w = write(fd, data + off, size - off);

		if (w <= 0)
			goto close_fd;
		off += (size_t)w;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	opts.mask_stable_tags = size & 1;
	opts.max_lines = size % 3 == 0 ? 7 : 0;
	opts.with_diff = size % 5 != 0;
	/* one input in seven is read as the index reads an mbox again: from
	 * an offset (the half, or a line end after it), with the crc32 of
	 * the plain bytes before it (matches unless the input is compressed
	 * or the offset is inside a line: then nothing is read) */
	if (size % 7 == 0) {
		const uint8_t *nl = size > 1 ? memchr(data + size / 2, '\n', size - size / 2) : NULL;

		opts.resume = 1;
		opts.resume_at = nl && size % 2 ? (size_t)(nl - data) + 1 : size / 2;
		opts.resume_crc = crc32(0L, data, (uInt)opts.resume_at);
	}
	if (ss_source_open(&src, path, &opts))
		goto close_fd;
	for (;;) {
		ss_commit *c;

		rc = ss_source_next(&c, src);
		if (rc == SS_ITEROVER)
			break;
		if (rc == SS_ESKIP) {
			const ss_source_stats *st = ss_source_stats_get(src);

			/* a skip must say why */
			FUZZ_CHECK(ss_error_last()[0] != '\0');
			/* and the reader must move on: the same message skipped
			 * again and again is a hang (fixed bug 3) */
			if (st->messages == last_messages && ++stuck >= 100)
				__builtin_trap();
			if (st->messages != last_messages)
				stuck = 0;
			last_messages = st->messages;
			continue;
		}
		if (rc < 0)
			break;
		FUZZ_CHECK(c != NULL);
		fuzz_walk_commit(c);
		if (opts.mask_stable_tags)
			FUZZ_CHECK(!ss_commit_has_stable_tag(c));
		ss_commit_free(c);
		n++;
	}
	FUZZ_CHECK(ss_source_stats_get(src)->commits == n);
	if (opts.resume && rc == SS_ITEROVER) {
		const ss_source_stats *st = ss_source_stats_get(src);

		FUZZ_CHECK(st->resumed >= -1 && st->resumed <= 1 && st->resumed != 0);
		/* passed over: nothing of the first bytes was parsed again */
		if (st->resumed < 0)
			FUZZ_CHECK(n == 0);
		else
			FUZZ_CHECK(st->decoded >= opts.resume_at);
	}
	ss_source_free(src);
close_fd:
	close(fd);
	return 0;
}
