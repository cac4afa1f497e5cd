/*
 * test_hostile.c - input written by strangers: huge and broken mail,
 * absurd patches, odd bytes and charsets, a damaged repository, and a
 * stablesel killed while it writes its output.
 *
 * Each case must end in a clear one-line error or a skip with a warning,
 * the run going on where it can, and never in a crash, a hang or a
 * half-written file.  The binary runs in a child with a time limit and
 * its peak RSS measured (wait4), so that a crash or a runaway fails one
 * test instead of the suite.  Library calls that may crash run in a
 * forked child too.  Inputs are made here (no ../shared/data needed).
 *
 * Tests named fixed_* reproduce bugs found by fuzzing and by these tests
 * (fuzz/README.md lists them with their minimised inputs).
 * The binary is ./stablesel unless SS_BIN names another.
 */
#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <time.h>

#include <git2.h>
#include <gmime/gmime.h>
#include <zstd.h>

#include "commit/commit.h"
#include "source/diff.h"
#include "source/source.h"
#include "util/error.h"

#define SHA1 "1111111111111111111111111111111111111111"
#define SHA2 "2222222222222222222222222222222222222222"

/* A format-patch mail header for id sha with this subject. */
static void put_header(FILE *f, const char *sha, const char *subject, const char *extra)
{
	fprintf(f, "From %s Mon Sep 17 00:00:00 2001\n"
		   "From: A Developer <dev@example.com>\n"
		   "Date: Tue, 14 Feb 2017 16:09:41 -0600\n"
		   "Subject: [PATCH] %s\n%s\n",
		sha, subject, extra ? extra : "");
}

static const char small_diff[] =
	"diff --git a/a.c b/a.c\n"
	"--- a/a.c\n"
	"+++ b/a.c\n"
	"@@ -1 +1 @@\n"
	"-a\n"
	"+b\n";

static FILE *create(const char *name)
{
	char *p = test_scratch_path(name);
	FILE *f = fopen(p, "wb");

	assert_non_null(f);
	free(p);
	return f;
}

static void close_file(FILE *f)
{
	assert_int_equal(fclose(f), 0);
}

static char *slurp(const char *name, size_t *len)
{
	char *p = test_scratch_path(name);
	char *s = test_read_file(p, len);

	assert_non_null(s);
	free(p);
	return s;
}

static size_t count_lines(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* Occurrences of what in s.  By hand: ASan's strstr() interceptor reads
 * the whole rest of s on every call, quadratic on a 9 MB output. */
static size_t count_str(const char *s, const char *what)
{
	size_t n = 0, k = strlen(what);

	for (; *s; s++)
		if (*s == *what && !strncmp(s, what, k)) {
			n++;
			s += k - 1;
		}
	return n;
}

/* Whether s[0..len) is valid UTF-8 (no overlongs, surrogates or > U+10FFFF). */
static int utf8_valid(const unsigned char *s, size_t len)
{
	size_t i = 0;

	while (i < len) {
		unsigned c = s[i];
		size_t n;
		unsigned cp, k;

		if (c < 0x80) {
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf)
			n = 1, cp = c & 0x1f;
		else if (c >= 0xe0 && c <= 0xef)
			n = 2, cp = c & 0x0f;
		else if (c >= 0xf0 && c <= 0xf4)
			n = 3, cp = c & 0x07;
		else
			return 0;
		for (k = 1; k <= n; k++) {
			if (i + k >= len || (s[i + k] & 0xc0) != 0x80)
				return 0;
			cp = cp << 6 | (s[i + k] & 0x3f);
		}
		if ((n == 2 && cp < 0x800) || (n == 3 && (cp < 0x10000 || cp > 0x10ffff)) ||
		    (cp >= 0xd800 && cp <= 0xdfff))
			return 0;
		i += n + 1;
	}
	return 1;
}

/*
 * Run "BIN ARGS" (a shell command line after the binary) with stdout and
 * stderr in the scratch directory's out and err, killing it after
 * timeout_s seconds.
 * Returns its exit code, -1 when a signal ended it (a crash), -2 on
 * timeout (a hang).  *maxrss_kb gets its peak resident size.
 */
static int run_ss(long *maxrss_kb, int timeout_s, const char *fmt, ...)
{
	char args[4096], *cmd;
	struct rusage ru;
	struct timespec t0, now;
	va_list ap;
	pid_t pid;
	int st = 0;

	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	assert_true(asprintf(&cmd, "exec %s %s >'%s/out' 2>'%s/err'", test_bin(), args, test_scratch,
			     test_scratch) > 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	free(cmd);
	for (;;) {
		pid_t r = wait4(pid, &st, WNOHANG, &ru);

		if (r == pid)
			break;
		assert_true(r == 0);
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - t0.tv_sec >= timeout_s) {
			kill(pid, SIGKILL);
			wait4(pid, &st, 0, &ru);
			if (maxrss_kb)
				*maxrss_kb = ru.ru_maxrss;
			print_message("HANG: '%s %s' still running after %d s\n", test_bin(), args,
				      timeout_s);
			return -2;
		}
		usleep(10000);
	}
	if (maxrss_kb)
		*maxrss_kb = ru.ru_maxrss;
	if (WIFSIGNALED(st)) {
		print_message("CRASH: '%s %s' killed by signal %d\n", test_bin(), args, WTERMSIG(st));
		return -1;
	}
	return WEXITSTATUS(st);
}

/* stderr holds exactly n lines, each one-line message starting with one
 * of "error: ", "warning: ", "fatal: ". */
static void assert_err_lines(size_t min, size_t max)
{
	char *e = slurp("err", NULL), *p;
	size_t n = count_lines(e);

	if (n < min || n > max)
		print_message("stderr has %zu lines:\n%s\n", n, e);
	assert_true(n >= min && n <= max);
	for (p = e; *p; p = strchr(p, '\n') + 1) {
		if (strncmp(p, "error: ", 7) && strncmp(p, "warning: ", 9) &&
		    strncmp(p, "fatal: ", 7)) {
			print_message("bad stderr line: %.*s\n", (int)strcspn(p, "\n"), p);
			fail();
		}
		if (!strchr(p, '\n'))
			break;
	}
	free(e);
}

/* The commits a source yields, through the library; skips are counted. */
typedef struct {
	ss_commit *c[16];
	size_t n, skipped;
	int rc; /* SS_ITEROVER, or the fatal error */
	char err[512];
} commits;

static void read_source(commits *out, const char *name, const ss_source_options *opts)
{
	ss_source_options def = SS_SOURCE_OPTIONS_INIT;
	char *p = test_scratch_path(name);
	ss_source *src;
	int rc, calls = 0;

	memset(out, 0, sizeof(*out));
	rc = ss_source_open(&src, p, opts ? opts : &def);
	free(p);
	assert_int_equal(rc, 0);
	for (;;) {
		ss_commit *c;

		/* a reader that never ends is a hang: bound it */
		assert_true(++calls < 10000);
		rc = ss_source_next(&c, src);
		if (rc == SS_ESKIP) {
			out->skipped++;
			snprintf(out->err, sizeof(out->err), "%s", ss_error_last());
			continue;
		}
		if (rc) {
			out->rc = rc;
			if (rc != SS_ITEROVER)
				snprintf(out->err, sizeof(out->err), "%s", ss_error_last());
			break;
		}
		if (out->n < 16)
			out->c[out->n++] = c;
		else
			ss_commit_free(c);
	}
	ss_source_free(src);
}

static void free_commits(commits *cs)
{
	size_t i;

	for (i = 0; i < cs->n; i++)
		ss_commit_free(cs->c[i]);
	cs->n = 0;
}

/* Run fn(arg) in a child: returns 0 when it returned normally, else the
 * signal or exit status (so that an ASan abort fails one test only). */
static int in_child(void (*fn)(const void *), const void *arg)
{
	pid_t pid = fork();
	int st;

	assert_true(pid >= 0);
	if (pid == 0) {
		fn(arg);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	if (WIFSIGNALED(st))
		return 1000 + WTERMSIG(st);
	return WEXITSTATUS(st);
}

/* ---- size ---------------------------------------------------------- */

/* A 50 MB message (500,000 lines of body) and a normal one after it. */
static void test_message_50mb(void **state)
{
	FILE *f = create("big.mbox");
	char line[101];
	long rss = 0;
	char *out;
	int i;

	(void)state;
	memset(line, 'x', 99);
	line[99] = '\n';
	line[100] = '\0';
	put_header(f, SHA1, "huge body", NULL);
	fputs("Fix.\n\n", f);
	for (i = 0; i < 500000; i++)
		fputs(line, f);
	fputs("Signed-off-by: A Developer <dev@example.com>\n---\n", f);
	fputs(small_diff, f);
	fputs("\n", f);
	put_header(f, SHA2, "after the huge one", NULL);
	fputs("Fix.\n---\n", f);
	fputs(small_diff, f);
	close_file(f);

	assert_int_equal(run_ss(&rss, 60, "log '%s/big.mbox'", test_scratch), 0);
	out = slurp("out", NULL);
	assert_int_equal(count_lines(out), 2);
	assert_non_null(strstr(out, "\"subject\":\"after the huge one\""));
	free(out);
	print_message("50 MB message: peak RSS %ld MB\n", rss / 1024);
	assert_true(rss < 2L * 1024 * 1024); /* KB: under 2 GB */
}

static void write_many_files(const char *name, int n, int empty_at)
{
	FILE *f = create(name);
	int i;

	put_header(f, SHA1, "touch many files", NULL);
	fputs("Treewide change.\n---\n", f);
	for (i = 0; i < n; i++) {
		if (i == empty_at)
			fputs("diff --git a/empty.h b/empty.h\n"
			      "new file mode 100644\n"
			      "index 0000000..e69de29\n", f);
		fprintf(f, "diff --git a/d/f%d.c b/d/f%d.c\n--- a/d/f%d.c\n+++ b/d/f%d.c\n"
			   "@@ -1 +1 @@\n-a\n+b\n", i, i, i, i);
	}
	fputs("\n", f);
	close_file(f);
}

/* One patch touching 100,000 files. */
static void test_patch_100k_files(void **state)
{
	long rss = 0;
	char *out;

	(void)state;
	write_many_files("files.mbox", 100000, -1);
	assert_int_equal(run_ss(&rss, 60, "log '%s/files.mbox'", test_scratch), 0);
	out = slurp("out", NULL);
	assert_int_equal(count_lines(out), 1);
	assert_int_equal(count_str(out, "\"path\":\"d/f"), 100000);
	assert_non_null(strstr(out, "\"added\":100000,\"removed\":100000"));
	free(out);
	print_message("100,000 files: peak RSS %ld MB\n", rss / 1024);
	assert_true(rss < 2L * 1024 * 1024);
}

/*
 * FIXED BUG 5 (src/source/diff.c, ss_commit_parse_patch fallback +
 * ss_commit_add_diff): when libgit2 refuses a patch (here: a new empty
 * file in the middle, which diff.c works around), every file is parsed on
 * its own and ss_commit_add_diff() grows c->files with ss_arena_grow() for
 * each, copying the whole array into the arena every time: memory is
 * quadratic in the number of files.  6,000 files take 32 MB without the
 * empty file and 1.1 GB with it; 100,000 files exhaust the machine.
 * Fixed: the array grows geometrically (diff.c reserve_files).
 */
static void test_fixed_many_files_fallback_memory(void **state)
{
	long rss = 0;
	char *out;

	(void)state;
	write_many_files("files-empty.mbox", 6000, 3000);
	assert_int_equal(run_ss(&rss, 60, "log '%s/files-empty.mbox'", test_scratch), 0);
	out = slurp("out", NULL);
	assert_int_equal(count_str(out, "\"path\":\"d/f"), 6000);
	assert_non_null(strstr(out, "\"path\":\"empty.h\""));
	free(out);
	print_message("6,000 files and an empty one: peak RSS %ld MB\n", rss / 1024);
	assert_true(rss < 256L * 1024);
}

/* ---- patches ------------------------------------------------------- */

static const char absurd_patch[] =
	"diff --git a/a.c b/a.c\n"
	"--- a/a.c\n"
	"+++ b/a.c\n"
	"@@ -4294967295,4294967295 +1,99999999999 @@\n"
	"-a\n"
	"+b\n";

/* Parse a patch from an exact-size copy (no NUL after it), so that ASan
 * sees any read past its end, and check every file has a path. */
static void parse_exact(const void *arg)
{
	const char *text = arg;
	size_t len = strlen(text);
	char *copy = malloc(len ? len : 1);
	ss_commit *c = ss_commit_new();
	size_t i;
	int rc;

	if (!copy || !c)
		_exit(2);
	memcpy(copy, text, len);
	rc = ss_commit_parse_patch(c, copy, len, 0);
	if (rc && rc != SS_EINVALID)
		_exit(3);
	if (rc && !ss_error_last()[0])
		_exit(4);
	for (i = 0; !rc && i < c->nfiles; i++)
		if (!ss_file_path(&c->files[i]))
			_exit(5);
	ss_commit_free(c);
	free(copy);
}

static void test_absurd_hunk_ranges(void **state)
{
	FILE *f = create("absurd.mbox");
	char *out;
	int rc;

	(void)state;
	assert_int_equal(in_child(parse_exact, absurd_patch), 0);

	put_header(f, SHA1, "absurd hunk", NULL);
	fprintf(f, "Fix.\n---\n%s\n", absurd_patch);
	put_header(f, SHA2, "after the absurd one", NULL);
	fprintf(f, "Fix.\n---\n%s", small_diff);
	close_file(f);
	rc = run_ss(NULL, 20, "log '%s/absurd.mbox'", test_scratch);
	assert_true(rc == 0 || rc == 1);
	assert_err_lines(0, 1);
	out = slurp("out", NULL);
	assert_non_null(strstr(out, "\"subject\":\"after the absurd one\""));
	/* the hunk's ranges cannot be true: kept or dropped, never believed */
	assert_null(strstr(out, "4294967295"));
	free(out);
}

/* "GIT binary patch" literals: a binary file, no lines, the run goes on. */
static void test_binary_patch(void **state)
{
	FILE *f = create("binary.mbox");
	commits cs;
	const ss_commit *c;

	(void)state;
	put_header(f, SHA1, "add a blob", NULL);
	fputs("Add blob.\n---\n"
	      "diff --git a/b.bin b/b.bin\n"
	      "new file mode 100644\n"
	      "index 0000000000..1111111111\n"
	      "GIT binary patch\n"
	      "literal 12\n"
	      "TcmZ?l%1kQ}(FP$#0%|`2\n"
	      "\n"
	      "literal 0\n"
	      "HcmV?d00001\n"
	      "\n", f);
	fputs(small_diff, f);
	close_file(f);
	read_source(&cs, "binary.mbox", NULL);
	assert_int_equal(cs.rc, SS_ITEROVER);
	assert_int_equal(cs.n, 1);
	c = cs.c[0];
	assert_int_equal(c->nfiles, 2);
	assert_string_equal(ss_file_path(&c->files[0]), "b.bin");
	assert_true(c->files[0].binary);
	assert_int_equal(c->files[0].status, SS_FILE_ADDED);
	assert_int_equal(c->files[0].nhunks, 0);
	assert_string_equal(ss_file_path(&c->files[1]), "a.c");
	assert_int_equal(c->added, 1);
	free_commits(&cs);
}

/* ---- bytes and charsets -------------------------------------------- */

/* FIXED BUG 6 (src/source/mbox.c): a NUL byte in a mail body silently cuts
 * the text there: the commit loses its trailers and its whole diff, and
 * nothing says so.  Expected: the NUL is dropped or replaced and the rest
 * kept, or the message skipped with SS_ESKIP.  Fixed: mbox.c reads the
 * decoded part as bytes and drops the NULs. */
static void test_fixed_nul_in_body(void **state)
{
	static const char body[] = "Fix\0 the\0 bug.\n\nSigned-off-by: A <a@example.com>\n---\n";
	FILE *f = create("nul.mbox");
	commits cs;

	(void)state;
	put_header(f, SHA1, "nul bytes", NULL);
	assert_int_equal(fwrite(body, 1, sizeof(body) - 1, f), sizeof(body) - 1);
	fputs(small_diff, f);
	fputs("\n", f);
	put_header(f, SHA2, "after", NULL);
	fprintf(f, "Fix.\n---\n%s", small_diff);
	close_file(f);
	read_source(&cs, "nul.mbox", NULL);
	assert_int_equal(cs.rc, SS_ITEROVER);
	assert_int_equal(cs.n + cs.skipped, 2);
	assert_true(cs.n > 0);
	assert_string_equal(cs.c[cs.n - 1]->subject, "after");
	if (cs.n == 2) {
		const ss_commit *c = cs.c[0];

		assert_non_null(strstr(c->message, "bug."));
		assert_non_null(ss_commit_trailer(c, "Signed-off-by", NULL));
		assert_int_equal(c->nfiles, 1);
	}
	free_commits(&cs);
}

/* Invalid UTF-8 and charsets GMime does not know: every message is read
 * with its diff, KOI8-R is decoded, and what log prints is valid UTF-8. */
static void test_bad_utf8_and_charsets(void **state)
{
	FILE *f = create("charset.mbox");
	commits cs;
	char *out;
	size_t i, len;

	(void)state;
	put_header(f, SHA1, "koi8-r body",
		   "MIME-Version: 1.0\nContent-Type: text/plain; charset=koi8-r\n"
		   "Content-Transfer-Encoding: 8bit\n");
	fprintf(f, "\xf0\xd2\xc9\xd7\xc5\xd4 fix.\n---\n%s\n", small_diff);
	put_header(f, SHA2, "unknown \xff\xfe charset",
		   "MIME-Version: 1.0\nContent-Type: text/plain; charset=x-unknown\n"
		   "Content-Transfer-Encoding: 8bit\n");
	fprintf(f, "caf\xe9 \xc3\x28 \xff \xed\xa0\x80 \xf4\x90\x80\x80 fix.\n---\n%s\n", small_diff);
	put_header(f, "3333333333333333333333333333333333333333",
		   "=?x-bogus?q?caf=E9?= =?utf-8?b?!!!?=",
		   "MIME-Version: 1.0\nContent-Type: text/plain; charset=utf-8\n"
		   "Content-Transfer-Encoding: quoted-printable\n");
	fprintf(f, "bad =C3=28 and =ZZ and =\n soft break\n---\n%s", small_diff);
	close_file(f);

	read_source(&cs, "charset.mbox", NULL);
	assert_int_equal(cs.rc, SS_ITEROVER);
	assert_int_equal(cs.n, 3);
	for (i = 0; i < cs.n; i++) {
		const ss_commit *c = cs.c[i];

		assert_int_equal(c->nfiles, 1);
	}
	assert_non_null(strstr(cs.c[0]->message, "\xd0\x9f\xd1\x80\xd0\xb8\xd0\xb2\xd0\xb5\xd1\x82"));
	free_commits(&cs);

	assert_int_equal(run_ss(NULL, 20, "log '%s/charset.mbox'", test_scratch), 0);
	out = slurp("out", &len);
	assert_int_equal(count_lines(out), 3);
	assert_true(utf8_valid((const unsigned char *)out, len));
	free(out);
}

/* "From " lines in a format-patch body are text, not separators. */
static void test_from_line_in_body(void **state)
{
	FILE *f = create("from.mbox");
	commits cs;

	(void)state;
	put_header(f, SHA1, "from lines", NULL);
	fprintf(f, "Fix.\n\nFrom the man page:\nFrom 1234567 is not a commit\n"
		   ">From quoted\n\nSigned-off-by: A <a@example.com>\n---\n%s\n",
		small_diff);
	put_header(f, SHA2, "after", NULL);
	fprintf(f, "Fix.\n---\n%s", small_diff);
	close_file(f);
	read_source(&cs, "from.mbox", NULL);
	assert_int_equal(cs.rc, SS_ITEROVER);
	assert_int_equal(cs.n, 2);
	assert_non_null(strstr(cs.c[0]->message, "\nFrom the man page:\n"));
	assert_non_null(strstr(cs.c[0]->message, "\nFrom 1234567 is not a commit\n"));
	assert_non_null(ss_commit_trailer(cs.c[0], "Signed-off-by", NULL));
	assert_int_equal(cs.c[0]->nfiles, 1);
	assert_string_equal(cs.c[1]->subject, "after");
	free_commits(&cs);
}

/* ---- truncated input ----------------------------------------------- */

static char *two_messages(size_t *len)
{
	FILE *f = create("two.mbox");

	put_header(f, SHA1, "first", NULL);
	fprintf(f, "Fix the first.\n---\n%s\n", small_diff);
	put_header(f, SHA2, "second", NULL);
	fprintf(f, "Fix the second.\n---\n%s", small_diff);
	close_file(f);
	return slurp("two.mbox", len);
}

/* An mbox cut in the middle of its second message: the first is intact,
 * the run ends normally; compressed, the cut is named in one line. */
static void test_mbox_cut_mid_message(void **state)
{
	size_t len, zcap, zlen;
	char *mb = two_messages(&len), *out, *z;
	FILE *f;
	int rc;

	(void)state;
	f = create("cut.mbox");
	assert_int_equal(fwrite(mb, 1, len - 30, f), len - 30);
	close_file(f);
	rc = run_ss(NULL, 20, "log '%s/cut.mbox'", test_scratch);
	assert_true(rc == 0 || rc == 1);
	assert_err_lines(0, 1);
	out = slurp("out", NULL);
	assert_non_null(strstr(out, "\"subject\":\"first\""));
	assert_non_null(strstr(out, "\"path\":\"a.c\",\"status\":\"modified\",\"binary\":false,"
				   "\"added\":1,\"removed\":1"));
	free(out);

	/* zstd, cut at two thirds */
	zcap = ZSTD_compressBound(len);
	z = malloc(zcap);
	assert_non_null(z);
	zlen = ZSTD_compress(z, zcap, mb, len, 3);
	assert_false(ZSTD_isError(zlen));
	f = create("cut.mbox.zst");
	assert_int_equal(fwrite(z, 1, zlen * 2 / 3, f), zlen * 2 / 3);
	close_file(f);
	rc = run_ss(NULL, 20, "log '%s/cut.mbox.zst'", test_scratch);
	assert_true(rc == 1 || rc == 128);
	assert_err_lines(1, 1);
	out = slurp("err", NULL);
	assert_non_null(strstr(out, "truncated"));
	free(out);
	free(z);
	free(mb);
}

/* ---- repositories --------------------------------------------------- */

static int have_git(void)
{
	return test_run("git --version >/dev/null 2>&1") == 0;
}

/* Run a git set-up script in test_scratch; its stderr is shown when it fails. */
static void git_setup(const char *script)
{
	int rc = test_run("cd '%s' && export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null && "
			  "(%s) 2>git.err", test_scratch, script);

	if (rc) {
		char *e = slurp("git.err", NULL);

		print_message("git set-up failed (%d): %s\n", rc, e);
		free(e);
	}
	assert_int_equal(rc, 0);
}

/* A repository of four commits (root, add f1.c, add f2.c, add f3.c); the
 * blob of f2.c is deleted from .git/objects.  Returns the blob's id. */
static char *damaged_repo(void)
{
	char *out;

	git_setup("git init -q repo && cd repo && "
		  "git -c user.name=A -c user.email=a@x commit -q --allow-empty -m root && "
		  "for i in 1 2 3; do echo \"content $i\" > f$i.c && git add f$i.c && "
		  "git -c user.name=A -c user.email=a@x commit -q -m \"add f$i\" || exit 1; done && "
		  "b=$(git rev-parse HEAD~1:f2.c) && echo $b > ../blob && "
		  "rm -f .git/objects/$(echo $b | cut -c1-2)/$(echo $b | cut -c3-)");
	out = slurp("blob", NULL);
	out[strcspn(out, "\n")] = '\0';
	assert_int_equal(strlen(out), 40);
	return out;
}

/* A missing blob: a one-line error naming it, never a crash; without the
 * diff nothing needs it. */
static void test_repo_missing_object(void **state)
{
	char *blob, *err, *out;
	int rc;

	(void)state;
	if (!have_git()) {
		printf("SKIP: git not found\n");
		skip();
	}
	blob = damaged_repo();
	/* a blob missing (as in a partial clone): its file is unreadable,
	 * one warning naming it, every commit read */
	rc = run_ss(NULL, 20, "log --repo '%s/repo'", test_scratch);
	assert_int_equal(rc, 0);
	assert_err_lines(1, 1);
	err = slurp("err", NULL);
	assert_non_null(strstr(err, blob));
	assert_non_null(strstr(err, "missing object"));
	free(err);

	assert_int_equal(run_ss(NULL, 20, "log --no-diff --repo '%s/repo'", test_scratch), 0);
	out = slurp("out", NULL);
	assert_int_equal(count_lines(out), 4);
	free(out);
	free(blob);
}

/*
 * FIXED BUG 7 (src/source/git.c): a missing object is fatal (exit 128,
 * "fatal: cannot diff: object not found ...") and the commits after the
 * damaged one are lost.  Expected: that commit is skipped with one error
 * and the run goes on (exit 1): "add f3" does not need the lost blob.
 * Fixed: read_commit() turns a read error into SS_ESKIP naming the commit.
 */
static void test_fixed_repo_missing_object_goes_on(void **state)
{
	char *blob, *out;

	(void)state;
	if (!have_git()) {
		printf("SKIP: git not found\n");
		skip();
	}
	blob = damaged_repo();
	/* since issue 23 item 5: the commit is read too, its file unreadable */
	assert_int_equal(run_ss(NULL, 20, "log --repo '%s/repo'", test_scratch), 0);
	out = slurp("out", NULL);
	assert_int_equal(count_lines(out), 4);
	assert_non_null(strstr(out, "\"subject\":\"add f3\""));
	assert_non_null(strstr(out, "\"unreadable\":\"missing object\""));
	free(out);
	free(blob);
}

/* HEAD..HEAD: no commits, no error. */
static void test_empty_revision_range(void **state)
{
	char *out;

	(void)state;
	if (!have_git()) {
		printf("SKIP: git not found\n");
		skip();
	}
	git_setup("git init -q empty && cd empty && echo a > a && git add a && "
		  "git -c user.name=A -c user.email=a@x commit -q -m one");
	assert_int_equal(run_ss(NULL, 20, "log --repo '%s/empty' --rev HEAD..HEAD", test_scratch), 0);
	out = slurp("out", NULL);
	assert_string_equal(out, "");
	free(out);
	assert_err_lines(0, 0);
}

/* ---- fuzz regressions (fuzz/regressions/) ---------------------------- */

static const char mbox_prefix[] =
	"From " SHA1 " Mon Sep 17 00:00:00 2001\n"
	"From: A <a@example.com>\n"
	"Date: Tue, 14 Feb 2017 16:09:41 -0600\n"
	"Subject: [PATCH] x\n"
	"\n"
	"Fix.\n"
	"---\n";

/*
 * FIXED BUG 3 (src/source/mbox.c, mbox_next): when GMime cannot construct
 * a message and is not at the end, mbox_next() returns SS_ESKIP without
 * the parser moving on, so the caller, which calls next() again as
 * source.h says, loops for ever; "stablesel log" prints "message 1 cannot
 * be parsed" without end.  Input: an mboxrd separator followed by a line
 * that starts with a space and no newline.
 * Fixed: a failure at the parser offset of the previous one ends the
 * input after one error.
 */
static void test_fixed_mbox_hang(void **state)
{
	static const char hang[] = "From mboxrd@z Thu Jan  1 00:00:00 1970\n ";
	FILE *f = create("hang.mbox");
	int rc;

	(void)state;
	fputs(hang, f);
	close_file(f);
	rc = run_ss(NULL, 5, "log '%s/hang.mbox'", test_scratch);
	assert_true(rc == 0 || rc == 1);
	assert_err_lines(0, 1);
}

/*
 * FIXED BUG 2 (src/source/diff.c, parse_recounted): strtoul() reads the
 * counts of "@@ -a,b +c,d @@" across line ends (it skips white space,
 * newlines included), so the tail pointer lands after the line end and
 * ss_strbuf_add(&sb, tail, le - tail) gets a negative size: "stablesel
 * log" aborts with "double free or corruption" (ASan: negative-size-param
 * in ss_strbuf_add from parse_recounted).  It also reads past the end of
 * the text when the last line is "@@ -" (ASan: heap-buffer-overflow in
 * parse_recounted, diff.c:312).
 */
static void test_fixed_recount_crash(void **state)
{
	FILE *f = create("recount.mbox");
	int rc;

	(void)state;
	/* fixed: a regression test now */
	fprintf(f, "%sdiff --git a/a b/a\n--- a/a\n+++ b/a\n@@ -\n1 +2\nX\n", mbox_prefix);
	close_file(f);
	rc = run_ss(NULL, 20, "log '%s/recount.mbox'", test_scratch);
	assert_true(rc == 0 || rc == 1);
	assert_err_lines(0, 1);
	assert_int_equal(in_child(parse_exact, "diff --git a/a b/a\n--- a/a\n+++ b/a\n@@ -\n1 +2\nX\n"), 0);
	assert_int_equal(in_child(parse_exact, "diff --git \n@@ -"), 0);
}

/*
 * FIXED BUG 1 (src/source/diff.c, add_patch): a NUL byte in a diff line.
 * libgit2 keeps a copy of the patch cut at the NUL but reports the line's
 * full length, so add_patch() reads gl->content[len - 1] past libgit2's
 * buffer (ASan: heap-buffer-overflow, diff.c:125, then in
 * ss_arena_strndup).  Only reachable through ss_commit_parse_patch() with
 * text that holds NULs (the mail reader cuts at the NUL, bug 6).
 * Detected under make asan only.
 */
static void test_fixed_nul_in_patch_line(void **state)
{
	static const char patch[] = "diff --git a/a.c b/a.c\n--- a/a.c\n+++ b/a.c\n"
				    "@@ -1,2 +1,2 @@\n-a\0b\n+c\n";
	static const size_t len = sizeof(patch) - 1;

	(void)state;
	/* fixed: a regression test now */
	{
		pid_t pid = fork();
		int st;

		assert_true(pid >= 0);
		if (pid == 0) {
			char *copy = malloc(len);
			ss_commit *c = ss_commit_new();

			memcpy(copy, patch, len);
			ss_commit_parse_patch(c, copy, len, 0);
			ss_commit_free(c);
			free(copy);
			_exit(0);
		}
		assert_int_equal(waitpid(pid, &st, 0), pid);
		assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
}

/*
 * FIXED BUG 11 (libgit2 1.5, patch_parse.c): a file section repeating
 * "rename from" / "rename to" makes git_diff_from_buffer() overwrite the
 * path it kept without freeing it (LeakSanitizer, found by fuzz_patch).
 * Fixed: diff.c sends such sections to its own header reader.  Parsed
 * here in this process, so that the sanitizer build (make asan) sees a
 * leak at exit; the last rename lines win.
 */
static void test_fixed_repeated_rename_leak(void **state)
{
	static const char patch[] = "diff --git a/old.c b/new.c\n"
				    "similarity index 100%\n"
				    "rename from old.c\n"
				    "rename to x.c\n"
				    "similarity index 100%\n"
				    "rename from old.c\n"
				    "rename to new.c\n"
				    "diff --git a/x.sh b/x.sh\n"
				    "old mode 100644\n"
				    "new mode 100755\n";
	char *input;
	size_t len = 0;
	ss_commit *c = ss_commit_new();

	(void)state;
	assert_non_null(c);
	assert_int_equal(ss_commit_parse_patch(c, patch, sizeof(patch) - 1, 0), 0);
	assert_int_equal(c->nfiles, 2);
	assert_string_equal(c->files[0].old_path, "old.c");
	assert_string_equal(c->files[0].new_path, "new.c");
	assert_int_equal(c->files[0].status, SS_FILE_RENAMED);
	ss_commit_free(c);
	/* the fuzzer's own input */
	input = test_read_file("fuzz/regressions/patch/leak-libgit2-repeated-rename", &len);
	assert_non_null(input);
	c = ss_commit_new();
	assert_non_null(c);
	assert_true(ss_commit_parse_patch(c, input, len, 0) <= 0);
	ss_commit_free(c);
	free(input);
}

/*
 * FIXED BUG 4 (src/source/diff.c, parse_header_only): a file section with
 * both "new file mode" and "deleted file mode" gets old_path = new_path =
 * NULL, so ss_file_path() returns NULL (commit.h: a file has a path);
 * "stablesel log" prints "path":"" for it.
 * Fixed: such a section is refused with SS_EINVALID and an error.
 */
static void test_fixed_file_without_path(void **state)
{
	(void)state;
	assert_int_equal(in_child(parse_exact, "diff --git a/ b/e\nnew file mode \ndeleted file mode "), 0);
	assert_int_equal(in_child(parse_exact, "diff --git a/x b/x\nnew file mode 100644\n"
					       "deleted file mode 100644\n"), 0);
}

/*
 * FIXED BUG 8 (src/commit/commit.c, read_trailers): when the first
 * git_message_trailers() finds no trailer and the trailer-shaped lines
 * are offered again, a second call that also finds none jumps to
 * release_sb without git_message_trailer_array_free(): libgit2's trailer
 * block leaks (LeakSanitizer: 1 byte from git_message_trailers,
 * commit.c:199).  Detected under make asan only.
 */
/*
 * FIXED BUG 10 (src/commit/commit.c, find_stable_at): a "\r" right before
 * "stable@" is no address boundary (the set is " \t<,;:\"'("), so
 * "Cc:\rstable@vger.kernel.org" is neither a stable tag nor masked; and
 * masking is not idempotent: "stable@ot\n\rstable@o" masks to "stable@o"
 * (set_message dropped the "\r"), which a second masking removes.
 */
static void test_fixed_mask_cr(void **state)
{
	static const char tagged[] = "subject\n\nbody\n\nCc:\rstable@vger.kernel.org\n"
				     "Signed-off-by: A <a@example.com>\n";
	static const char fuzzed[] = "\n\n\rstable@ot\n\rstable@o";
	ss_commit *c = ss_commit_new();
	char *once;

	(void)state;
	/* fixed: a regression test now */
	assert_non_null(c);
	assert_int_equal(ss_commit_set_message(c, fuzzed, sizeof(fuzzed) - 1), 0);
	assert_int_equal(ss_commit_mask_stable(c), 0);
	once = strdup(c->message);
	assert_int_equal(ss_commit_mask_stable(c), 0);
	assert_string_equal(c->message, once);
	free(once);
	ss_commit_free(c);

	c = ss_commit_new();
	assert_int_equal(ss_commit_set_message(c, tagged, sizeof(tagged) - 1), 0);
	assert_true(ss_commit_has_stable_tag(c));
	assert_int_equal(ss_commit_mask_stable(c), 0);
	assert_null(strstr(c->message, "stable@"));
	ss_commit_free(c);
}

/* Under ASan/LSan (make asan), a leak check of the child's heap. */
extern int __lsan_do_recoverable_leak_check(void) __attribute__((weak));

static void read_leak_mbox(const void *arg)
{
	ss_source_options opts = SS_SOURCE_OPTIONS_INIT;
	ss_source *src;
	ss_commit *c;
	int rc, calls = 0;

	if (ss_source_open(&src, arg, &opts))
		_exit(2);
	while ((rc = ss_source_next(&c, src)) != SS_ITEROVER && ++calls < 1000) {
		if (rc == 0)
			ss_commit_free(c);
		else if (rc != SS_ESKIP)
			break;
	}
	ss_source_free(src);
	if (__lsan_do_recoverable_leak_check && __lsan_do_recoverable_leak_check())
		_exit(1);
}

/* First in the suite, so that the child's heap holds no leftovers of
 * failed tests. */
static void test_fixed_trailer_leak(void **state)
{
	static const char leak[] = "From mboxrd@z\n\nP\n\n---: -\ndiff --git ";
	FILE *f = create("leak.mbox");
	char *p = test_scratch_path("leak.mbox");

	(void)state;
	/* fixed: a regression test now */
	fputs(leak, f);
	close_file(f);
	assert_int_equal(in_child(read_leak_mbox, p), 0);
	free(p);
}

/* ---- atomic output under SIGKILL -------------------------------------- */

/* A stable mbox of n backports ("[ upstream commit <sha> ]") and a release
 * commit, so that label names the branch 21.11. */
static void write_stable_mbox(const char *name, int n, unsigned salt)
{
	FILE *f = create(name);
	int i;

	for (i = 0; i <= n; i++) {
		char sha[41], up[41];

		snprintf(sha, sizeof(sha), "%08x%032x", salt, i);
		snprintf(up, sizeof(up), "%08x%032x", salt ^ 0xffffffffu, i * 7919);
		put_header(f, sha, i < n ? "net: fix a bug" : "version: 21.11.1", NULL);
		if (i < n)
			fprintf(f, "[ upstream commit %s ]\n\nFix.\n\nSigned-off-by: A <a@example.com>\n", up);
		else
			fputs("version: 21.11.1\n\nSigned-off-by: A <a@example.com>\n", f);
		fprintf(f, "---\n%s\n", small_diff);
	}
	close_file(f);
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* Start "BIN ARGV..." with stdout/stderr to /dev/null; its pid. */
static pid_t spawn(char *const argv[])
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execv(argv[0], argv);
		_exit(127);
	}
	return pid;
}

/*
 * Kill "stablesel label --stable X -o out.tsv" at random moments, over an
 * out.tsv from an older run: after each kill out.tsv is the old file or
 * the new one, whole; stray temporaries do not stop a later run, which
 * writes the new file.
 */
static void test_kill_mid_write(void **state)
{
	char *in_old = test_scratch_path("old.mbox"), *in_new = test_scratch_path("new.mbox");
	char *out = test_scratch_path("out.tsv"), *want_old, *want_new, *got;
	char *argv_old[] = { (char *)test_bin(), "label", "--stable", in_old, "-o", out, NULL };
	char *argv_new[] = { (char *)test_bin(), "label", "--stable", in_new, "-o", out, NULL };
	size_t old_len = 0, new_len = 0, got_len = 0;
	int i, n, st, n_old = 0, n_new = 0, n_absent = 0, temps, rounds;
	double t0, full;
	pid_t pid;

	(void)state;
	/* the old output from 1,000 backports; the new one from as many as
	 * a run reads in about half a second (20,000 here, fewer under ASan),
	 * so that the kills can land in every phase */
	write_stable_mbox("old.mbox", 1000, 0x01010101u);
	pid = spawn(argv_old);
	t0 = now_s();
	assert_int_equal(waitpid(pid, &st, 0), pid);
	full = now_s() - t0;
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	want_old = test_read_file(out, &old_len);
	assert_non_null(want_old);
	assert_int_equal(count_lines(want_old), 1001);
	n = full > 0.025 ? (int)(1000 * 0.5 / full) : 20000;
	n = n < 2000 ? 2000 : n > 20000 ? 20000 : n;
	write_stable_mbox("new.mbox", n, 0x02020202u);
	assert_int_equal(unlink(out), 0);

	pid = spawn(argv_new);
	t0 = now_s();
	assert_int_equal(waitpid(pid, &st, 0), pid);
	full = now_s() - t0;
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	want_new = test_read_file(out, &new_len);
	assert_non_null(want_new);
	assert_int_equal(count_lines(want_new), (size_t)n + 1);

	/* about 12 s of kills: 24 rounds, fewer when a run is slow (ASan) */
	rounds = full > 0.5 ? (int)(12.0 / full) : 24;
	if (rounds < 6)
		rounds = 6;
	srand((unsigned)time(NULL) ^ (unsigned)getpid());
	for (i = 0; i < rounds; i++) {
		/* from the first instant to past the end of a whole run, more
		 * often late, where the write and the rename happen */
		double r = (double)rand() / RAND_MAX;
		useconds_t delay = (useconds_t)(full * (i % 2 ? 1.5 * r : 0.6 + 0.9 * r) * 1e6);
		int had_old = i % 4 != 0;

		if (had_old) {
			FILE *f = fopen(out, "wb");

			assert_non_null(f);
			assert_int_equal(fwrite(want_old, 1, old_len, f), old_len);
			assert_int_equal(fclose(f), 0);
		} else {
			unlink(out);
		}
		pid = spawn(argv_new);
		usleep(delay);
		kill(pid, SIGKILL);
		assert_int_equal(waitpid(pid, &st, 0), pid);
		got = test_read_file(out, &got_len);
		if (!got) {
			assert_false(had_old);
			n_absent++;
			continue;
		}
		if (got_len == new_len && !memcmp(got, want_new, new_len)) {
			n_new++;
		} else {
			int is_old = had_old && got_len == old_len && !memcmp(got, want_old, old_len);

			if (!is_old)
				print_message("kill %d after %u us: out.tsv is partial (%zu bytes)\n",
					      i, (unsigned)delay, got_len);
			assert_true(is_old);
			n_old++;
		}
		free(got);
	}
	temps = test_count_temps(test_scratch, "out.tsv");
	print_message("kill-mid-write: %d old, %d new, %d absent, %d stray temporaries "
		      "(a whole run over %d backports takes %.2f s)\n",
		      n_old, n_new, n_absent, temps, n, full);

	/* a later run is not disturbed by the strays */
	pid = spawn(argv_new);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	got = test_read_file(out, &got_len);
	assert_non_null(got);
	assert_true(got_len == new_len && !memcmp(got, want_new, new_len));
	free(got);
	assert_int_equal(test_count_temps(test_scratch, "out.tsv"), temps);

	free(want_old);
	free(want_new);
	free(in_old);
	free(in_new);
	free(out);
}

/* Output files get the usual mode (umask 022: 0644), not mkstemp's 0600
 * (was bug 9, src/util/atomic.c). */
static void test_output_mode(void **state)
{
	char *out = test_scratch_path("mode.tsv");
	struct stat st;
	mode_t old;

	(void)state;
	write_stable_mbox("mode.mbox", 3, 0x03030303u);
	old = umask(022);
	assert_int_equal(run_ss(NULL, 20, "label --stable '%s/mode.mbox' -o '%s'", test_scratch, out), 0);
	umask(old);
	assert_int_equal(stat(out, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	free(out);
}

/*
 * A message the reader skips (here: no author date) is an error of index as
 * of log on the same mbox: exit 1, one line, the others indexed (before,
 * index only warned and exited 0).
 */
static void test_index_skip_exits_1(void **state)
{
	FILE *f = create("skip.mbox");
	char *err;

	(void)state;
	put_header(f, SHA1, "first", NULL);
	fprintf(f, "Fix the first.\n---\n%s\n", small_diff);
	fprintf(f, "From %s Mon Sep 17 00:00:00 2001\n"
		   "From: A Developer <dev@example.com>\n"
		   "Date: not a date at all\n"
		   "Subject: [PATCH] second\n\n"
		   "Fix the second.\n---\n%s\n", SHA2, small_diff);
	put_header(f, "3333333333333333333333333333333333333333", "third", NULL);
	fprintf(f, "Fix the third.\n---\n%s", small_diff);
	close_file(f);
	assert_int_equal(run_ss(NULL, 20, "log '%s/skip.mbox'", test_scratch), 1);
	assert_int_equal(run_ss(NULL, 20, "index --no-progress --db '%s/skip.db' '%s/skip.mbox'",
				test_scratch, test_scratch), 1);
	err = slurp("err", NULL);
	assert_non_null(strstr(err, "error: 1 commits could not be read and are not indexed"));
	assert_non_null(strstr(err, "indexed 2 new commits"));
	free(err);
	/* nothing new the next time: nothing skipped, exit 0 */
	assert_int_equal(run_ss(NULL, 20, "index --no-progress --db '%s/skip.db' '%s/skip.mbox'",
				test_scratch, test_scratch), 0);
}

/* each test in a scratch directory of its own */
#define SCRATCH_TEST(f) cmocka_unit_test_setup_teardown(f, test_scratch_setup, test_scratch_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		SCRATCH_TEST(test_fixed_trailer_leak),
		SCRATCH_TEST(test_fixed_mask_cr),
		SCRATCH_TEST(test_message_50mb),
		SCRATCH_TEST(test_patch_100k_files),
		SCRATCH_TEST(test_fixed_many_files_fallback_memory),
		SCRATCH_TEST(test_absurd_hunk_ranges),
		SCRATCH_TEST(test_binary_patch),
		SCRATCH_TEST(test_fixed_nul_in_body),
		SCRATCH_TEST(test_bad_utf8_and_charsets),
		SCRATCH_TEST(test_from_line_in_body),
		SCRATCH_TEST(test_mbox_cut_mid_message),
		SCRATCH_TEST(test_repo_missing_object),
		SCRATCH_TEST(test_fixed_repo_missing_object_goes_on),
		SCRATCH_TEST(test_empty_revision_range),
		SCRATCH_TEST(test_fixed_mbox_hang),
		SCRATCH_TEST(test_fixed_recount_crash),
		SCRATCH_TEST(test_fixed_nul_in_patch_line),
		SCRATCH_TEST(test_fixed_file_without_path),
		SCRATCH_TEST(test_fixed_repeated_rename_leak),
		SCRATCH_TEST(test_kill_mid_write),
		SCRATCH_TEST(test_output_mode),
		SCRATCH_TEST(test_index_skip_exits_1),
	};
	int rc;

	git_libgit2_init();
	g_mime_init();
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	g_mime_shutdown();
	git_libgit2_shutdown();
	return rc;
}
