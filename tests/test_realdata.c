/*
 * test_realdata.c - the readers and the labeler on ../shared/data:
 * every DPDK and tip commit read, in order, with the labels' ids and
 * times; the labeler reproduces in_stable and the branch lists; masking
 * leaves no stable@ in any tip message.  Skips when the data is absent.
 */
#include "testutil.h"

#include <git2.h>
#include <gmime/gmime.h>

#include "labels/backports.h"
#include "source/source.h"
#include "util/error.h"

struct row {
	char sha[41];
	long long time;
	char cols[4][64]; /* the columns after author_time */
};

static size_t read_labels(struct row **out, const char *rel)
{
	char path[512], line[1024];
	struct row *rows = NULL;
	size_t n = 0, cap = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", test_data_dir(), rel);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f)); /* header */
	while (fgets(line, sizeof(line), f)) {
		struct row *r;
		char *tok, *save;
		int col = 0;

		if (n == cap) {
			cap = cap ? cap * 2 : 1024;
			rows = realloc(rows, cap * sizeof(*rows));
			assert_non_null(rows);
		}
		r = &rows[n++];
		memset(r, 0, sizeof(*r));
		line[strcspn(line, "\n")] = '\0';
		for (tok = strtok_r(line, "\t", &save); tok; tok = strtok_r(NULL, "\t", &save), col++) {
			if (col == 0)
				snprintf(r->sha, sizeof(r->sha), "%s", tok);
			else if (col == 1)
				r->time = atoll(tok);
			else if (col < 6)
				snprintf(r->cols[col - 2], sizeof(r->cols[0]), "%s", tok);
		}
	}
	fclose(f);
	*out = rows;
	return n;
}

typedef void (*commit_check)(const ss_commit *c, const struct row *r, void *data);

/* Read every commit of an mbox; check each against its labels row. */
static size_t read_mbox(const char *rel, int mask, int with_diff, const struct row *rows,
			size_t nrows, commit_check check, void *data)
{
	ss_source_options o = SS_SOURCE_OPTIONS_INIT;
	char path[512];
	ss_source *s;
	ss_commit *c;
	size_t n = 0;
	int rc;

	o.mask_stable_tags = mask;
	o.with_diff = with_diff;
	snprintf(path, sizeof(path), "%s/%s", test_data_dir(), rel);
	assert_int_equal(ss_source_open(&s, path, &o), 0);
	while ((rc = ss_source_next(&c, s)) == 0) {
		assert_true(n < nrows);
		assert_string_equal(c->id, rows[n].sha);
		if (check)
			check(c, &rows[n], data);
		n++;
		ss_commit_free(c);
	}
	if (rc != SS_ITEROVER)
		fail_msg("%s: %s", rel, ss_error_last());
	assert_int_equal(ss_source_stats_get(s)->malformed, 0);
	ss_source_free(s);
	return n;
}

static void check_dpdk(const ss_commit *c, const struct row *r, void *data)
{
	size_t *tag_mismatch = data;

	assert_int_equal(c->author.time, r->time);
	/* stable_tag (column 5 of the file) is the Cc: stable trailer */
	if (ss_commit_has_stable_tag(c) != (r->cols[2][0] == '1'))
		(*tag_mismatch)++;
}

static void test_dpdk_mainline(void **state)
{
	struct row *rows;
	size_t n, tag_mismatch = 0;

	(void)state;
	SS_REQUIRE_DATA();
	n = read_labels(&rows, "dpdk/labels-v16.11-v22.03.tsv");
	assert_int_equal(n, 25959);
	assert_int_equal(read_mbox("dpdk/mainline-v16.11-v22.03.mbox.zst", 0, 1, rows, n,
				   check_dpdk, &tag_mismatch), 25959);
	print_message("dpdk: 25959 commits, %zu stable-tag disagreements\n", tag_mismatch);
	assert_int_equal(tag_mismatch, 0);
	free(rows);
}

struct tip_counts {
	size_t exact, offset_quirk, tagged, leaked;
};

/*
 * labels-tip-...tsv gives author_time as the wall-clock time read as UTC
 * when the tip bot wrote the offset as "+02:00" (a parser that did not
 * know that form); stablesel applies the offset.  Every time must be equal
 * or differ by exactly the commit's own offset.
 */
static void check_tip(const ss_commit *c, const struct row *r, void *data)
{
	struct tip_counts *t = data;

	if (c->author.time == r->time)
		t->exact++;
	else if (c->author.time + c->author.tz * 60 == r->time)
		t->offset_quirk++;
	else
		fail_msg("%s: author time %lld, labels say %lld", c->id,
			 (long long)c->author.time, r->time);
	/* columns: branch stable_tag fixes_tag */
	t->tagged += r->cols[1][0] == '1';
	if (strcasestr(c->message, "stable@"))
		t->leaked++;
}

static void test_tip(void **state)
{
	struct tip_counts t = { 0 };
	struct row *rows;
	size_t n;

	(void)state;
	SS_REQUIRE_DATA();
	n = read_labels(&rows, "linux-tip/labels-tip-before-2024-07-01.tsv");
	assert_int_equal(n, 14568);
	assert_int_equal(read_mbox("linux-tip/tip-before-2024-07-01.mbox.zst", 1, 0, rows, n,
				   check_tip, &t), 14568);
	print_message("tip: 14568 commits, %zu times exact, %zu off by the '+hh:mm' quirk, "
		      "%zu tagged, %zu leaking stable@ after masking\n",
		      t.exact, t.offset_quirk, t.tagged, t.leaked);
	assert_int_equal(t.exact + t.offset_quirk, 14568);
	assert_int_equal(t.tagged, 736);
	assert_int_equal(t.leaked, 0);
	free(rows);
}

static void test_dpdk_labels(void **state)
{
	ss_backports_options o = SS_BACKPORTS_OPTIONS_INIT;
	char stable[512], releases[512];
	struct row *rows;
	size_t n, i, skipped = 0, in = 0;
	ss_backports *l;

	(void)state;
	SS_REQUIRE_DATA();
	n = read_labels(&rows, "dpdk/labels-v16.11-v22.03.tsv");
	snprintf(stable, sizeof(stable), "%s/dpdk/stable-branches-v16.11-v22.03.mbox.zst",
		 test_data_dir());
	snprintf(releases, sizeof(releases), "%s/dpdk/releases.tsv", test_data_dir());
	o.releases = releases;
	assert_int_equal(ss_backports_new(&l, &o), 0);
	assert_int_equal(ss_backports_read(l, stable, &skipped), 0);
	assert_int_equal(skipped, 0);
	for (i = 0; i < n; i++) {
		const char *br = ss_backports_branches(l, rows[i].sha);

		/* columns: in_stable stable_branches stable_tag fixes_tag */
		if (rows[i].cols[0][0] == '1') {
			in++;
			if (!br)
				fail_msg("%s: in stable (%s) but not found", rows[i].sha, rows[i].cols[1]);
			assert_string_equal(br, rows[i].cols[1]);
		} else if (br) {
			fail_msg("%s: not in stable but found on %s", rows[i].sha, br);
		}
	}
	assert_int_equal(in, 6286);
	assert_int_equal(ss_backports_count(l), 6286);
	ss_backports_free(l);
	free(rows);
}

/*
 * The first 2,000 DPDK commits as a CRLF mbox print exactly what the LF
 * mbox prints; the same file cut in the middle of its last message loses
 * that message with an error (exit 1) and keeps the others.
 */
static void test_dpdk_crlf_and_cut(void **state)
{
	char *dir, *bin;

	(void)state;
	SS_REQUIRE_DATA();
	dir = test_tmpdir();
	bin = realpath(test_bin(), NULL);
	assert_non_null(bin);
	assert_int_equal(test_run("zstd -dc '%s/dpdk/mainline-v16.11-v22.03.mbox.zst' 2>/dev/null | "
				  "awk '/^From [0-9a-f]+ Mon Sep 17 00:00:00 2001$/ && ++n > 2000 { exit } "
				  "{ print }' > '%s/lf.mbox' && sed 's/$/\\r/' '%s/lf.mbox' > '%s/crlf.mbox'",
				  test_data_dir(), dir, dir, dir), 0);
	assert_int_equal(test_run("'%s' log --lines '%s/lf.mbox' > '%s/lf.json' && "
				  "'%s' log --lines '%s/crlf.mbox' > '%s/crlf.json' && "
				  "test $(wc -l < '%s/lf.json') -eq 2000 && cmp '%s/lf.json' '%s/crlf.json'",
				  bin, dir, dir, bin, dir, dir, dir, dir, dir), 0);
	/* cut 100 bytes before the end: in the last diff */
	assert_int_equal(test_run("head -c $(( $(wc -c < '%s/lf.mbox') - 100 )) '%s/lf.mbox' > '%s/cut.mbox' && "
				  "{ '%s' log '%s/cut.mbox' > '%s/cut.json' 2> '%s/cut.err'; test $? -eq 1; } && "
				  "test $(wc -l < '%s/cut.json') -eq 1999 && "
				  "grep -q 'message 2000 skipped: the last message is cut short' '%s/cut.err'",
				  dir, dir, dir, bin, dir, dir, dir, dir, dir), 0);
	assert_int_equal(test_run("rm -rf '%s'", dir), 0);
	free(bin);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dpdk_mainline),
		cmocka_unit_test(test_tip),
		cmocka_unit_test(test_dpdk_labels),
		cmocka_unit_test(test_dpdk_crlf_and_cut),
	};
	int rc;

	git_libgit2_init();
	g_mime_init();
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	g_mime_shutdown();
	git_libgit2_shutdown();
	return rc;
}
