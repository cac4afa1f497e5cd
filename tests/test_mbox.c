/*
 * test_mbox.c - the mail reader on hand-made mboxes: format-patch (mboxo),
 * lore/tip (mboxrd), posted series, encodings, compression, bad input.
 */
#include "testutil.h"

#include <git2.h>
#include <gmime/gmime.h>

#include "source/source.h"
#include "util/error.h"

#define SHA1 "1111111111111111111111111111111111111111"
#define SHA2 "2222222222222222222222222222222222222222"

static const char format_patch[] =
	"From " SHA1 " Mon Sep 17 00:00:00 2001\n"
	"From: =?UTF-8?q?J=C3=B6rg=20Dev?= <jorg@example.com>\n"
	"Date: Tue, 14 Feb 2017 16:09:41 -0600\n"
	"Subject: [PATCH 00001/00002] examples: fix optind reset that is\n"
	" folded\n"
	"MIME-Version: 1.0\n"
	"Content-Type: text/plain; charset=UTF-8\n"
	"Content-Transfer-Encoding: quoted-printable\n"
	"\n"
	"The variable optind should be reset to one not zero.\n"
	"\n"
	"From the man page:\n"
	">From quoted in the original\n"
	"caf=C3=A9 =3D ok\n"
	"\n"
	"Fixes: 0123456789ab (\"examples: add\")\n"
	"Cc: stable@dpdk.org\n"
	"\n"
	"Signed-off-by: J=C3=B6rg Dev <jorg@example.com>\n"
	"---\n"
	" a.c | 2 +-\n"
	" 1 file changed, 1 insertion(+), 1 deletion(-)\n"
	"\n"
	"diff --git a/a.c b/a.c\n"
	"index 065397bf10..d6bb8f89ac 100644\n"
	"--- a/a.c\n"
	"+++ b/a.c\n"
	"@@ -1,3 +1,3 @@ int main(void)\n"
	" {\n"
	"-\toptind =3D 0;\n"
	"+\toptind =3D 1;\n"
	" \n"
	"-- =\n"
	"\n"
	"2.34.1\n"
	"\n"
	"From " SHA2 " Mon Sep 17 00:00:00 2001\n"
	"From: Ann <ann@example.com>\n"
	"Date: Wed, 15 Feb 2017 10:00:00 +0100\n"
	"Subject: [PATCH 00002/00002] build: add empty file and rename\n"
	"\n"
	"Signed-off-by: Ann <ann@example.com>\n"
	"---\n"
	"diff --git a/x.c b/x.c\n"
	"index 1111111..2222222 100644\n"
	"--- a/x.c\n"
	"+++ b/x.c\n"
	"@@ -1 +1 @@\n"
	"-a\n"
	"+b\n"
	"diff --git a/empty.h b/empty.h\n"
	"new file mode 100644\n"
	"index 0000000000..e69de29bb2\n"
	"diff --git a/y.c b/y.c\n"
	"index 1111111..2222222 100644\n"
	"--- a/y.c\n"
	"+++ b/y.c\n"
	"@@ -1 +1,2 @@\n"
	" a\n"
	"+c\n"
	"diff --git a/old.c b/new.c\n"
	"similarity index 100%\n"
	"rename from old.c\n"
	"rename to new.c\n"
	"\n"
	"\n";

static const char tip_mboxrd[] =
	"From mboxrd@z Thu Jan  1 00:00:00 1970\n"
	"Date: Wed, 21 Aug 2019 20:40:00 -0000\n"
	"From: \"tip-bot2 for Ann Dev\" <tip-bot2@linutronix.de>\n"
	"Cc: stable@vger.kernel.org, x86@kernel.org\n"
	"Subject: [tip: x86/urgent] x86/boot: Fix boot regression\n"
	"Message-ID: <156642@tip-bot2>\n"
	"Content-Type: text/plain; charset=\"utf-8\"\n"
	"Content-Transfer-Encoding: 8bit\n"
	"\n"
	"The following commit has been merged into the x86/urgent branch of tip:\n"
	"\n"
	"Commit-ID:     7846f58fba964af7cb8cf77d4d13c33254725211\n"
	"Gitweb:        https://git.kernel.org/tip/7846f58fba964af7cb8cf77d4d13c33254725211\n"
	"Author:        John Hubbard <jhubbard@nvidia.com>\n"
	"AuthorDate:    Wed, 21 Aug 2019 12:25:13 -07:00\n"
	"Committer:     Thomas Gleixner <tglx@linutronix.de>\n"
	"CommitterDate: Wed, 21 Aug 2019 22:37:09 +02:00\n"
	"\n"
	"x86/boot: Fix boot regression caused by bootparam sanitizing\n"
	"\n"
	">From a quoted line.\n"
	">>From a doubly quoted line.\n"
	"\n"
	"Fixes: a90118c445cc (\"x86/boot: Save fields explicitly\")\n"
	"Signed-off-by: John Hubbard <jhubbard@nvidia.com>\n"
	"Cc: stable@vger.kernel.org\n"
	"---\n"
	" arch/x86/include/asm/bootparam_utils.h | 1 +\n"
	"\n"
	"diff --git a/arch/x86/include/asm/bootparam_utils.h b/arch/x86/include/asm/bootparam_utils.h\n"
	"index 101eb94..f5e90a8 100644\n"
	"--- a/arch/x86/include/asm/bootparam_utils.h\n"
	"+++ b/arch/x86/include/asm/bootparam_utils.h\n"
	"@@ -70,0 +71 @@ static void sanitize_boot_params(struct boot_params *boot_params)\n"
	"+\t\t\tBOOT_PARAM_PRESERVE(hdr),\n"
	"\n";

static const char posted_series[] =
	"From nobody Mon Jan  1 00:00:00 2024\n"
	"From: Ann <ann@example.com>\n"
	"Date: Mon, 1 Jan 2024 10:00:00 +0000\n"
	"Subject: [PATCH v2 0/2] two fixes\n"
	"Message-ID: <cover@example.com>\n"
	"\n"
	"This series fixes two things.\n"
	"\n"
	"From nobody Mon Jan  1 00:00:00 2024\n"
	"From: Ann <ann@example.com>\n"
	"Date: Mon, 1 Jan 2024 10:00:01 +0000\n"
	"Subject: [PATCH v2 1/2] lib: fix overflow\n"
	"Message-ID: <p1@example.com>\n"
	"In-Reply-To: <cover@example.com>\n"
	"Content-Type: text/plain; charset=ISO-8859-1\n"
	"Content-Transfer-Encoding: base64\n"
	"\n"
	/* "Fix caf\xe9.\n\nSigned-off-by: Ann <ann@example.com>\n---\n
	 *  diff --git a/l.c b/l.c\n--- a/l.c\n+++ b/l.c\n@@ -1 +1 @@\n-a\n+b\n" */
	"Rml4IGNhZukuCgpTaWduZWQtb2ZmLWJ5OiBBbm4gPGFubkBleGFtcGxlLmNvbT4KLS0tCmRpZmYg\n"
	"LS1naXQgYS9sLmMgYi9sLmMKLS0tIGEvbC5jCisrKyBiL2wuYwpAQCAtMSArMSBAQAotYQorYgo=\n"
	"\n"
	"From nobody Mon Jan  1 00:00:00 2024\n"
	"From: Bob <bob@example.com>\n"
	"Date: Mon, 1 Jan 2024 11:00:00 +0000\n"
	"Subject: Re: [PATCH v2 1/2] lib: fix overflow\n"
	"Message-ID: <r1@example.com>\n"
	"In-Reply-To: <p1@example.com>\n"
	"\n"
	"Looks good.\n"
	"\n";

struct read_result {
	ss_commit *c[16];
	size_t n, skipped;
	int end_rc;
	ss_source_stats stats;
};

static void read_all(struct read_result *r, const char *path, int mask)
{
	ss_source_options o = SS_SOURCE_OPTIONS_INIT;
	ss_source *s;
	int rc;

	memset(r, 0, sizeof(*r));
	o.mask_stable_tags = mask;
	assert_int_equal(ss_source_open(&s, path, &o), 0);
	for (;;) {
		ss_commit *c;

		rc = ss_source_next(&c, s);
		if (rc == SS_ESKIP) {
			r->skipped++;
			continue;
		}
		if (rc)
			break;
		assert_true(r->n < 16);
		r->c[r->n++] = c;
	}
	r->end_rc = rc;
	r->stats = *ss_source_stats_get(s);
	ss_source_free(s);
}

static void free_result(struct read_result *r)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		ss_commit_free(r->c[i]);
}

static char *write_tmp(const char *name, const char *data, size_t len)
{
	char *dir = test_tmpdir(), *path;

	assert_true(asprintf(&path, "%s/%s", dir, name) > 0);
	test_write_file(path, data, len);
	free(dir);
	return path;
}

static void check_format_patch(struct read_result *r)
{
	ss_commit *c;

	assert_int_equal(r->end_rc, SS_ITEROVER);
	assert_int_equal(r->n, 2);
	c = r->c[0];
	assert_string_equal(c->id, SHA1);
	assert_string_equal(c->author.name, "J\xc3\xb6rg Dev");
	assert_string_equal(c->author.email, "jorg@example.com");
	assert_int_equal(c->author.time, 1487110181);
	assert_int_equal(c->author.tz, -360);
	assert_string_equal(c->subject, "examples: fix optind reset that is folded");
	/* a body "From " line is not a separator, mboxo ">From " stays */
	assert_non_null(strstr(c->message, "\nFrom the man page:\n>From quoted in the original\n"));
	assert_non_null(strstr(c->body, "caf\xc3\xa9 = ok"));
	assert_null(strstr(c->message, "---"));
	assert_int_equal(c->nfiles, 1);
	assert_string_equal(c->files[0].new_path, "a.c");
	assert_int_equal(c->files[0].added, 1);
	assert_int_equal(c->files[0].removed, 1);
	assert_int_equal(c->files[0].nhunks, 1);
	assert_string_equal(c->files[0].hunks[0].func, "int main(void)");
	assert_int_equal(c->files[0].hunks[0].nlines, 4);
	assert_string_equal(c->files[0].hunks[0].lines[2].text, "\toptind = 1;");
	assert_int_equal(c->files[0].hunks[0].lines[2].origin, '+');

	c = r->c[1];
	assert_string_equal(c->id, SHA2);
	/* the new empty file in the middle and the trailing rename parse */
	assert_int_equal(c->nfiles, 4);
	assert_string_equal(c->files[1].new_path, "empty.h");
	assert_int_equal(c->files[1].status, SS_FILE_ADDED);
	assert_null(c->files[1].old_path);
	assert_int_equal(c->files[2].added, 1);
	assert_int_equal(c->files[3].status, SS_FILE_RENAMED);
	assert_string_equal(c->files[3].old_path, "old.c");
	assert_string_equal(c->files[3].new_path, "new.c");
	assert_int_equal(c->added, 2);
	assert_int_equal(c->removed, 1);
}

static void test_format_patch(void **state)
{
	struct read_result r;
	char *path = write_tmp("fp.mbox", format_patch, sizeof(format_patch) - 1);

	(void)state;
	read_all(&r, path, 0);
	check_format_patch(&r);
	assert_true(ss_commit_has_stable_tag(r.c[0]));
	free_result(&r);

	read_all(&r, path, 1);
	assert_false(ss_commit_has_stable_tag(r.c[0]));
	assert_null(strstr(r.c[0]->message, "stable@"));
	assert_int_equal(r.stats.masked, 1);
	free_result(&r);
	free(path);
}

static void test_compressed(void **state)
{
	struct read_result r;
	char *path = write_tmp("fp.mbox", format_patch, sizeof(format_patch) - 1);

	(void)state;
	assert_int_equal(test_run("gzip -kf '%s' && zstd -qf '%s'", path, path), 0);
	{
		char gz[600], zst[600];

		snprintf(gz, sizeof(gz), "%s.gz", path);
		snprintf(zst, sizeof(zst), "%s.zst", path);
		read_all(&r, gz, 0);
		check_format_patch(&r);
		free_result(&r);
		read_all(&r, zst, 0);
		check_format_patch(&r);
		free_result(&r);

		/* a truncated zstd file: what was read is kept, the end is an error */
		assert_int_equal(test_run("head -c 300 '%s' > '%s.cut.zst'", zst, path), 0);
		snprintf(zst, sizeof(zst), "%s.cut.zst", path);
		read_all(&r, zst, 0);
		assert_int_equal(r.end_rc, SS_EINVALID);
		assert_non_null(strstr(ss_error_last(), "truncated"));
		free_result(&r);
	}
	free(path);
}

static void test_tip(void **state)
{
	struct read_result r;
	char *path = write_tmp("tip.mbox", tip_mboxrd, sizeof(tip_mboxrd) - 1);
	ss_commit *c;
	size_t i;

	(void)state;
	read_all(&r, path, 0);
	assert_int_equal(r.n, 1);
	c = r.c[0];
	assert_string_equal(c->id, "7846f58fba964af7cb8cf77d4d13c33254725211");
	assert_string_equal(c->author.name, "John Hubbard");
	assert_string_equal(c->author.email, "jhubbard@nvidia.com");
	assert_int_equal(c->author.time, 1566415513); /* 12:25:13 -07:00 */
	assert_int_equal(c->author.tz, -420);
	assert_string_equal(c->committer.name, "Thomas Gleixner");
	assert_int_equal(c->committer.time, 1566419829);
	assert_string_equal(c->subject, "x86/boot: Fix boot regression caused by bootparam sanitizing");
	/* mboxrd quoting undone once */
	assert_non_null(strstr(c->body, "From a quoted line.\n>From a doubly quoted line."));
	/* no transport: no preamble, no branch, no mail header */
	assert_null(strstr(c->message, "Commit-ID"));
	assert_null(strstr(c->message, "urgent"));
	assert_null(strstr(c->message, "x86@kernel.org"));
	assert_null(strstr(c->message, "tip-bot"));
	assert_int_equal(c->nfiles, 1);
	assert_string_equal(c->files[0].hunks[0].func,
			    "static void sanitize_boot_params(struct boot_params *boot_params)");
	free_result(&r);

	/* masked: the Cc trailer goes; the mail's Cc header never came */
	read_all(&r, path, 1);
	c = r.c[0];
	assert_null(strcasestr(c->message, "stable@"));
	for (i = 0; i < c->ntrailers; i++)
		assert_null(strcasestr(c->trailers[i].value, "stable@"));
	free_result(&r);
	free(path);
}

static void test_posted_series(void **state)
{
	struct read_result r;
	char *path = write_tmp("s.mbox", posted_series, sizeof(posted_series) - 1);
	ss_commit *c;
	git_oid oid;
	char id[41];

	(void)state;
	read_all(&r, path, 0);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.stats.skipped_covers, 1);
	assert_int_equal(r.stats.skipped_replies, 1);
	assert_int_equal(r.stats.messages, 3);
	c = r.c[0];
	git_odb_hash(&oid, "p1@example.com", strlen("p1@example.com"), GIT_OBJECT_BLOB);
	git_oid_tostr(id, sizeof(id), &oid);
	assert_string_equal(c->id, id);
	assert_string_equal(c->subject, "lib: fix overflow");
	assert_string_equal(c->body, "Fix caf\xc3\xa9.");
	assert_int_equal(c->nfiles, 1);
	assert_int_equal(c->added, 1);
	free_result(&r);
	free(path);
}

static void test_bad_input(void **state)
{
	struct read_result r;
	char *buf, *path;
	size_t i, n = 10 * 1024 * 1024;
	ss_source *s;
	ss_source_options o = SS_SOURCE_OPTIONS_INIT;

	(void)state;
	/* missing file */
	assert_int_equal(ss_source_open(&s, "/nonexistent/x.mbox", &o), SS_ENOTFOUND);
	assert_non_null(strstr(ss_error_last(), "cannot open '/nonexistent/x.mbox'"));

	/* random bytes: nothing, no crash */
	buf = malloc(n + 1);
	assert_non_null(buf);
	srand(1);
	for (i = 0; i < 65536; i++)
		buf[i] = (char)(rand() & 0xff);
	path = write_tmp("rand.mbox", buf, 65536);
	read_all(&r, path, 0);
	assert_int_equal(r.n, 0);
	free_result(&r);
	free(path);

	/* one malformed message (no date, broken diff header) between good
	 * ones is skipped with a message; the rest is read; a 10 MB line */
	{
		const char bad[] =
			"From " SHA2 " Mon Sep 17 00:00:00 2001\n"
			"From: X <x@y>\n"
			"Subject: [PATCH] no date\n\n"
			"body\n";
		char *line = buf;
		size_t len = 0;

		memcpy(buf, format_patch, sizeof(format_patch) - 1);
		len = sizeof(format_patch) - 1;
		memcpy(buf + len, bad, sizeof(bad) - 1);
		len += sizeof(bad) - 1;
		memcpy(buf + len, "\n", 1);
		len++;
		/* a message with a 10 MB body line */
		len += (size_t)sprintf(buf + len, "From " SHA1 " Mon Sep 17 00:00:00 2001\n"
				       "From: X <x@y>\nDate: Tue, 14 Feb 2017 16:09:41 -0600\n"
				       "Subject: [PATCH] long\n\n");
		line = buf + len;
		/* the last mail, without a diff: its format-patch signature
		 * shows that it is whole */
		memset(line, 'a', n - len - 13);
		memcpy(buf + n - 13, "\n-- \n2.34.1\n\n", 13);
		path = write_tmp("bad.mbox", buf, n);
		read_all(&r, path, 0);
		assert_int_equal(r.skipped, 1);
		assert_int_equal(r.n, 3);
		assert_int_equal(r.end_rc, SS_ITEROVER);
		assert_true(strlen(r.c[2]->body) > 9 * 1024 * 1024);
		free_result(&r);
		free(path);
	}
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format_patch),
		cmocka_unit_test(test_compressed),
		cmocka_unit_test(test_tip),
		cmocka_unit_test(test_posted_series),
		cmocka_unit_test(test_bad_input),
	};
	int rc;

	git_libgit2_init();
	g_mime_init();
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	g_mime_shutdown();
	git_libgit2_shutdown();
	return rc;
}
