/*
 * fuzz_model.c - libFuzzer target for the model file loader
 * (ss_model_load_buffer), and for scoring and explaining with whatever it
 * accepts.
 *
 * A random file almost never carries the right CRC-32, so most inputs are
 * wrapped: when the first byte is odd, the rest is taken as the payload
 * and given a valid header (magic, a version from 1 to
 * SS_MODEL_FORMAT_VERSION chosen by the first byte's next bits, length)
 * and checksum, which lets the fuzzer reach the kind, feature,
 * calibration, band and weight readers.  Even first
 * bytes pass the rest through as a whole file, to fuzz the header checks.
 * A loaded model then scores and explains one fixed commit: weights that
 * do not fit the features they claim would show up there.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include <git2.h>

#include "source/diff.h"
#include "fuzz_util.h"
#include "models/model.h"
#include "util/error.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static ss_commit *commit;

static const char message[] =
	"net/ixgbe: fix crash on null pointer in rx burst\n"
	"\n"
	"The queue may be freed while a burst runs; check it first.\n"
	"\n"
	"Fixes: 0123456789ab (\"net/ixgbe: add rx burst\")\n"
	"Signed-off-by: A Developer <dev@example.com>\n";

static const char patch[] =
	"diff --git a/drivers/net/ixgbe/rx.c b/drivers/net/ixgbe/rx.c\n"
	"index 1111111..2222222 100644\n"
	"--- a/drivers/net/ixgbe/rx.c\n"
	"+++ b/drivers/net/ixgbe/rx.c\n"
	"@@ -10,6 +10,8 @@ ixgbe_recv(struct rx_queue *q)\n"
	" {\n"
	" \tint ret;\n"
	"+\tif (q == NULL)\n"
	"+\t\treturn -EINVAL;\n"
	" \tret = burst(q);\n"
	"-\treturn 0;\n"
	"+\treturn ret;\n"
	" }\n";

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	git_libgit2_init();
	commit = ss_commit_new();
	if (!commit || ss_commit_set_message(commit, message, sizeof(message) - 1) ||
	    ss_commit_parse_patch(commit, patch, sizeof(patch) - 1, 0))
		abort();
	return 0;
}

static void put_le(unsigned char *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static void use_model(ss_model *m)
{
	ss_contrib contrib[8];
	size_t n = 0;
	float score = -1.0f;

	ss_model_get_kind(m);
	ss_model_threshold(m);
	ss_model_info_of(m);
	ss_model_featurizer(m);
	ss_model_nweights(m);
	/* whatever loads has usable bands (read, or made from the threshold) */
	FUZZ_CHECK(ss_bands_check(ss_model_bands(m)) == 0);
	if (!ss_model_score_commit(&score, m, commit, NULL)) {
		FUZZ_CHECK(!(score < 0.0f) && !(score > 1.0f)); /* NaN passes */
		FUZZ_CHECK(ss_bands_classify(ss_model_bands(m), score) <= SS_BAND_YES);
	}
	if (!ss_model_explain(contrib, 8, &n, m, commit, NULL, 0)) {
		FUZZ_CHECK(n <= 8);
		for (size_t i = 0; i < n; i++)
			FUZZ_CHECK(memchr(contrib[i].name, '\0', sizeof(contrib[i].name)));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ss_model *m = NULL;
	unsigned char *buf;
	size_t len;

	if (size < 1)
		return 0;
	if (data[0] & 1) {
		size_t plen = size - 1;

		len = 20 + plen + 4;
		buf = malloc(len);
		if (!buf)
			return 0;
		memcpy(buf, "SSMODEL\x1a", 8);
		put_le(buf + 8, 1 + (uint64_t)((data[0] >> 1) % SS_MODEL_FORMAT_VERSION), 4);
		put_le(buf + 12, plen, 8);
		memcpy(buf + 20, data + 1, plen);
		put_le(buf + 20 + plen, crc32(0L, buf, (uInt)(20 + plen)), 4);
	} else {
		len = size - 1;
		buf = malloc(len ? len : 1);
		if (!buf)
			return 0;
		memcpy(buf, data + 1, len);
	}
	if (!ss_model_load_buffer(&m, buf, len, "fuzz")) {
		FUZZ_CHECK(m != NULL);
		use_model(m);
		ss_model_free(m);
	} else {
		FUZZ_CHECK(m == NULL);
		FUZZ_CHECK(ss_error_last()[0] != '\0');
	}
	free(buf);
	return 0;
}
