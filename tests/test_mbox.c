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

/*
 * A series for the CRLF and cut tests: trailers, a quoted-printable part,
 * a diffstat and paths, a signature; the last mail is base64 (its text:
 * "Fix the caf\xe9 counter.\n\nFixes: ...\nCc: stable@dpdk.org\n\n
 * Signed-off-by: ...\nReviewed-by: ...\n---\n lib/counter.c | 3 ++-\n
 * 1 file changed, 2 insertions(+), 1 deletion(-)\n\ndiff --git ...
 * @@ -1,2 +1,3 @@\n int n;\n-int m;\n+int m = 1;\n+int k;\n-- \n2.34.1\n").
 */
static const char series[] =
	"From " SHA1 " Mon Sep 17 00:00:00 2001\n"
	"From: Ann Dev <ann@example.com>\n"
	"Date: Tue, 14 Feb 2017 16:09:41 -0600\n"
	"Subject: [PATCH 1/2] net/foo: fix the queue\n"
	" count\n"
	"MIME-Version: 1.0\n"
	"Content-Type: text/plain; charset=UTF-8\n"
	"Content-Transfer-Encoding: quoted-printable\n"
	"\n"
	"The queue count is off by one; caf=C3=A9 =3D ok, and a long line that is=\n"
	" folded by quoted-printable.\n"
	"\n"
	"Fixes: 0123456789ab (\"net/foo: add queues\")\n"
	"Cc: stable@dpdk.org\n"
	"\n"
	"Signed-off-by: Ann Dev <ann@example.com>\n"
	"Acked-by: Bob <bob@example.com>\n"
	"---\n"
	" drivers/net/foo/foo.c | 2 +-\n"
	" drivers/net/foo/foo.h | 1 +\n"
	" 2 files changed, 2 insertions(+), 1 deletion(-)\n"
	"\n"
	"diff --git a/drivers/net/foo/foo.c b/drivers/net/foo/foo.c\n"
	"index 065397bf10..d6bb8f89ac 100644\n"
	"--- a/drivers/net/foo/foo.c\n"
	"+++ b/drivers/net/foo/foo.c\n"
	"@@ -1,3 +1,3 @@ int foo_queues(void)\n"
	" {\n"
	"-\treturn n =3D 0;\n"
	"+\treturn n =3D 1;\n"
	" }\n"
	"diff --git a/drivers/net/foo/foo.h b/drivers/net/foo/foo.h\n"
	"index 065397bf10..d6bb8f89ac 100644\n"
	"--- a/drivers/net/foo/foo.h\n"
	"+++ b/drivers/net/foo/foo.h\n"
	"@@ -1 +1,2 @@\n"
	" int foo_queues(void);\n"
	"+int foo_reset(void);\n"
	"-- =\n"
	"\n"
	"2.34.1\n"
	"\n"
	"From " SHA2 " Mon Sep 17 00:00:00 2001\n"
	"From: Ann Dev <ann@example.com>\n"
	"Date: Wed, 15 Feb 2017 10:00:00 +0100\n"
	"Subject: [PATCH 2/2] lib: fix the counter\n"
	"MIME-Version: 1.0\n"
	"Content-Type: text/plain; charset=ISO-8859-1\n"
	"Content-Transfer-Encoding: base64\n"
	"\n"
	"Rml4IHRoZSBjYWbpIGNvdW50ZXIuCgpGaXhlczogMDEyMzQ1Njc4OWFiICgibGliOiBhZGQgY291\n"
	"bnRlciIpCkNjOiBzdGFibGVAZHBkay5vcmcKClNpZ25lZC1vZmYtYnk6IEFubiBEZXYgPGFubkBl\n"
	"eGFtcGxlLmNvbT4KUmV2aWV3ZWQtYnk6IEJvYiA8Ym9iQGV4YW1wbGUuY29tPgotLS0KIGxpYi9j\n"
	"b3VudGVyLmMgfCAzICsrLQogMSBmaWxlIGNoYW5nZWQsIDIgaW5zZXJ0aW9ucygrKSwgMSBkZWxl\n"
	"dGlvbigtKQoKZGlmZiAtLWdpdCBhL2xpYi9jb3VudGVyLmMgYi9saWIvY291bnRlci5jCmluZGV4\n"
	"IDExMTExMTEuLjIyMjIyMjIgMTAwNjQ0Ci0tLSBhL2xpYi9jb3VudGVyLmMKKysrIGIvbGliL2Nv\n"
	"dW50ZXIuYwpAQCAtMSwyICsxLDMgQEAKIGludCBuOwotaW50IG07CitpbnQgbSA9IDE7CitpbnQg\n"
	"azsKLS0gCjIuMzQuMQo=\n"
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

/* What test_source_each's callbacks saw, and when they stop the walk. */
struct each {
	size_t n, skips;
	int stop_at;        /* fn returns 7 at this commit (1-based; 0 never) */
	int skip_rc;        /* skip returns this */
};

static int each_commit(ss_commit *c, void *ud)
{
	struct each *e = ud;

	ss_commit_free(c);
	return ++e->n == (size_t)e->stop_at ? 7 : 0;
}

static int each_skip(void *ud)
{
	struct each *e = ud;

	assert_true(ss_error_last()[0] != '\0');   /* names the message */
	e->skips++;
	return e->skip_rc;
}

static int each_over(const char *path, struct each *e, ss_source_skip_fn skip)
{
	ss_source_options o = SS_SOURCE_OPTIONS_INIT;
	ss_source *s;
	int rc;

	assert_int_equal(ss_source_open(&s, path, &o), 0);
	rc = ss_source_each(s, each_commit, skip, e);
	ss_source_free(s);
	return rc;
}

/* The one loop over a source (ss_source_each): every commit to fn, a
 * malformed message to skip, and either's non-zero stops it, returned
 * as is. */
static void test_source_each(void **state)
{
	const char bad[] = "From " SHA2 " Mon Sep 17 00:00:00 2001\n"
			   "From: X <x@y>\nSubject: [PATCH] no date\n\nbody\n\n";
	size_t len = 2 * (sizeof(format_patch) - 1) + sizeof(bad) - 1;
	char *buf = malloc(len + 1), *path;
	struct read_result r;
	struct each e;

	(void)state;
	assert_non_null(buf);
	snprintf(buf, len + 1, "%s%s%s", format_patch, bad, format_patch);
	path = write_tmp("each.mbox", buf, len);
	read_all(&r, path, 0);
	assert_int_equal(r.skipped, 1);
	assert_true(r.n >= 2);
	/* to the end: the commits next() gives, the skipped one to skip */
	e = (struct each){ 0, 0, 0, 0 };
	assert_int_equal(each_over(path, &e, each_skip), 0);
	assert_int_equal(e.n, r.n);
	assert_int_equal(e.skips, 1);
	/* no skip: passed over quietly */
	e = (struct each){ 0, 0, 0, 0 };
	assert_int_equal(each_over(path, &e, NULL), 0);
	assert_int_equal(e.n, r.n);
	/* fn stops it at the first commit */
	e = (struct each){ 0, 0, 1, 0 };
	assert_int_equal(each_over(path, &e, each_skip), 7);
	assert_int_equal(e.n, 1);
	assert_int_equal(e.skips, 0);
	/* skip stops it at the malformed message, after the first mail's */
	e = (struct each){ 0, 0, 0, -5 };
	assert_int_equal(each_over(path, &e, each_skip), -5);
	assert_int_equal(e.skips, 1);
	assert_true(e.n >= 1 && e.n < r.n);
	free_result(&r);
	free(path);
	free(buf);
}

/* LF -> CRLF, into a malloc'd buffer. */
static char *to_crlf(const char *s, size_t len, size_t *out_len)
{
	char *d = malloc(2 * len + 1);
	size_t i, n = 0;

	assert_non_null(d);
	for (i = 0; i < len; i++) {
		if (s[i] == '\n')
			d[n++] = '\r';
		d[n++] = s[i];
	}
	*out_len = n;
	return d;
}

/* `stablesel log` of data and of its CRLF twin print the same bytes. */
static void check_crlf_same(const char *name, const char *data, size_t len, size_t want_commits)
{
	char *dir = test_tmpdir(), *crlf, *lf_out, *crlf_out;
	size_t clen, n1 = 0, n2 = 0, i, lines = 0;

	crlf = to_crlf(data, len, &clen);
	{
		char p1[600], p2[600];

		snprintf(p1, sizeof(p1), "%s/%s", dir, name);
		snprintf(p2, sizeof(p2), "%s/crlf-%s", dir, name);
		test_write_file(p1, data, len);
		test_write_file(p2, crlf, clen);
		assert_int_equal(test_run("./stablesel log --lines '%s' > '%s.json' 2>/dev/null", p1, p1), 0);
		assert_int_equal(test_run("./stablesel log --lines '%s' > '%s.json' 2>/dev/null", p2, p2), 0);
		strcat(p1, ".json");
		strcat(p2, ".json");
		lf_out = test_read_file(p1, &n1);
		crlf_out = test_read_file(p2, &n2);
	}
	assert_non_null(lf_out);
	assert_non_null(crlf_out);
	for (i = 0; i < n1; i++)
		lines += lf_out[i] == '\n';
	assert_int_equal(lines, want_commits);
	assert_null(memchr(lf_out, '\r', n1));
	assert_null(strstr(lf_out, "\\r"));
	assert_int_equal(n1, n2);
	assert_memory_equal(lf_out, crlf_out, n1);
	free(lf_out);
	free(crlf_out);
	free(crlf);
	free(dir);
}

/* A CRLF mbox (as saved by some mail clients) parses exactly as LF. */
static void test_crlf(void **state)
{
	struct read_result r;
	char *crlf, *path;
	size_t clen, i;

	(void)state;
	check_crlf_same("series.mbox", series, sizeof(series) - 1, 2);
	check_crlf_same("tip.mbox", tip_mboxrd, sizeof(tip_mboxrd) - 1, 1);
	check_crlf_same("fp.mbox", format_patch, sizeof(format_patch) - 1, 2);

	/* through the API: no '\r' in trailers, paths or lines */
	crlf = to_crlf(series, sizeof(series) - 1, &clen);
	path = write_tmp("crlf.mbox", crlf, clen);
	read_all(&r, path, 0);
	assert_int_equal(r.n, 2);
	assert_int_equal(r.end_rc, SS_ITEROVER);
	for (i = 0; i < r.n; i++) {
		ss_commit *c = r.c[i];
		size_t t, f;

		assert_true(c->ntrailers >= 4);
		assert_null(strchr(c->subject, '\r'));
		assert_null(strchr(c->message, '\r'));
		for (t = 0; t < c->ntrailers; t++)
			assert_null(strchr(c->trailers[t].value, '\r'));
		for (f = 0; f < c->nfiles; f++)
			assert_null(strchr(c->files[f].new_path, '\r'));
	}
	assert_string_equal(r.c[0]->files[1].new_path, "drivers/net/foo/foo.h");
	assert_string_equal(r.c[1]->trailers[0].value, "0123456789ab (\"lib: add counter\")");
	free_result(&r);
	free(path);
	free(crlf);

	/* a patch to a CRLF file keeps its '\r' in a CRLF mbox too */
	{
		static const char crlf_file[] =
			"From " SHA1 " Mon Sep 17 00:00:00 2001\n"
			"From: Ann <ann@example.com>\n"
			"Date: Tue, 14 Feb 2017 16:09:41 -0600\n"
			"Subject: [PATCH] win: fix\n"
			"\n"
			"Signed-off-by: Ann <ann@example.com>\n"
			"---\n"
			"diff --git a/w.bat b/w.bat\n"
			"index 1111111..2222222 100644\n"
			"--- a/w.bat\n"
			"+++ b/w.bat\n"
			"@@ -1 +1 @@\n"
			"-a\r\n"
			"+b\r\n"
			"\n";
		const char *names[2] = { "lf-w.mbox", "crlf-w.mbox" };
		int k;

		crlf = to_crlf(crlf_file, sizeof(crlf_file) - 1, &clen);
		for (k = 0; k < 2; k++) {
			path = k ? write_tmp(names[k], crlf, clen) :
				   write_tmp(names[k], crlf_file, sizeof(crlf_file) - 1);
			read_all(&r, path, 0);
			assert_int_equal(r.n, 1);
			assert_string_equal(r.c[0]->files[0].hunks[0].lines[1].text, "b\r");
			free_result(&r);
			free(path);
		}
		free(crlf);
	}
}

/*
 * Cut data at every offset in [from, to): the mails before the last are
 * read, the last one is reported and skipped, and reading goes on to the
 * end (the caller exits non-zero).
 */
static void check_cuts(const char *data, size_t from, size_t to, size_t whole)
{
	struct read_result r;
	size_t cut;

	for (cut = from; cut < to; cut++) {
		char *path = write_tmp("cut.mbox", data, cut);

		read_all(&r, path, 0);
		/* a file cut in the header of its only message has none */
		if (!whole && !r.n && r.end_rc == SS_EINVALID &&
		    strstr(ss_error_last(), "is cut short: it ends in the header")) {
			free(path);
			continue;
		}
		/* nor is a mail cut right after the blank line that ends its
		 * header told from a whole mail without text: not a patch */
		if (r.n == whole && !r.skipped && r.stats.skipped_other == 1 &&
		    data[cut - 1] == '\n' && data[cut - 2] == '\n') {
			free_result(&r);
			free(path);
			continue;
		}
		if (r.n != whole || r.skipped != 1 || r.end_rc != SS_ITEROVER)
			fail_msg("cut at %zu of %zu: %zu commits, %zu skipped, rc %d (%s)", cut, to,
				 r.n, r.skipped, r.end_rc, ss_error_last());
		free_result(&r);
		free(path);
	}
}

/* Where the last message of an mbox starts: the end of its separator
 * line (a cut within that line leaves the message before it last). */
static size_t last_message(const char *data, const char *sep)
{
	const char *p = data, *hit, *last = NULL;

	while ((hit = strstr(p, sep))) {
		if (hit == data || hit[-1] == '\n')
			last = hit;
		p = hit + 1;
	}
	assert_non_null(last);
	return (size_t)(strchr(last, '\n') + 1 - data);
}

/* A plain mbox cut short does not become a commit. */
static void test_cut_short(void **state)
{
	struct read_result r;
	size_t start, len;
	char *path;

	(void)state;
	/* the whole files are read whole */
	path = write_tmp("series.mbox", series, sizeof(series) - 1);
	read_all(&r, path, 0);
	assert_int_equal(r.n, 2);
	assert_int_equal(r.skipped, 0);
	assert_string_equal(r.c[1]->subject, "lib: fix the counter");
	assert_int_equal(r.c[1]->added, 2);
	free_result(&r);
	free(path);

	/* base64: every cut up to the last encoded line, which holds the
	 * end of the diff */
	start = last_message(series, "From " SHA2);
	len = (size_t)(strstr(series, "azsKLS0g") - series);
	check_cuts(series, start, len + 1, 1);
	/* format-patch, quoted-printable, two files: every cut before the
	 * signature of a one-message file */
	len = (size_t)(strstr(series, "-- =\n") - series);
	check_cuts(series, last_message(series, "From " SHA1), len, 0);
	/* tip (mboxrd, 8bit, no diffstat summary): every cut before its last
	 * line is whole */
	len = sizeof(tip_mboxrd) - 1;
	check_cuts(tip_mboxrd, last_message(tip_mboxrd, "From mboxrd@z"), len - 2, 0);
	/* a format-patch mail without a diffstat, cut in its third file:
	 * its header lines promise changes, its hunk promises two lines */
	len = (size_t)(strstr(format_patch, "diff --git a/y.c") - format_patch);
	check_cuts(format_patch, len + 1,
		   (size_t)(strstr(format_patch + len, "+c\n") - format_patch) + 2, 1);

	/* the CLI: the cut tip mail is reported, naming file and message,
	 * nothing is printed for it, exit 1 */
	{
		char *dir = test_tmpdir(), *out;
		size_t n;
		const char *cut = strstr(tip_mboxrd, "CommitterDate:");

		len = (size_t)(strchr(cut, '\n') + 1 - tip_mboxrd);
		path = write_tmp("tipcut.mbox", tip_mboxrd, len);
		assert_int_equal(test_run("./stablesel log '%s' > '%s/out' 2> '%s/err'", path, dir, dir), 1);
		{
			char p[600];

			snprintf(p, sizeof(p), "%s/out", dir);
			out = test_read_file(p, &n);
			assert_int_equal(n, 0);
			free(out);
			snprintf(p, sizeof(p), "%s/err", dir);
			out = test_read_file(p, &n);
		}
		assert_non_null(strstr(out, "tipcut.mbox"));
		assert_non_null(strstr(out, "message 1"));
		assert_non_null(strstr(out, "cut short"));
		assert_non_null(strchr(out, '\n'));
		assert_int_equal(strchr(out, '\n') + 1 - out, (long)n); /* one line */
		free(out);
		free(path);
		free(dir);
	}
}

/* What holds no mail at all is an error saying what it looks like. */
static void test_not_an_mbox(void **state)
{
	static const struct {
		const char *name, *data, *looks;
	} cases[] = {
		{ "empty.mbox", "", "it is empty" },
		{ "labels.tsv", "sha\tauthor_time\tin_stable\nabc\t1\t0\n", "TSV" },
		{ "notes.txt", "just some notes\nand more\n", "text" },
		{ "x.bin", "\x7f" "ELF\x02\x01\x01\0\0\0\0\0\0\0\0\0", "binary" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t len = !strcmp(cases[i].name, "x.bin") ? 16 : strlen(cases[i].data);
		char *path = write_tmp(cases[i].name, cases[i].data, len);
		struct read_result r;
		char *dir = test_tmpdir(), *err;
		size_t n;

		read_all(&r, path, 0);
		assert_int_equal(r.n, 0);
		assert_int_equal(r.end_rc, SS_EINVALID);
		assert_non_null(strstr(ss_error_last(), cases[i].name));
		assert_non_null(strstr(ss_error_last(), "is not an mbox"));
		assert_non_null(strstr(ss_error_last(), cases[i].looks));
		/* the CLI stops with that one line; so does a compressed one */
		assert_int_equal(test_run("./stablesel log '%s' > /dev/null 2> '%s/err'", path, dir), 128);
		{
			char p[600];

			snprintf(p, sizeof(p), "%s/err", dir);
			err = test_read_file(p, &n);
		}
		assert_non_null(strstr(err, "is not an mbox"));
		assert_int_equal(strchr(err, '\n') + 1 - err, (long)n);
		free(err);
		assert_int_equal(test_run("zstd -qf '%s' -o '%s.zst' && ./stablesel log '%s.zst' > /dev/null 2>&1",
					  path, path, path), 128);
		free(dir);
		free(path);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format_patch),
		cmocka_unit_test(test_compressed),
		cmocka_unit_test(test_tip),
		cmocka_unit_test(test_posted_series),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_crlf),
		cmocka_unit_test(test_cut_short),
		cmocka_unit_test(test_not_an_mbox),
		cmocka_unit_test(test_source_each),
	};
	int rc;

	git_libgit2_init();
	g_mime_init();
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	g_mime_shutdown();
	git_libgit2_shutdown();
	return rc;
}
