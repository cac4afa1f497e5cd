/*
 * test_series.c - a commit's patch series (commit/series.h): "[PATCH vK
 * n/m]" subjects, numbered message ids (git-send-email old and new, b4)
 * in Link: trailers, the thread a mail source records, hostile inputs,
 * and that the transport fields change no feature.
 */
#include "testutil.h"

#include <git2.h>
#include <gmime/gmime.h>

#include "commit/series.h"
#include "features/features.h"
#include "source/source.h"
#include "testcommit.h"

static void expect_subject(const char *s, int ok, unsigned n, unsigned m, unsigned v)
{
	unsigned a = 7, b = 7, c = 7;

	if (ss_series_subject(&a, &b, &c, s) != ok)
		fail_msg("'%s': expected %s", s, ok ? "a series" : "none");
	if (ok && (a != n || b != m || c != v))
		fail_msg("'%s': %u/%u v%u, expected %u/%u v%u", s, a, b, c, n, m, v);
	if (!ok && (a || b || c))
		fail_msg("'%s': numbers left set", s);
}

static void test_subject(void **state)
{
	char big[600];

	(void)state;
	expect_subject("[PATCH 2/5] x86: fix", 1, 2, 5, 1);
	expect_subject("[PATCH v3 02/12] net: fix", 1, 2, 12, 3);
	expect_subject("[RFC PATCH net-next v2 1/3] net: x", 1, 1, 3, 2);
	expect_subject("[patch V4 3/3] lower case", 1, 3, 3, 4);
	expect_subject("  [dpdk-dev] [PATCH v2 4/7] net/mlx5: fix", 1, 4, 7, 2);
	expect_subject("[PATCH net/next 2/3] a slash before the number", 1, 2, 3, 1);
	expect_subject("[PATCH 0001/0003] zeros", 1, 1, 3, 1);
	/* not a series */
	expect_subject("[PATCH] single", 0, 0, 0, 0);
	expect_subject("[PATCH v2] single", 0, 0, 0, 0);
	expect_subject("[PATCH 0/5] cover letter", 0, 0, 0, 0);
	expect_subject("[tip: x86/urgent] x86/foo: fix", 0, 0, 0, 0);
	expect_subject("x86: [PATCH 1/2] not at the start", 0, 0, 0, 0);
	expect_subject("", 0, 0, 0, 0);
	expect_subject(NULL, 0, 0, 0, 0);
	/* hostile */
	expect_subject("[PATCH 6/5] n > m", 0, 0, 0, 0);
	expect_subject("[PATCH 3/] no m", 0, 0, 0, 0);
	expect_subject("[PATCH 3] no m", 0, 0, 0, 0);
	expect_subject("[PATCH /3] no n", 0, 0, 0, 0);
	expect_subject("[PATCH 99999999999999999999/99999999999999999999] huge", 0, 0, 0, 0);
	expect_subject("[PATCH 4294967297/4294967298] wraps", 0, 0, 0, 0);
	expect_subject("[PATCH 10000/10000] over the limit", 0, 0, 0, 0);
	expect_subject("[PATCH 1/0] zero total", 0, 0, 0, 0);
	expect_subject("[PATCH 1/3", 0, 0, 0, 0);
	expect_subject("[PATCH -1/3] negative", 0, 0, 0, 0);
	expect_subject("[PATCH 1/3x] garbage", 0, 0, 0, 0);
	expect_subject("[PATCH v0 1/3] version 0", 0, 0, 0, 0);
	expect_subject("[PATCH 1//3] two slashes", 0, 0, 0, 0);
	expect_subject("[[[[PATCH 1/3]]]]", 0, 0, 0, 0);
	memset(big, '[', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	expect_subject(big, 0, 0, 0, 0);
	memset(big, 'x', sizeof(big) - 1);
	big[0] = '[';
	memcpy(big + 400, "PATCH 1/2]", 10);
	expect_subject(big, 0, 0, 0, 0);
}

static void expect_id(const char *id, const char *key, unsigned n)
{
	ss_series s;
	int ok = ss_series_msgid(&s, id);

	if (!key) {
		if (ok || s.key[0] || s.n)
			fail_msg("'%s': expected no series, got '%s' %u", id, s.key, s.n);
		return;
	}
	if (!ok || strcmp(s.key, key) || s.n != n || s.total)
		fail_msg("'%s': got '%s' %u, expected '%s' %u", id, s.key, s.n, key, n);
}

static void test_msgid(void **state)
{
	char big[1200];

	(void)state;
	/* git-send-email: <date.pid-N-sender> */
	expect_id("<20190731054627.5627-2-jhubbard@nvidia.com>",
		  "link:20190731054627.5627-*-jhubbard@nvidia.com", 2);
	expect_id("20190805212134.12001-1-sean.j.christopherson@intel.com",
		  "link:20190805212134.12001-*-sean.j.christopherson@intel.com", 1);
	/* older git-send-email: time-pid-N-git-send-email-sender */
	expect_id("1563900266-19734-2-git-send-email-chiluk+linux@indeed.com",
		  "link:1563900266-19734-*-git-send-email-chiluk+linux@indeed.com", 2);
	/* b4: date-slug-vK-N-hash@host */
	expect_id("<20240117-topic-sm8x50-tcsr-v2-3-4e0b6c85bc6d@linaro.org>",
		  "link:20240117-topic-sm8x50-tcsr-v2-*-4e0b6c85bc6d@linaro.org", 3);
	expect_id("20240117-fix-v1-12-4e0b6c85bc6d@kernel.org",
		  "link:20240117-fix-v1-*-4e0b6c85bc6d@kernel.org", 12);
	/* not numbered */
	expect_id("20190805195654.GA17831@embeddedor", NULL, 0);
	expect_id("7053.1565218556@turing-police", NULL, 0);
	expect_id("0fd8fd4b99b9b9aa88d8b2dff897f7fd0d88f72c.1559129225.git.vpillai@digitalocean.com",
		  NULL, 0);
	expect_id("cover.1559129225.git.vpillai@digitalocean.com", NULL, 0);
	expect_id("", NULL, 0);
	expect_id(NULL, NULL, 0);
	expect_id("<>", NULL, 0);
	/* hostile */
	expect_id("20190731054627.5627-0-a@b", NULL, 0);                /* N of 0 */
	expect_id("20190731054627.5627-99999999999999999999-a@b", NULL, 0);
	expect_id("20190731054627.5627-10000-a@b", NULL, 0);
	expect_id("20190731054627.5627--a@b", NULL, 0);
	expect_id("20190731054627.5627-3-no-at-sign", NULL, 0);
	expect_id("20190731054627.-3-a@b", NULL, 0);                    /* no pid */
	expect_id("2019073105462.5627-3-a@b", NULL, 0);                 /* 13 digits */
	expect_id("20240117-fix-v-3-4e0b6c85bc6d@kernel.org", NULL, 0); /* no K */
	expect_id("20240117-fix-v2-3-xyz@kernel.org", NULL, 0);         /* no hash */
	expect_id("20240117-v2-3-4e0b6c85bc6d@kernel.org", NULL, 0);    /* no slug */
	expect_id("2024011-fix-v2-3-4e0b6c85bc6d@kernel.org", NULL, 0);
	expect_id("--v2-3-4e0b6c85bc6d@", NULL, 0);
	expect_id("@@@@", NULL, 0);
	expect_id("-", NULL, 0);
	memset(big, '1', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	expect_id(big, NULL, 0);
	/* an id too long for a key */
	memcpy(big, "20190731054627.5627-2-", 22);
	memset(big + 22, 'a', sizeof(big) - 23);
	big[600] = '@';
	expect_id(big, NULL, 0);
}

static void expect_link(const char *value, const char *key, unsigned n)
{
	ss_series s;
	int ok = ss_series_link(&s, value);

	if (!key) {
		if (ok || s.key[0])
			fail_msg("'%s': expected no series, got '%s'", value, s.key);
		return;
	}
	if (!ok || strcmp(s.key, key) || s.n != n)
		fail_msg("'%s': got '%s' %u, expected '%s' %u", value, s.key, s.n, key, n);
}

static void test_link(void **state)
{
	static const char key[] = "link:20190731054627.5627-*-jhubbard@nvidia.com";

	(void)state;
	expect_link("https://lkml.kernel.org/r/20190731054627.5627-2-jhubbard@nvidia.com", key, 2);
	expect_link("http://lkml.kernel.org/r/20190731054627.5627-2-jhubbard@nvidia.com", key, 2);
	expect_link("https://lore.kernel.org/r/20190731054627.5627-3-jhubbard@nvidia.com", key, 3);
	expect_link("https://lore.kernel.org/all/20190731054627.5627-3-jhubbard@nvidia.com/", key, 3);
	expect_link("https://lore.kernel.org/lkml/20190731054627.5627-3-jhubbard@nvidia.com/T/#u",
		    key, 3);
	expect_link("https://patch.msgid.link/20190731054627.5627-4-jhubbard%40nvidia.com", key, 4);
	expect_link("<20190731054627.5627-5-jhubbard@nvidia.com>", key, 5);
	expect_link("  https://lore.kernel.org/r/20190731054627.5627-3-jhubbard@nvidia.com # v2",
		    key, 3);
	expect_link("https://bugs.dpdk.org/show_bug.cgi?id=123", NULL, 0);
	expect_link("https://bugzilla.kernel.org/show_bug.cgi?id=2019@x", NULL, 0);
	expect_link("https://lore.kernel.org/r/20190805195654.GA17831@embeddedor", NULL, 0);
	expect_link("https://", NULL, 0);
	expect_link("https:///////", NULL, 0);
	expect_link("https://x/%", NULL, 0);
	expect_link("https://x/%4", NULL, 0);
	expect_link("https://x/%zz@", NULL, 0);
	expect_link("ftp://x/20190731054627.5627-3-a@b", NULL, 0);
	expect_link("<20190731054627.5627-5-jhubbard@nvidia.com", NULL, 0);
	expect_link("", NULL, 0);
	expect_link(NULL, NULL, 0);
}

/* Random strings over the characters the scanners look at: no crash, and
 * whatever is found is in range. */
static void test_random(void **state)
{
	static const char alpha[] = "[]PATCHpatchv0123456789/ -.@<>%:4h#?gitsendemailhttps";
	unsigned seed = 12345;
	char buf[160];

	(void)state;
	for (int round = 0; round < 50000; round++) {
		size_t len;
		unsigned n, m, ver;
		ss_series se;

		seed = seed * 1103515245u + 12345u;
		len = (seed >> 16) % (sizeof(buf) - 1);
		for (size_t i = 0; i < len; i++) {
			seed = seed * 1103515245u + 12345u;
			buf[i] = alpha[(seed >> 16) % (sizeof(alpha) - 1)];
		}
		buf[len] = '\0';
		if (round % 4 == 1 && len > 30)
			memcpy(buf, "[PATCH ", 7);
		if (round % 4 == 2 && len > 40)
			memcpy(buf, "https://lore.kernel.org/r/20240101120000.", 41);
		if (ss_series_subject(&n, &m, &ver, buf) &&
		    !(n >= 1 && n <= m && m <= SS_SERIES_MAX_N && ver >= 1 && ver <= SS_SERIES_MAX_N))
			fail_msg("'%s': %u/%u v%u", buf, n, m, ver);
		if (ss_series_msgid(&se, buf) &&
		    (strncmp(se.key, "link:", 5) || !se.n || se.n > SS_SERIES_MAX_N || se.total))
			fail_msg("'%s': '%s' %u", buf, se.key, se.n);
		if (ss_series_link(&se, buf) &&
		    (strncmp(se.key, "link:", 5) || !se.n || se.n > SS_SERIES_MAX_N))
			fail_msg("'%s': '%s' %u", buf, se.key, se.n);
	}
}

/* The Link: first, else the mail thread; git commits without either have none. */
static void test_of(void **state)
{
	ss_commit *c = tc_commit("1", "a@example.org", 1000,
				 "x86: fix\n\nBody.\n\nLink: https://bugs.example.org/1\n"
				 "Link: https://lore.kernel.org/r/20240101120000.4242-3-a@example.org\n"
				 "Signed-off-by: A <a@example.org>\n", NULL, 0);
	ss_commit *m = tc_commit("2", "a@example.org", 1000, "x86: fix\n\nBody.\n", NULL, 0);
	ss_series s;

	(void)state;
	assert_int_equal(ss_series_of(&s, c), 1);
	assert_string_equal(s.key, "link:20240101120000.4242-*-a@example.org");
	assert_int_equal(s.n, 3);
	c->mail_thread = "root@example.org v2";
	c->mail_n = 1;
	c->mail_total = 4;
	assert_int_equal(ss_series_of(&s, c), 1);
	assert_int_equal(s.n, 3);   /* the Link: wins */
	assert_int_equal(ss_series_of(&s, m), 0);
	assert_string_equal(s.key, "");
	m->mail_thread = "root@example.org v2";
	m->mail_n = 2;
	m->mail_total = 4;
	assert_int_equal(ss_series_of(&s, m), 1);
	assert_string_equal(s.key, "thread:root@example.org v2/4");
	assert_int_equal(s.n, 2);
	assert_int_equal(s.total, 4);
	/* values no mail source writes are still refused */
	m->mail_n = 5;
	assert_int_equal(ss_series_of(&s, m), 0);
	m->mail_n = 0;
	assert_int_equal(ss_series_of(&s, m), 0);
	ss_commit_free(c);
	ss_commit_free(m);
}

#define MAIL(id, hdrs, subject, body) MAIL_FROM("mboxrd@z Thu Jan  1 00:00:00 1970", id, hdrs, subject, body)
#define MAIL_FROM(from, id, hdrs, subject, body) \
	"From " from "\n" \
	"From: Ann <ann@example.org>\n" \
	"Date: Mon, 1 Jan 2024 12:00:00 +0000\n" \
	"Message-ID: <" id ">\n" hdrs \
	"Subject: " subject "\n\n" body \
	"---\n a.c | 1 +\n\ndiff --git a/a.c b/a.c\n--- a/a.c\n+++ b/a.c\n" \
	"@@ -1 +1,2 @@\n a\n+b\n-- \n2.40.0\n\n"

/* A mail source records the thread: References' root, else In-Reply-To,
 * else the mail's own id (patch 1 without a cover letter); not for a
 * format-patch export. */
static void test_mail_thread(void **state)
{
	static const char data[] =
		MAIL("p1@x", "", "[PATCH v2 1/3] a: one", "One.\n\n")
		MAIL("p2@x", "In-Reply-To: <p1@x>\nReferences: <p1@x>\n", "[PATCH v2 2/3] a: two",
		     "Two.\n\n")
		MAIL("p3@x", "In-Reply-To: <p2@x>\nReferences: <p1@x> <p2@x>\n",
		     "[PATCH v2 3/3] a: three", "Three.\n\n")
		MAIL("q1@x", "In-Reply-To: <c0@x>\n", "[PATCH 9/3] a: hostile", "Bad.\n\n")
		MAIL("s1@x", "", "[PATCH] a: single", "Single.\n\n")
		/* a format-patch export: its numbers are a range of history */
		MAIL_FROM("0123456789abcdef0123456789abcdef01234567 Mon Sep 17 00:00:00 2001", "e2@x",
			  "In-Reply-To: <e1@x>\nReferences: <e1@x>\n", "[PATCH 2/3] a: export",
			  "Export.\n\n");
	char *dir = test_tmpdir(), path[4200];
	ss_source_options o = SS_SOURCE_OPTIONS_INIT;
	ss_source *src;
	ss_commit *c;
	size_t k = 0;

	(void)state;
	snprintf(path, sizeof(path), "%s/t.mbox", dir);
	test_write_file(path, data, sizeof(data) - 1);
	assert_int_equal(ss_source_open(&src, path, &o), 0);
	while (ss_source_next(&c, src) == 0) {
		ss_series s;
		int got = ss_series_of(&s, c);

		if (k < 3) {
			assert_int_equal(got, 1);
			assert_string_equal(s.key, "thread:p1@x v2/3");
			assert_int_equal(s.n, k + 1);
			assert_string_equal(c->mail_thread, "p1@x v2");
		} else {
			assert_int_equal(got, 0);
			assert_null(c->mail_thread);
		}
		ss_commit_free(c);
		k++;
	}
	assert_int_equal(k, 6);
	ss_source_free(src);
	free(dir);
}

/* The transport fields change no feature: the same raw features with
 * and without them. */
static void test_no_feature(void **state)
{
	static const char *const lines[] = { " a", "-if (x)", "+if (!x)", " b", NULL };
	tc_file f = { "kernel/a.c", "int f(void)", lines, SS_FILE_MODIFIED };
	ss_commit *c = tc_commit("1", "a@example.org", 1000, "x86: fix f\n\nBody.\n", &f, 1);
	ss_feat_options o = SS_FEAT_OPTIONS_INIT;
	ss_feat_raw a, b;

	(void)state;
	ss_feat_raw_init(&a);
	ss_feat_raw_init(&b);
	assert_int_equal(ss_feat_extract(&a, c, NULL, &o), 0);
	c->mail_thread = "20240101120000.4242-1-a@example.org v3";
	c->mail_n = 2;
	c->mail_total = 9;
	c->patch_n = 2;
	c->patch_total = 9;
	assert_int_equal(ss_feat_extract(&b, c, NULL, &o), 0);
	assert_memory_equal(a.dense, b.dense, sizeof(a.dense));
	assert_int_equal(a.nhashed, b.nhashed);
	assert_memory_equal(a.hashed, b.hashed, a.nhashed * sizeof(*a.hashed));
	assert_int_equal(a.words.len, b.words.len);
	assert_memory_equal(a.words.buf, b.words.buf, a.words.len);
	ss_feat_raw_release(&a);
	ss_feat_raw_release(&b);
	ss_commit_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_subject),
		cmocka_unit_test(test_msgid),
		cmocka_unit_test(test_link),
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_of),
		cmocka_unit_test(test_mail_thread),
		cmocka_unit_test(test_no_feature),
	};

	int rc;

	git_libgit2_init();
	g_mime_init();
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	git_libgit2_shutdown();
	return rc;
}
