/*
 * testutil.h - what the cmocka tests share: the data folder, temporary
 * files, running the stablesel binary.
 *
 * Tests run from the project root (make test).  Tests that need
 * ../shared/data call SS_REQUIRE_DATA(), which prints
 * "SKIP: ../shared/data not found" and skips when it is absent.
 */
#ifndef SS_TESTUTIL_H
#define SS_TESTUTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

static inline const char *test_data_dir(void)
{
	const char *d = getenv("SS_DATA");

	return d ? d : "../shared/data";
}

static inline int test_have_data(void)
{
	struct stat st;
	char path[512];

	snprintf(path, sizeof(path), "%s/dpdk", test_data_dir());
	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

#define SS_REQUIRE_DATA()                                                      \
	do {                                                                   \
		if (!test_have_data()) {                                       \
			printf("SKIP: %s not found\n", test_data_dir());       \
			skip();                                                \
		}                                                              \
	} while (0)

/* The directories test_tmpdir() made, removed when the test binary exits. */
static char **test_tmpdirs;
static size_t test_ntmpdirs;

static inline void test_tmpdirs_remove(void)
{
	size_t i;

	for (i = 0; i < test_ntmpdirs; i++) {
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", test_tmpdirs[i]);
		if (system(cmd) != 0)
			fprintf(stderr, "cannot remove %s\n", test_tmpdirs[i]);
		free(test_tmpdirs[i]);
	}
	free(test_tmpdirs);
	test_tmpdirs = NULL;
	test_ntmpdirs = 0;
}

/* A fresh temporary directory (malloc'd name; the directory is removed at
 * exit, the name is the caller's). */
static inline char *test_tmpdir(void)
{
	char *d = strdup("/tmp/stablesel-test-XXXXXX");
	char **grown;

	assert_non_null(d);
	assert_non_null(mkdtemp(d));
	if (!test_ntmpdirs)
		atexit(test_tmpdirs_remove);
	grown = realloc(test_tmpdirs, (test_ntmpdirs + 1) * sizeof(*grown));
	assert_non_null(grown);
	test_tmpdirs = grown;
	assert_non_null(test_tmpdirs[test_ntmpdirs++] = strdup(d));
	return d;
}

static inline void test_write_file(const char *path, const char *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

/* The binary under test: $SS_BIN (the sanitizer build sets it) or ./stablesel. */
static inline const char *test_bin(void)
{
	const char *b = getenv("SS_BIN");

	return b && *b ? b : "./stablesel";
}

/* cmd (size bytes) = raw with every "./stablesel" standing for
 * test_bin(); 0, or -1 when it does not fit. */
static inline int test_expand_bin(char *cmd, size_t size, const char *raw)
{
	const char *p, *hit, *bin = test_bin();
	size_t n = 0, blen = strlen(bin);

	for (p = raw; (hit = strstr(p, "./stablesel")); p = hit + strlen("./stablesel")) {
		if (n + (size_t)(hit - p) + blen >= size)
			return -1;
		memcpy(cmd + n, p, (size_t)(hit - p));
		n += (size_t)(hit - p);
		memcpy(cmd + n, bin, blen);
		n += blen;
	}
	if (n + strlen(p) >= size)
		return -1;
	strcpy(cmd + n, p);
	return 0;
}

/*
 * Run a shell command; every "./stablesel" in it stands for test_bin().
 * Returns the exit status, or -1 if it did not exit normally.
 */
static inline int test_run(const char *fmt, ...)
{
	char raw[8192], cmd[16384];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	if (test_expand_bin(cmd, sizeof(cmd), raw))
		return -1;
	st = system(cmd);
	return st == -1 || !WIFEXITED(st) ? -1 : WEXITSTATUS(st);
}

/* Read the rest of a stream into a malloc'd NUL-terminated buffer. */
static inline char *test_read_stream(FILE *f, size_t *len)
{
	char *buf = NULL;
	size_t n = 0, cap = 0, r;

	do {
		if (n + 65536 + 1 > cap) {
			cap = (n + 65536 + 1) * 2;
			buf = realloc(buf, cap);
			assert_non_null(buf);
		}
		r = fread(buf + n, 1, 65536, f);
		n += r;
	} while (r);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

/* Read a whole file into a malloc'd NUL-terminated buffer (NULL when it
 * cannot be opened). */
static inline char *test_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;

	if (!f)
		return NULL;
	buf = test_read_stream(f, len);
	fclose(f);
	return buf;
}

/* The standard output of a shell command (as test_run() runs it),
 * malloc'd; the test fails when the command does not exit 0. */
static inline char *test_run_output(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline char *test_run_output(const char *fmt, ...)
{
	char raw[8192], cmd[16384], *out;
	va_list ap;
	FILE *f;
	int st;

	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	assert_int_equal(test_expand_bin(cmd, sizeof(cmd), raw), 0);
	f = popen(cmd, "r");
	assert_non_null(f);
	out = test_read_stream(f, NULL);
	st = pclose(f);
	if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st))
		fail_msg("'%s' did not exit 0", raw);
	return out;
}

/*
 * A repository made by a shell script: script written to dir/make.sh and
 * run as `sh make.sh REPO` after REPO is made (its output into
 * dir/make.log, shown on stderr when it fails).  0, or -1 (a cmocka
 * setup's failure).
 */
static inline int test_repo_from_script(const char *dir, const char *repo, const char *script)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/make.sh", dir);
	test_write_file(path, script, strlen(script));
	if (test_run("mkdir '%s' && sh '%s' '%s' >'%s/make.log' 2>&1", repo, path, repo, dir)) {
		test_run("cat '%s/make.log' >&2", dir);
		return -1;
	}
	return 0;
}

/* The files in dir whose names start with "<prefix>.tmp.": the temporary
 * files of an output named prefix (util/atomic.h). */
static inline int test_count_temps(const char *dir, const char *prefix)
{
	char *start;
	struct dirent *e;
	DIR *d = opendir(dir);
	int n = 0;

	assert_non_null(d);
	assert_true(asprintf(&start, "%s.tmp.", prefix) > 0);
	while ((e = readdir(d)))
		n += !strncmp(e->d_name, start, strlen(start));
	closedir(d);
	free(start);
	return n;
}

/*
 * tests/NAME, a script of the tests (the repository generators
 * gitrepo.sh, queuerepo.sh, projrepo.sh ...): in $SS_TESTS_DIR, else
 * beside this header (__FILE__ is tests/testutil.h when make runs from
 * the top).  The path lives in one of four static buffers, so that a few
 * can stand in one call.
 */
static inline const char *test_script(const char *name)
{
	static char path[4][4096];
	static unsigned next;
	char *out = path[next++ % 4];
	const char *dir = getenv("SS_TESTS_DIR"), *slash = strrchr(__FILE__, '/');

	if (dir)
		snprintf(out, sizeof(path[0]), "%s/%s", dir, name);
	else
		snprintf(out, sizeof(path[0]), "%.*s%s", slash ? (int)(slash - __FILE__ + 1) : 0,
			 __FILE__, name);
	return out;
}

/* tests/gitrepo.sh, the generated test repository's script. */
static inline const char *test_gitrepo_script(void)
{
	return test_script("gitrepo.sh");
}

/*
 * A scratch directory for the tests of one binary that run the CLI:
 * test_scratch_setup/_teardown are cmocka's group or test setup and
 * teardown; test_cli("rank --top 1 %s", x) runs "./stablesel ARGS" with
 * stdout and stderr in the files "out" and "err" of the directory;
 * test_scratch_read("err") reads one of its files back (the test fails
 * when it is missing).
 */
static char *test_scratch __attribute__((unused));

static inline int test_scratch_setup(void **state)
{
	(void)state;
	test_scratch = test_tmpdir();
	return 0;
}

static inline int test_scratch_teardown(void **state)
{
	(void)state;
	test_run("rm -rf '%s'", test_scratch);
	free(test_scratch);
	test_scratch = NULL;
	return 0;
}

/* dir/name of the scratch directory, malloc'd. */
static inline char *test_scratch_path(const char *name)
{
	char *p;

	assert_true(asprintf(&p, "%s/%s", test_scratch, name) > 0);
	return p;
}

static inline int test_cli(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline int test_cli(const char *fmt, ...)
{
	char args[6144];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	return test_run("./stablesel %s >'%s/out' 2>'%s/err'", args, test_scratch, test_scratch);
}

static inline char *test_scratch_read(const char *name)
{
	char *p = test_scratch_path(name), *s = test_read_file(p, NULL);

	if (!s)
		fail_msg("cannot read %s", p);
	free(p);
	return s;
}

static inline void test_scratch_write(const char *name, const char *text)
{
	char *p = test_scratch_path(name);

	test_write_file(p, text, strlen(text));
	free(p);
}

/* The number of '\n' in s. */
static inline size_t test_count_lines(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

#endif
