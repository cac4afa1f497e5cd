/*
 * test_git.c - the git source against git itself.
 *
 * tests/gitrepo.sh builds a small repository with the git CLI (a rename, a
 * binary file, an empty commit, a merge, a mode change, a deleted file, an
 * ISO-8859-1 commit, stable branches); every test compares what the source
 * yields with what `git log --no-merges --date-order --reverse --numstat`
 * says about the same revisions: ids in the same order, author and
 * committer times, files with their line counts and binary flags.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "commit/commit.h"
#include "source/git.h"
#include "source/git_graph.h"
#include "source/impl.h"
#include "source/source.h"
#include "util/error.h"
#include "testutil.h"

static char tmpdir[2048];
/* LeakSanitizer's interface, present only in sanitizer builds */
void __lsan_disable(void) __attribute__((weak));
void __lsan_enable(void) __attribute__((weak));

static char repo[4096];        /* loose objects, as gitrepo.sh leaves it */
static char packed_ofs[4096];  /* a packed clone: OFS_DELTA chains */
static char packed_ref[4096];  /* a packed clone: REF_DELTA chains */
static const char *cur = repo; /* the one compare_with_git() reads */

struct exp_file {
	char added[16], removed[16];  /* "-" for binary files */
	char *old_path;               /* renames only */
	char *path;
};

struct exp_commit {
	char id[41];
	long long atime, ctime;
	int atz;
	char *aname, *aemail, *subject;
	struct exp_file files[32];
	size_t nfiles;
};

struct expected {
	char *buf;
	struct exp_commit *commits;
	size_t n;
};

static void run(const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;
	int rc;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	rc = system(cmd);
	if (rc != 0)
		fail_msg("command failed (%d): %s", rc, cmd);
}

static char *read_cmd(const char *cmd, size_t *len)
{
	FILE *p = popen(cmd, "r");
	char *buf = NULL;
	size_t cap = 0, n = 0, r;

	assert_non_null(p);
	for (;;) {
		if (cap - n < 4096) {
			cap = cap ? cap * 2 : 65536;
			buf = realloc(buf, cap + 1);
			assert_non_null(buf);
		}
		r = fread(buf + n, 1, cap - n, p);
		if (!r)
			break;
		n += r;
	}
	assert_int_equal(pclose(p), 0);
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* Revisions as one shell-quoted argument list ('' around each). */
static void quote_revs(char *out, size_t size, const char **revs, size_t nrevs)
{
	size_t i, used = 0;

	out[0] = '\0';
	for (i = 0; i < nrevs; i++)
		used += (size_t)snprintf(out + used, size - used, " '%s'", revs[i]);
	assert_true(used < size);
}

static int tz_minutes(const char *iso)
{
	/* "2023-11-14 22:13:20 +0100" */
	const char *z = strrchr(iso, ' ');
	int v;

	assert_non_null(z);
	v = atoi(z + 2);
	v = v / 100 * 60 + v % 100;
	return z[1] == '-' ? -v : v;
}

/*
 * `git log -z --numstat`: each commit is "\x01" header "\0", then
 * "\n" and per file "A\tR\tPATH\0" or, for a rename, "A\tR\t\0OLD\0NEW\0".
 */
static void expect_git(struct expected *e, const char **revs, size_t nrevs)
{
	char cmd[16384], q[4096], *p, *end;
	size_t len;

	quote_revs(q, sizeof(q), revs, nrevs);
	snprintf(cmd, sizeof(cmd),
		 "git -C '%s' -c diff.renames=true -c diff.renameLimit=1000 -c log.showRoot=true "
		 "log --no-merges --date-order --reverse -z --numstat "
		 "--format='%%x01%%H%%x02%%at%%x02%%ai%%x02%%ct%%x02%%an%%x02%%ae%%x02%%s'%s --",
		 cur, nrevs ? q : " HEAD");
	e->buf = read_cmd(cmd, &len);
	e->commits = calloc(len / 40 + 1, sizeof(*e->commits));
	assert_non_null(e->commits);
	e->n = 0;
	p = e->buf;
	end = e->buf + len;
	while (p < end) {
		struct exp_commit *c;
		char *f[7];
		int i;

		assert_int_equal(*p, '\x01');
		p++;
		c = &e->commits[e->n++];
		for (i = 0; i < 7; i++) {
			f[i] = p;
			p += strcspn(p, "\x02");
			if (i < 6) {
				assert_int_equal(*p, '\x02');
				*p++ = '\0';
			}
		}
		p++; /* the header's NUL */
		assert_int_equal(strlen(f[0]), 40);
		strcpy(c->id, f[0]);
		c->atime = atoll(f[1]);
		c->atz = tz_minutes(f[2]);
		c->ctime = atoll(f[3]);
		c->aname = f[4];
		c->aemail = f[5];
		c->subject = f[6];
		if (p < end && *p == '\n')
			p++;
		while (p < end && *p != '\x01') {
			struct exp_file *ef = &c->files[c->nfiles++];
			char *tab;

			assert_true(c->nfiles <= 32);
			tab = strchr(p, '\t');
			assert_non_null(tab);
			snprintf(ef->added, sizeof(ef->added), "%.*s", (int)(tab - p), p);
			p = tab + 1;
			tab = strchr(p, '\t');
			assert_non_null(tab);
			snprintf(ef->removed, sizeof(ef->removed), "%.*s", (int)(tab - p), p);
			p = tab + 1;
			if (!*p) {
				ef->old_path = p + 1;
				p = ef->old_path + strlen(ef->old_path) + 1;
			}
			ef->path = p;
			p += strlen(p) + 1;
		}
	}
}

static void expected_free(struct expected *e)
{
	free(e->commits);
	free(e->buf);
}

static void open_source(ss_source **src, const char **revs, size_t nrevs, int with_diff,
			size_t max_lines)
{
	ss_source_options opts = SS_SOURCE_OPTIONS_INIT;
	int rc;

	opts.repo = cur;
	opts.revs = revs;
	opts.nrevs = nrevs;
	opts.with_diff = with_diff;
	opts.max_lines = max_lines;
	rc = ss_source_open(src, cur, &opts);
	if (rc)
		fail_msg("ss_source_open: %d %s", rc, ss_error_last());
}

static const ss_file *find_file(const ss_commit *c, const char *path)
{
	size_t i;

	for (i = 0; i < c->nfiles; i++)
		if (!strcmp(ss_file_path(&c->files[i]), path))
			return &c->files[i];
	return NULL;
}

static void check_commit(const ss_commit *c, const struct exp_commit *e, int with_diff)
{
	size_t i;

	assert_string_equal(c->id, e->id);
	assert_int_equal(c->author.time, e->atime);
	assert_int_equal(c->author.tz, e->atz);
	assert_int_equal(c->committer.time, e->ctime);
	assert_string_equal(c->author.name, e->aname);
	assert_string_equal(c->author.email, e->aemail);
	assert_string_equal(c->subject, e->subject);
	assert_string_equal(c->source, cur);
	if (!with_diff) {
		assert_int_equal(c->nfiles, 0);
		return;
	}
	if (c->nfiles != e->nfiles)
		fail_msg("%s: %zu files, git says %zu", c->id, c->nfiles, e->nfiles);
	for (i = 0; i < e->nfiles; i++) {
		const struct exp_file *ef = &e->files[i];
		const ss_file *f = find_file(c, ef->path);

		if (!f)
			fail_msg("%s: no file '%s'", c->id, ef->path);
		if (ef->old_path) {
			assert_int_equal(f->status, SS_FILE_RENAMED);
			assert_string_equal(f->old_path, ef->old_path);
		}
		if (!strcmp(ef->added, "-")) {
			assert_true(f->binary);
			assert_string_equal(ef->removed, "-");
		} else {
			assert_false(f->binary);
			assert_int_equal(f->added, strtoul(ef->added, NULL, 10));
			assert_int_equal(f->removed, strtoul(ef->removed, NULL, 10));
		}
	}
}

/* Read everything with the given revisions, compare with git log, and
 * return the number of commits (which the callers check by hand, so that
 * a misparsed git log cannot pass as "both empty"). */
static size_t compare_with_git(const char **revs, size_t nrevs, int with_diff)
{
	struct expected e;
	ss_source *src;
	ss_commit *c;
	size_t n = 0;
	int rc;

	expect_git(&e, revs, nrevs);
	open_source(&src, revs, nrevs, with_diff, 0);
	while (!(rc = ss_source_next(&c, src))) {
		if (n >= e.n)
			fail_msg("extra commit %s", c->id);
		check_commit(c, &e.commits[n], with_diff);
		assert_int_equal(c->index, n);
		n++;
		ss_commit_free(c);
	}
	assert_int_equal(rc, SS_ITEROVER);
	assert_int_equal(n, e.n);
	assert_int_equal(ss_source_stats_get(src)->commits, n);
	ss_source_free(src);
	expected_free(&e);
	return n;
}

static int setup_repo(void **state)
{
	const char *t = getenv("TMPDIR");

	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "%s/ss-test-git-XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(tmpdir))
		return -1;
	snprintf(repo, sizeof(repo), "%s/repo", tmpdir);
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	setenv("GIT_CONFIG_GLOBAL", "/dev/null", 1);
	if (access(test_gitrepo_script(), R_OK)) {
		fprintf(stderr, "cannot find %s (set SS_TESTS_DIR)\n", test_gitrepo_script());
		return -1;
	}
	run("sh '%s' '%s'", test_gitrepo_script(), repo);
	/* packed copies, so that the pack reader in git.c is exercised:
	 * git repack writes OFS_DELTA entries unless told otherwise */
	snprintf(packed_ofs, sizeof(packed_ofs), "%s/packed-ofs.git", tmpdir);
	snprintf(packed_ref, sizeof(packed_ref), "%s/packed-ref.git", tmpdir);
	run("git clone -q --no-local --bare '%s' '%s' && "
	    "git -C '%s' repack -adfq --depth=50 --window=50", repo, packed_ofs, packed_ofs);
	run("git clone -q --no-local --bare '%s' '%s' && "
	    "git -C '%s' -c repack.useDeltaBaseOffset=false repack -adfq", repo, packed_ref,
	    packed_ref);
	return 0;
}

static int teardown_repo(void **state)
{
	(void)state;
	if (tmpdir[0])
		run("rm -rf '%s'", tmpdir);
	return 0;
}

static void test_head_matches_git(void **state)
{
	(void)state;
	unsetenv("SS_GIT_THREADS");
	assert_int_equal(compare_with_git(NULL, 0, 1), 13);
}

static void test_threads_match_git(void **state)
{
	static const char *const modes[] = { "0", "1", "2", "4" };
	const char *all[] = { "stable-1.y", "stable-2.y", "main" };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		setenv("SS_GIT_THREADS", modes[i], 1);
		assert_int_equal(compare_with_git(NULL, 0, 1), 13);
		assert_int_equal(compare_with_git(all, 3, 1), 17);
	}
	unsetenv("SS_GIT_THREADS");
}

static void test_packed_match_git(void **state)
{
	static const char *const modes[] = { "0", "2" };
	const char *all[] = { "stable-1.y", "stable-2.y", "main" };
	const char *range[] = { "v1.0..v2.0" };
	const char *repos[] = { packed_ofs, packed_ref };
	size_t i, r;

	(void)state;
	for (r = 0; r < 2; r++) {
		cur = repos[r];
		for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
			setenv("SS_GIT_THREADS", modes[i], 1);
			assert_int_equal(compare_with_git(NULL, 0, 1), 13);
			assert_int_equal(compare_with_git(all, 3, 1), 17);
			assert_int_equal(compare_with_git(range, 1, 1), 10);
			assert_int_equal(compare_with_git(all, 3, 0), 17);
		}
	}
	cur = repo;
	unsetenv("SS_GIT_THREADS");
}

/* A cache of 8 KiB (1 KiB a shard): objects are evicted, roots and
 * others, while readers still hold them, and the pack pages are dropped
 * every 4 KiB read; the commits must not change. */
static void test_tiny_cache_match_git(void **state)
{
	static const char *const modes[] = { "0", "2" };
	const char *all[] = { "stable-1.y", "stable-2.y", "main" };
	const char *repos[] = { packed_ofs, packed_ref };
	size_t i, r;

	(void)state;
	setenv("SS_GIT_CACHE_KIB", "8", 1);
	for (r = 0; r < 2; r++) {
		cur = repos[r];
		for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
			setenv("SS_GIT_THREADS", modes[i], 1);
			assert_int_equal(compare_with_git(NULL, 0, 1), 13);
			assert_int_equal(compare_with_git(all, 3, 1), 17);
		}
	}
	cur = repo;
	unsetenv("SS_GIT_THREADS");
	unsetenv("SS_GIT_CACHE_KIB");
}

static void test_revisions_match_git(void **state)
{
	const char *r1[] = { "v1.0..main" };
	const char *r2[] = { "^v1.0", "main" };
	const char *r3[] = { "stable-1.y...main" };
	const char *r4[] = { "stable-1.y", "stable-2.y", "^v1.0" };
	const char *r5[] = { "leak-fix" };
	const char *r6[] = { "main.." };
	const char *r7[] = { "v1.0..v2.0", "^leak-fix" };
	const char *r8[] = { "main~3" };

	(void)state;
	assert_int_equal(compare_with_git(r1, 1, 1), 10);
	assert_int_equal(compare_with_git(r2, 2, 1), 10);
	assert_int_equal(compare_with_git(r3, 1, 1), 15);
	assert_int_equal(compare_with_git(r4, 3, 1), 11);
	assert_int_equal(compare_with_git(r5, 1, 1), 10);
	assert_int_equal(compare_with_git(r6, 1, 1), 0);
	assert_int_equal(compare_with_git(r7, 2, 1), 3);
	assert_int_equal(compare_with_git(r8, 1, 1), 10);
}

static void test_without_diff(void **state)
{
	const char *all[] = { "stable-1.y", "main" };

	(void)state;
	assert_int_equal(compare_with_git(NULL, 0, 0), 13);
	assert_int_equal(compare_with_git(all, 2, 0), 16);
}

/*
 * opts.newest: only the newest of the walk are read, the same commits a
 * whole read ends with, the older ones counted (merges are in the walk
 * and counted too, then skipped as in a whole read).
 */
static void test_newest(void **state)
{
	const char *all[] = { "stable-1.y", "main" };
	char ids[64][41];
	size_t n = 0, walk, k, m;
	ss_source_options opts = SS_SOURCE_OPTIONS_INIT;
	ss_source *src;
	ss_commit *c;

	(void)state;
	open_source(&src, all, 2, 0, 0);
	while (!ss_source_next(&c, src)) {
		assert_true(n < 64);
		memcpy(ids[n++], c->id, 41);
		ss_commit_free(c);
	}
	walk = n + ss_source_stats_get(src)->skipped_merges;
	assert_int_equal(ss_source_stats_get(src)->older, 0);
	ss_source_free(src);
	assert_true(n >= 10);
	opts.repo = cur;
	opts.revs = all;
	opts.nrevs = 2;
	opts.with_diff = 0;
	for (k = 1; k <= walk + 1; k += 3) {
		opts.newest = k;
		assert_int_equal(ss_source_open(&src, cur, &opts), 0);
		for (m = 0; !ss_source_next(&c, src); m++) {
			assert_true(m < k);
			ss_commit_free(c);
		}
		assert_int_equal(ss_source_stats_get(src)->older, k < walk ? walk - k : 0);
		assert_int_equal(m + ss_source_stats_get(src)->skipped_merges, k < walk ? k : walk);
		ss_source_free(src);
		/* the same ones, in the same order: the end of the whole read */
		assert_int_equal(ss_source_open(&src, cur, &opts), 0);
		for (size_t i = 0; !ss_source_next(&c, src); i++) {
			assert_string_equal(c->id, ids[n - m + i]);
			ss_commit_free(c);
		}
		ss_source_free(src);
	}
}

static ss_commit *find_subject(ss_commit **cs, size_t n, const char *subject)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(cs[i]->subject, subject))
			return cs[i];
	fail_msg("no commit '%s'", subject);
	return NULL;
}

static void test_file_details(void **state)
{
	ss_commit *cs[64], *c;
	const ss_file *f;
	ss_source *src;
	size_t n = 0, i;
	int rc;

	(void)state;
	open_source(&src, NULL, 0, 1, 0);
	while (!(rc = ss_source_next(&cs[n], src)))
		assert_true(++n < 64);
	assert_int_equal(rc, SS_ITEROVER);
	assert_int_equal(n, 13);
	assert_int_equal(ss_source_stats_get(src)->skipped_merges, 1);

	c = find_subject(cs, n, "net: foo: add driver");
	assert_int_equal(c->nfiles, 3);
	f = find_file(c, "README");
	assert_non_null(f);
	assert_int_equal(f->status, SS_FILE_ADDED);
	assert_null(f->old_path);
	assert_int_equal(c->author.tz, 60);

	c = find_subject(cs, n, "net: foo: fix null dereference");
	assert_int_equal(c->author.tz, -420);
	assert_int_equal(c->committer.time, c->author.time + 3600);
	assert_true(ss_commit_has_stable_tag(c));
	assert_int_equal(c->nfiles, 1);
	assert_int_equal(c->files[0].status, SS_FILE_MODIFIED);
	assert_int_equal(c->files[0].nhunks, 1);
	assert_int_equal(c->files[0].added, 2);

	c = find_subject(cs, n, "firmware: add foo blob");
	assert_int_equal(c->nfiles, 1);
	assert_true(c->files[0].binary);
	assert_int_equal(c->files[0].status, SS_FILE_ADDED);

	c = find_subject(cs, n, "net: foo: split into foo_main.c");
	assert_int_equal(c->nfiles, 1);
	assert_int_equal(c->files[0].status, SS_FILE_RENAMED);
	assert_string_equal(c->files[0].old_path, "drivers/net/foo.c");
	assert_string_equal(c->files[0].new_path, "drivers/net/foo_main.c");
	assert_int_equal(c->files[0].added, 1);
	assert_int_equal(c->author.tz, 330);

	c = find_subject(cs, n, "scripts: make check.sh executable");
	assert_int_equal(c->nfiles, 1);
	assert_int_equal(c->files[0].old_mode, 0100644);
	assert_int_equal(c->files[0].new_mode, 0100755);
	assert_int_equal(c->files[0].nhunks, 0);

	c = find_subject(cs, n, "docs: remove README");
	assert_int_equal(c->nfiles, 1);
	assert_int_equal(c->files[0].status, SS_FILE_DELETED);
	assert_null(c->files[0].new_path);
	assert_string_equal(ss_file_path(&c->files[0]), "README");
	assert_int_equal(c->files[0].removed, 4);

	c = find_subject(cs, n, "ci: trigger rebuild");
	assert_int_equal(c->nfiles, 0);
	assert_int_equal(c->added + c->removed, 0);

	c = find_subject(cs, n, "firmware: update foo blob");
	assert_int_equal(c->nfiles, 2);
	f = find_file(c, "fw/VERSION");
	assert_non_null(f);
	assert_false(f->binary);
	assert_int_equal(f->nhunks, 1);
	assert_int_equal(f->hunks[0].nlines, 1);
	assert_true(f->hunks[0].lines[0].no_eol);
	assert_string_equal(f->hunks[0].lines[0].text, "version 2");
	f = find_file(c, "fw/blob.bin");
	assert_non_null(f);
	assert_true(f->binary);
	assert_int_equal(f->status, SS_FILE_MODIFIED);

	/* git log re-encodes ISO-8859-1 commits to UTF-8, so do we */
	c = find_subject(cs, n, "net: foo: latin-1 fix \xc3\xa9t\xc3\xa9");
	assert_string_equal(c->author.name, "Jos\xc3\xa9 Mu\xc3\xb1oz");
	assert_non_null(strstr(c->message, "Caf\xc3\xa9 size."));

	for (i = 0; i < n; i++)
		ss_commit_free(cs[i]);
	ss_source_free(src);
}

static void test_max_lines(void **state)
{
	ss_source *src;
	ss_commit *c;
	int rc;

	(void)state;
	open_source(&src, NULL, 0, 1, 3);
	rc = ss_source_next(&c, src);
	assert_int_equal(rc, 0);
	assert_string_equal(c->subject, "net: foo: add driver");
	assert_true(c->truncated);
	assert_int_equal(c->added, 33 + 4 + 2);  /* counts survive the cut */
	ss_commit_free(c);
	ss_source_free(src);
}

/* Freeing a source in the middle must stop its readers cleanly. */
static void test_free_early(void **state)
{
	static const char *const modes[] = { "0", "2", "4" };
	ss_source *src;
	ss_commit *c;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		setenv("SS_GIT_THREADS", modes[i], 1);
		open_source(&src, NULL, 0, 1, 0);
		ss_source_free(src);
		open_source(&src, NULL, 0, 1, 0);
		assert_int_equal(ss_source_next(&c, src), 0);
		ss_commit_free(c);
		ss_source_free(src);
	}
	unsetenv("SS_GIT_THREADS");
}

static void expect_open_error(const char *spec, const char **revs, size_t nrevs,
			      int code, const char *prefix)
{
	ss_source_options opts = SS_SOURCE_OPTIONS_INIT;
	ss_source *src = (ss_source *)&src;
	int rc;

	opts.revs = revs;
	opts.nrevs = nrevs;
	ss_error_clear();
	rc = ss_source_open(&src, spec, &opts);
	assert_int_equal(rc, code);
	assert_null(src);
	if (strncmp(ss_error_last(), prefix, strlen(prefix)))
		fail_msg("error '%s' does not start with '%s'", ss_error_last(), prefix);
}

static void test_bad_revision(void **state)
{
	const char *r1[] = { "no-such-branch" };
	const char *r2[] = { "v1.0..no-such-branch" };
	const char *r3[] = { "main", "^nope" };
	const char *r4[] = { "main^{tree}" };
	const char *r5[] = { "" };
	char prefix[4200];

	(void)state;
	snprintf(prefix, sizeof(prefix), "bad revision 'no-such-branch' in '%s': ", repo);
	expect_open_error(repo, r1, 1, SS_EINVALID, prefix);
	snprintf(prefix, sizeof(prefix), "bad revision 'v1.0..no-such-branch' in '%s': ", repo);
	expect_open_error(repo, r2, 1, SS_EINVALID, prefix);
	expect_open_error(repo, r3, 2, SS_EINVALID, "bad revision '^nope'");
	expect_open_error(repo, r4, 1, SS_EINVALID, "bad revision 'main^{tree}'");
	expect_open_error(repo, r5, 1, SS_EINVALID, "bad revision ''");
}

static void test_missing_repository(void **state)
{
	ss_source_options opts = SS_SOURCE_OPTIONS_INIT;
	ss_source_stats stats;
	ss_source_ops ops;
	char dir[4200], spec[4300];
	void *impl = &impl;

	(void)state;
	memset(&stats, 0, sizeof(stats));
	assert_int_equal(ss_git_open(&impl, &ops, "/nonexistent/ss-repo", &opts, &stats),
			 SS_ENOTFOUND);
	assert_null(impl);
	assert_non_null(strstr(ss_error_last(), "cannot open repository '/nonexistent/ss-repo': "));

	expect_open_error("git:/nonexistent/ss-repo", NULL, 0, SS_ENOTFOUND,
			  "cannot open repository '/nonexistent/ss-repo': ");

	/* a directory that is not a repository */
	snprintf(dir, sizeof(dir), "%s/plain", tmpdir);
	run("mkdir -p '%s'", dir);
	snprintf(spec, sizeof(spec), "cannot open repository '%s': ", dir);
	expect_open_error(dir, NULL, 0, SS_ENOTFOUND, spec);
}

static void test_empty_repository(void **state)
{
	char dir[4200];

	(void)state;
	snprintf(dir, sizeof(dir), "%s/empty", tmpdir);
	run("git -c init.defaultBranch=main init -q '%s'", dir);
	expect_open_error(dir, NULL, 0, SS_EINVALID, "bad revision 'HEAD'");
}


/* Run a command and return its first output line (static buffer). */
static const char *first_line(const char *cmd)
{
	static char line[256];
	FILE *f = popen(cmd, "r");

	assert_non_null(f);
	line[0] = '\0';
	if (fgets(line, sizeof(line), f))
		line[strcspn(line, "\n")] = '\0';
	pclose(f);
	return line;
}

/*
 * The compact walk (git_graph.c) against libgit2's revwalk on dir: each
 * spec is a space-separated list of revisions, "^rev" hidden, walked in
 * both orders with one graph for all specs (as the releases graph reuses
 * it) and one libgit2 revwalk; the ids and their order must be equal.
 * Returns the number of commits of the last spec's walk.
 */
static size_t graph_matches_revwalk(const char *dir, const char **specs, size_t nspecs)
{
	static const enum ss_git_graph_order orders[] = { SS_GIT_GRAPH_DATE_REVERSE,
							  SS_GIT_GRAPH_UNSORTED };
	git_repository *r = NULL;
	git_revwalk *walk = NULL;
	ss_git_graph *g = NULL;
	size_t i, o, k, n = 0;

	assert_true(git_libgit2_init() > 0);
	assert_int_equal(git_repository_open(&r, dir), 0);
	assert_int_equal(ss_git_graph_new(&g, r, dir), 0);
	assert_int_equal(git_revwalk_new(&walk, r), 0);
	for (i = 0; i < nspecs; i++) {
		for (o = 0; o < 2; o++) {
			char buf[4096], *tok, *save = NULL;
			git_oid *got = NULL, oid;

			git_revwalk_reset(walk);
			if (orders[o] == SS_GIT_GRAPH_DATE_REVERSE)
				git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL | GIT_SORT_TIME |
						    GIT_SORT_REVERSE);
			snprintf(buf, sizeof(buf), "%s", specs[i]);
			for (tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
				int hide = tok[0] == '^';
				git_object *obj = NULL, *c = NULL;

				if (git_revparse_single(&obj, r, tok + hide) ||
				    git_object_peel(&c, obj, GIT_OBJECT_COMMIT))
					fail_msg("cannot resolve '%s' in %s", tok, dir);
				git_oid_cpy(&oid, git_object_id(c));
				git_object_free(c);
				git_object_free(obj);
				if (hide) {
					assert_int_equal(git_revwalk_hide(walk, &oid), 0);
					assert_int_equal(ss_git_graph_hide(g, &oid), 0);
				} else {
					assert_int_equal(git_revwalk_push(walk, &oid), 0);
					assert_int_equal(ss_git_graph_push(g, &oid), 0);
				}
			}
			if (ss_git_graph_walk(g, orders[o], &got, &n))
				fail_msg("%s", ss_error_last());
			for (k = 0; !git_revwalk_next(&oid, walk); k++) {
				char a[41], b[41];

				if (k >= n || !git_oid_equal(&oid, &got[k]))
					fail_msg("'%s' (%s order) in %s: commit %zu is %s, libgit2 says %s",
						 specs[i], o ? "no" : "date", dir, k,
						 k < n ? git_oid_tostr(a, sizeof(a), &got[k]) : "(none)",
						 git_oid_tostr(b, sizeof(b), &oid));
			}
			assert_int_equal(k, n);
			free(got);
		}
	}
	git_revwalk_free(walk);
	ss_git_graph_free(g);
	git_repository_free(r);
	git_libgit2_shutdown();
	return n;
}

/*
 * Merges, an octopus, two roots, commits of one second and a clock that
 * goes backwards: the orders where libgit2 breaks ties and skew its own way.
 */
static void test_graph_matches_revwalk(void **state)
{
	static const char *specs[] = {
		"main", "side", "main side", "side main", "main ^side", "^side main",
		"main ^main~3", "main ^skewed", "main ^root2", "octo", "main side octo ^main~5",
		"side ^main~2 ^octo", "main^2", "main ^main", "^main main", "root2 main",
		"octo ^main~4 ^side",
	};
	const char *repos[] = { repo, packed_ofs };
	static const char *old[] = { "HEAD", "HEAD~3", "HEAD ^HEAD~2", "^HEAD~4 HEAD~1 HEAD" };
	char dir[4200];
	size_t i;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/graph", tmpdir);
	/* one commit: c NAME TIME [PARENT-REF...] on the current branch */
	run("git -c init.defaultBranch=main init -q '%s' && cd '%s' && "
	    "c() { n=$1 t=$2; shift 2; echo $n > f-$n; git add f-$n; "
	    "  tree=$(git write-tree); p=''; for x in \"$@\"; do p=\"$p -p $x\"; done; "
	    "  d=$((1700000000 + t)); id=$(GIT_AUTHOR_DATE=\"$d +0000\" GIT_COMMITTER_DATE=\"$d +0000\" "
	    "    git -c user.name=a -c user.email=a@b commit-tree $tree $p -m $n); "
	    "  git update-ref refs/heads/$n $id; echo $id; }; "
	    "r=$(c r 1000); a=$(c a 2000 $r); b=$(c b 2000 $a); s1=$(c s1 2000 $a); "
	    "s2=$(c s2 1500 $s1); m=$(c m 3000 $b $s2); k=$(c k 2500 $m); "
	    "r2=$(c root2 2500); j=$(c j 3000 $k $r2); x=$(c x 3000 $j); y=$(c y 3000 $j); "
	    "z=$(c z 2000 $j); o=$(c octo 3500 $x $y $z); sk=$(c skewed 100 $x); "
	    "w=$(c w 3000 $sk); v=$(c v 3000 $w $o); git update-ref refs/heads/main $v; "
	    "git update-ref refs/heads/side $s2", dir, dir);
	graph_matches_revwalk(dir, specs, sizeof(specs) / sizeof(*specs));
	for (i = 0; i < sizeof(repos) / sizeof(*repos); i++)
		assert_true(graph_matches_revwalk(repos[i], old, sizeof(old) / sizeof(*old)) > 0);
}

/*
 * DPDK's real history: the index's walks (the mainline, each LTS branch
 * without the mainline, each release without the older ones, as the
 * releases graph walks them) give libgit2's commits in libgit2's order.
 */
static void test_graph_matches_revwalk_dpdk(void **state)
{
	static const char *specs[] = {
		"main", "20.11 ^main", "21.11 ^main", "v16.11 ^main ^v22.03",
		"v21.11 ^v21.08 ^v21.05 ^v20.11", "v22.03 ^v21.11", "v19.11 ^v19.08 ^v18.11",
		"v16.11", "v17.02 ^v16.11", "19.11 20.11 ^21.11", "17.11 ^v17.11 ^16.11",
	};
	char dir[4200], git[4300];

	(void)state;
	SS_REQUIRE_DATA();
	snprintf(dir, sizeof(dir), "%s/dpdk", tmpdir);
	run("mkdir -p '%s' && tar -xf '%s/dpdk/dpdk-v22.03.git.tar' -C '%s'", dir, test_data_dir(),
	    dir);
	snprintf(git, sizeof(git), "%s/dpdk.git", dir);
	assert_true(graph_matches_revwalk(git, specs, sizeof(specs) / sizeof(*specs)) > 0);
}

/* A shallow clone is walked as far as git log goes, and no further. */
static void test_shallow_clone(void **state)
{
	const char *r1[] = { "HEAD" }, *r2[] = { "HEAD~19..HEAD" }, *r3[] = { "HEAD~20" };
	char src[4200], clone[4200], cmd[9000];

	(void)state;
	snprintf(src, sizeof(src), "%s/long", tmpdir);
	snprintf(clone, sizeof(clone), "%s/shallow", tmpdir);
	run("git -c init.defaultBranch=main init -q '%s' && cd '%s' && for i in $(seq 1 30); do "
	    "echo $i > f$((i %% 4)); git add . && GIT_AUTHOR_DATE=\"$((1700000000 + i * 60)) +0000\" "
	    "GIT_COMMITTER_DATE=\"$((1700000000 + i * 60)) +0000\" git -c user.name=a "
	    "-c user.email=a@b commit -qm \"c$i\"; done", src, src);
	run("git clone -q --depth 20 'file://%s' '%s'", src, clone);
	snprintf(cmd, sizeof(cmd), "git -C '%s' rev-parse --is-shallow-repository", clone);
	assert_string_equal(first_line(cmd), "true");
	cur = clone;
	assert_int_equal(compare_with_git(r1, 1, 1), 20);
	assert_int_equal(compare_with_git(r2, 1, 1), 19);
	assert_int_equal(compare_with_git(r1, 1, 0), 20);
	cur = repo;
	expect_open_error(clone, r3, 1, SS_EINVALID, "bad revision 'HEAD~20'");
	assert_non_null(strstr(ss_error_last(), "shallow clone"));
}

/* A damaged object is reported as libgit2 sees it, with its id. */
static void test_corrupt_object(void **state)
{
	const char *r1[] = { "HEAD" };
	char dir[4200], cmd[9000], id[64], want[256];

	(void)state;
	snprintf(dir, sizeof(dir), "%s/corrupt", tmpdir);
	run("cp -r '%s' '%s'", repo, dir);
	snprintf(cmd, sizeof(cmd), "git -C '%s' rev-parse main~3", dir);
	snprintf(id, sizeof(id), "%s", first_line(cmd));
	assert_int_equal(strlen(id), 40);
	run("f='%s/.git/objects/%.2s/%s' && chmod u+w \"$f\" && "
	    "printf 'garbage garbage garbage' | dd of=\"$f\" bs=1 seek=2 conv=notrunc 2>/dev/null",
	    dir, id, id + 2);
	/* libgit2 1.5 leaks 32 bytes inside git_revwalk_next when a commit of
	 * the walk cannot be read; not ours to free, so LeakSanitizer (make
	 * asan) is told to ignore what is allocated during this one call */
	if (__lsan_disable)
		__lsan_disable();
	expect_open_error(dir, r1, 1, SS_ERROR, "cannot walk history of");
	if (__lsan_enable)
		__lsan_enable();
	snprintf(want, sizeof(want), "cannot read commit %s, parent of ", id);
	if (!strstr(ss_error_last(), want) || strstr(ss_error_last(), "shallow"))
		fail_msg("'%s' lacks '%s' or blames a shallow clone", ss_error_last(), want);
	/* what follows is libgit2's reason */
	assert_true(strlen(strstr(ss_error_last(), want)) > strlen(want));
}

/*
 * Run `stablesel log --message --lines` on dir with --rev rev (NULL: the
 * three branches), stdout to out and stderr to err; its exit status, or -1 when it had not ended after
 * a deadline (SIGALRM, which survives exec, ends a hung binary so that a
 * regression fails the test instead of hanging the suite).
 */
static int run_log(const char *dir, const char *rev, const char *out, const char *err)
{
	pid_t pid;
	int st;

	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		if (!freopen(out, "w", stdout) || !freopen(err, "w", stderr))
			_exit(127);
		alarm(30);
		if (rev)
			execl(test_bin(), test_bin(), "log", "--message", "--lines", "--repo", dir,
			      "--rev", rev, (char *)NULL);
		else
			execl(test_bin(), test_bin(), "log", "--message", "--lines", "--repo", dir,
			      "--rev", "stable-1.y", "--rev", "stable-2.y", "--rev", "main",
			      (char *)NULL);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	if (WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM)
		return -1;
	assert_true(WIFEXITED(st));
	return WEXITSTATUS(st);
}

/* A truncated loose object is corrupt, not a reason to hang (libgit2 1.5
 * loops forever inflating one), and the message names it; also when an
 * abbreviated id names it (libgit2 asks every backend for those). */
static void test_truncated_loose_object(void **state)
{
	char dir[4200], out[4300], err[4300], cmd[9000], id[64], want[256];
	const char *what[] = { "main~1", "main~1^{tree}", "main~1:drivers/net/foo_main.c", "" };
	char *text, abbrev[16];
	size_t i;
	int rc;

	(void)state;
	for (i = 0; i < sizeof(what) / sizeof(what[0]); i++) {
		snprintf(dir, sizeof(dir), "%s/truncated", tmpdir);
		snprintf(out, sizeof(out), "%s/truncated.out", tmpdir);
		snprintf(err, sizeof(err), "%s/truncated.err", tmpdir);
		run("rm -rf '%s' && cp -r '%s' '%s'", dir, repo, dir);
		/* "": main~1 truncated, and named by an abbreviated id */
		snprintf(cmd, sizeof(cmd), "git -C '%s' rev-parse '%s'", dir,
			 what[i][0] ? what[i] : "main~1");
		snprintf(id, sizeof(id), "%s", first_line(cmd));
		assert_int_equal(strlen(id), 40);
		/* the first half of its bytes */
		run("f='%s/.git/objects/%.2s/%s' && chmod u+w \"$f\" && "
		    "truncate -s $(($(stat -c %%s \"$f\") / 2)) \"$f\"", dir, id, id + 2);
		snprintf(abbrev, sizeof(abbrev), "%.10s", id);
		rc = run_log(dir, what[i][0] ? NULL : abbrev, out, err);
		if (rc <= 0)
			fail_msg("%s: exit %d (-1: still running after 30 s)",
				 what[i][0] ? what[i] : abbrev, rc);
		text = test_read_file(err, NULL);
		assert_non_null(text);
		snprintf(want, sizeof(want), "corrupt loose object %s: truncated", id);
		if (!strstr(text, want))
			fail_msg("%s: '%s' lacks '%s'", what[i][0] ? what[i] : abbrev, text,
				 want);
		free(text);
	}
}

/*
 * A missing blob skips the commits that need it, each with one message,
 * worded the same whichever thread reads the commit: a worker or the
 * caller's own thread, which reads too when the commit it wants is not
 * ready (git.c take()).  Three runs of each reader count.
 */
static void test_missing_blob_any_reader(void **state)
{
	static const char *const modes[] = { "1", "2", "3" };
	char dir[4200], out[4300], err[4300], cmd[9000], id[64];
	char *first_out = NULL, *first_err = NULL, *text, *text2;
	size_t i, r;
	int rc;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/missing", tmpdir);
	snprintf(out, sizeof(out), "%s/missing.out", tmpdir);
	snprintf(err, sizeof(err), "%s/missing.err", tmpdir);
	run("rm -rf '%s' && cp -r '%s' '%s'", dir, repo, dir);
	snprintf(cmd, sizeof(cmd), "git -C '%s' rev-parse main~1:drivers/net/foo_main.c", dir);
	snprintf(id, sizeof(id), "%s", first_line(cmd));
	assert_int_equal(strlen(id), 40);
	run("rm -f '%s/.git/objects/%.2s/%s'", dir, id, id + 2);
	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		setenv("SS_GIT_THREADS", modes[i], 1);
		for (r = 0; r < 3; r++) {
			/* the file is unreadable (missing object), the commit read
			 * (issue 23 item 5), one warning naming the blob */
			rc = run_log(dir, NULL, out, err);
			assert_int_equal(rc, 0);
			text = test_read_file(err, NULL);
			assert_non_null(text);
			assert_non_null(strstr(text, "missing object"));
			assert_non_null(strstr(text, id));
			if (!first_err) {
				first_err = text;
				first_out = test_read_file(out, NULL);
				assert_non_null(first_out);
				continue;
			}
			assert_string_equal(text, first_err);
			free(text);
			text = test_read_file(out, NULL);
			assert_non_null(text);
			assert_string_equal(text, first_out);
			free(text);
		}
	}
	free(first_err);
	free(first_out);
	first_err = first_out = NULL;

	/*
	 * DPDK's tarball lacks a blob of 5450a8671bf3 (docs: 9 commits
	 * skipped before issue 23; their files are now unreadable).  libgit2 words the miss differently on the repository
	 * the walk used ("no match for id") and on a fresh one ("cannot read
	 * header for"): the caller's thread has a fresh one too, or the
	 * wording would depend on which thread took the commit (5 of 8 runs
	 * differed when it read with the walk's).
	 */
	if (!test_have_data()) {
		printf("SKIP (the DPDK part): %s not found\n", test_data_dir());
		goto done;
	}
	snprintf(dir, sizeof(dir), "%s/dpdk", tmpdir);
	run("test -d '%s/dpdk.git' || { mkdir -p '%s' && tar -xf '%s/dpdk/dpdk-v22.03.git.tar' -C '%s'; }",
	    dir, dir, test_data_dir(), dir);
	snprintf(dir, sizeof(dir), "%s/dpdk/dpdk.git", tmpdir);
	for (i = 0; i < 2; i++) {
		setenv("SS_GIT_THREADS", modes[i], 1);
		for (r = 0; r < 4; r++) {
			rc = run_log(dir, "5450a8671bf38f56276ce7fb1dc97b55689270d3~20.."
				     "5450a8671bf38f56276ce7fb1dc97b55689270d3", out, err);
			assert_int_equal(rc, 0);
			text = test_read_file(err, NULL);
			assert_non_null(text);
			assert_non_null(strstr(text, "missing object"));
			text2 = test_read_file(out, NULL);
			assert_non_null(text2);
			assert_non_null(strstr(text2, "\"id\":\"5450a8671bf38f56276ce7fb1dc97b55689270d3\""));
			free(text2);
			if (!first_err) {
				first_err = text;
				continue;
			}
			assert_string_equal(text, first_err);
			free(text);
		}
	}
	free(first_err);
done:
	unsetenv("SS_GIT_THREADS");
}

/* The object store reads loose objects itself: a repository with only
 * loose objects logs exactly as the same repository packed. */
static void test_loose_matches_packed(void **state)
{
	char dir[4200], out[2][4300], err[4300], cmd[9000];
	const char *repos[2];
	char *text[2];
	size_t i, len[2];

	(void)state;
	snprintf(dir, sizeof(dir), "%s/unpacked.git", tmpdir);
	run("rm -rf '%s' && cp -r '%s' '%s' && mv '%s'/objects/pack/*.pack '%s/all.pack' && "
	    "rm -f '%s'/objects/pack/* && git -C '%s' unpack-objects -q < '%s/all.pack'",
	    dir, packed_ofs, dir, dir, tmpdir, dir, dir, tmpdir);
	snprintf(cmd, sizeof(cmd), "git -C '%s' count-objects -v | grep '^packs:'", dir);
	assert_string_equal(first_line(cmd), "packs: 0");
	repos[0] = dir;
	repos[1] = packed_ofs;
	snprintf(err, sizeof(err), "%s/unpacked.err", tmpdir);
	for (i = 0; i < 2; i++) {
		snprintf(out[i], sizeof(out[i]), "%s/log%zu.out", tmpdir, i);
		assert_int_equal(run_log(repos[i], NULL, out[i], err), 0);
		text[i] = test_read_file(out[i], &len[i]);
		assert_non_null(text[i]);
	}
	assert_true(len[0] > 1000);
	assert_int_equal(len[0], len[1]);
	assert_memory_equal(text[0], text[1], len[0]);
	free(text[0]);
	free(text[1]);
}

static void check_names(char **names, size_t n, const char **want, size_t nwant)
{
	size_t i;

	assert_int_equal(n, nwant);
	for (i = 0; i < n; i++)
		assert_string_equal(names[i], want[i]);
}

static void test_branches(void **state)
{
	const char *stable[] = { "stable-1.y", "stable-2.y" };
	const char *all[] = { "feature", "main", "origin/stable-3.y", "stable-1.y", "stable-2.y" };
	const char *remote_too[] = { "origin/stable-3.y", "stable-1.y", "stable-2.y" };
	char **names;
	size_t n;

	(void)state;
	/* a remote-tracking branch, and origin/HEAD which is only an alias */
	run("git -C '%s' update-ref refs/remotes/origin/stable-3.y stable-2.y && "
	    "git -C '%s' symbolic-ref refs/remotes/origin/HEAD refs/remotes/origin/stable-3.y",
	    repo, repo);

	assert_int_equal(ss_git_branches(&names, &n, repo, "stable-*"), 0);
	check_names(names, n, stable, 2);
	ss_git_free_names(names, n);

	assert_int_equal(ss_git_branches(&names, &n, repo, NULL), 0);
	check_names(names, n, all, 5);
	ss_git_free_names(names, n);

	assert_int_equal(ss_git_branches(&names, &n, repo, "*stable-*"), 0);
	check_names(names, n, remote_too, 3);
	ss_git_free_names(names, n);

	assert_int_equal(ss_git_branches(&names, &n, repo, "nothing-*"), 0);
	assert_int_equal(n, 0);
	ss_git_free_names(names, n);

	assert_int_equal(ss_git_branches(&names, &n, "/nonexistent/ss-repo", NULL),
			 SS_ENOTFOUND);
	assert_null(names);
	assert_int_equal(n, 0);
	ss_git_free_names(NULL, 0);

	run("git -C '%s' update-ref -d refs/remotes/origin/HEAD && "
	    "git -C '%s' update-ref -d refs/remotes/origin/stable-3.y", repo, repo);
}

/*
 * Commits diffed blob by blob (git.c's add_blob_diffs) against the same
 * commits through libgit2's tree diff with rename detection
 * (SS_GIT_DIFF=libgit2): every field of every file, hunk and line equal.
 * The repository has what either path must get right: CRLF lines, files
 * without a final newline, binary files, a "-diff" attribute, function
 * context in hunk headers, an added file beside modified ones, a deleted
 * file beside modified ones, and the cases kept on the tree diff: a
 * rename, an addition and a deletion in one commit, a mode change, a
 * symlink, a type change.
 */
static void check_same_file(const ss_file *a, const ss_file *b)
{
	size_t h, l;

	assert_int_equal(a->status, b->status);
	assert_int_equal(a->binary, b->binary);
	assert_int_equal(a->old_mode, b->old_mode);
	assert_int_equal(a->new_mode, b->new_mode);
	assert_true((a->old_path == NULL) == (b->old_path == NULL));
	assert_true((a->new_path == NULL) == (b->new_path == NULL));
	if (a->old_path)
		assert_string_equal(a->old_path, b->old_path);
	if (a->new_path)
		assert_string_equal(a->new_path, b->new_path);
	assert_int_equal(a->added, b->added);
	assert_int_equal(a->removed, b->removed);
	assert_int_equal(a->nhunks, b->nhunks);
	for (h = 0; h < a->nhunks; h++) {
		const ss_hunk *x = &a->hunks[h], *y = &b->hunks[h];

		assert_int_equal(x->old_start, y->old_start);
		assert_int_equal(x->old_lines, y->old_lines);
		assert_int_equal(x->new_start, y->new_start);
		assert_int_equal(x->new_lines, y->new_lines);
		assert_int_equal(x->added, y->added);
		assert_int_equal(x->removed, y->removed);
		assert_string_equal(x->func, y->func);
		assert_int_equal(x->nlines, y->nlines);
		for (l = 0; l < x->nlines; l++) {
			assert_int_equal(x->lines[l].origin, y->lines[l].origin);
			assert_int_equal(x->lines[l].no_eol, y->lines[l].no_eol);
			assert_int_equal(x->lines[l].len, y->lines[l].len);
			assert_memory_equal(x->lines[l].text, y->lines[l].text, x->lines[l].len);
		}
	}
}

/* Read every commit of cur with SS_GIT_DIFF set to mode (NULL: unset). */
static size_t read_all(ss_commit **cs, size_t cap, const char *mode, size_t max_lines)
{
	ss_source *src;
	size_t n = 0;
	int rc;

	if (mode)
		setenv("SS_GIT_DIFF", mode, 1);
	else
		unsetenv("SS_GIT_DIFF");
	open_source(&src, NULL, 0, 1, max_lines);
	while (!(rc = ss_source_next(&cs[n], src)))
		assert_true(++n < cap);
	assert_int_equal(rc, SS_ITEROVER);
	ss_source_free(src);
	unsetenv("SS_GIT_DIFF");
	return n;
}

static void test_blob_diffs_match_libgit2(void **state)
{
	static const size_t budgets[] = { 0, 7 };
	char dir[4096];
	const char *saved = cur;
	ss_commit *fast[32], *slow[32];
	ss_commit *c;
	const ss_file *f;
	size_t n, m, i, j, b;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/blobs", tmpdir);
	run("set -e; mkdir '%s'; cd '%s'; git -c init.defaultBranch=main init -q .; "
	    "git config user.name T; git config user.email t@example.org; "
	    "git config core.autocrlf false; git config commit.gpgsign false; "
	    "export GIT_AUTHOR_DATE='1700000000 +0000' GIT_COMMITTER_DATE='1700000000 +0000'; "
	    /* 1: root, additions only */
	    "printf 'int a(void)\\n{\\n\\treturn 1;\\n}\\n\\n' > a.c; "
	    "for i in 1 2 3 4 5 6 7 8 9 10 11 12; do printf 'int f%%d(int x)\\n{\\n\\tx++;\\n\\treturn x;\\n}\\n\\n' $i >> a.c; done; "
	    "printf 'one\\r\\ntwo\\r\\nthree\\r\\n' > crlf.txt; "
	    "printf 'first\\nlast' > noeol.txt; "
	    "printf 'BIN\\000\\001\\002data\\n' > bin.dat; "
	    "printf 'text\\nonly\\n' > x.nodiff; "
	    "printf '*.nodiff -diff\\n' > .gitattributes; "
	    ": > empty; "
	    "git add -A; git commit -qm 'c1 root'; "
	    /* 2: modifications: function context, CRLF, no final newline */
	    "sed -i '3s/1/2/; 62s/x++/x += 2/' a.c; "
	    "printf 'one\\r\\nTWO\\r\\nthree\\r\\n' > crlf.txt; "
	    "printf 'first\\nlast line' > noeol.txt; "
	    "git commit -qam 'c2 modify'; "
	    /* 3: a final newline added, a binary modified, an attribute's binary */
	    "printf 'first\\nlast line\\n' > noeol.txt; "
	    "printf 'BIN\\000\\003data\\n' > bin.dat; "
	    "printf 'text\\nchanged\\n' > x.nodiff; "
	    "git commit -qam 'c3 binary'; "
	    /* 4: an addition beside a modification */
	    "printf 'new\\nfile\\n' > new.c; sed -i '$a int g(void);' a.c; "
	    "git add -A; git commit -qm 'c4 add'; "
	    /* 5: a deletion beside a modification, the last newline removed */
	    "git rm -q new.c; printf 'first\\nlast line' > noeol.txt; "
	    "git commit -qam 'c5 delete'; "
	    /* 6: a rename with an edit (tree diff) */
	    "git mv a.c b.c; sed -i 's/return 2;/return 3;/' b.c; "
	    "git commit -qam 'c6 rename'; "
	    /* 7: an unrelated addition and deletion (tree diff) */
	    "git rm -q empty; printf 'other\\n' > other.txt; git add other.txt; "
	    "printf 'one\\r\\nTWO\\r\\n3\\r\\n' > crlf.txt; "
	    "git commit -qam 'c7 add and delete'; "
	    /* 8: a mode change with an edit (tree diff) */
	    "chmod +x noeol.txt; printf 'first\\nlast' > noeol.txt; "
	    "git commit -qam 'c8 mode'; "
	    /* 9: a symlink (tree diff) */
	    "ln -s b.c link; git add link; git commit -qm 'c9 symlink'; "
	    /* 10: a symlink becomes a file (tree diff) */
	    "rm link; printf 'now a file\\n' > link; git add link; git commit -qm 'c10 typechange'; "
	    /* 11: many lines in two files, for max_lines; an executable edited */
	    "seq 1 40 > long1.txt; seq 1 40 > long2.txt; printf 'first\\nlast\\n' > noeol.txt; "
	    "git add -A; git commit -qm 'c11 long'; "
	    "seq 2 41 > long1.txt; seq 0 39 > long2.txt; git commit -qam 'c12 long edit'",
	    dir, dir);
	cur = dir;
	for (b = 0; b < sizeof(budgets) / sizeof(budgets[0]); b++) {
		n = read_all(fast, 32, NULL, budgets[b]);
		m = read_all(slow, 32, "libgit2", budgets[b]);
		assert_int_equal(n, 12);
		assert_int_equal(m, n);
		for (i = 0; i < n; i++) {
			assert_string_equal(fast[i]->id, slow[i]->id);
			assert_int_equal(fast[i]->nfiles, slow[i]->nfiles);
			assert_int_equal(fast[i]->added, slow[i]->added);
			assert_int_equal(fast[i]->removed, slow[i]->removed);
			assert_int_equal(fast[i]->truncated, slow[i]->truncated);
			for (j = 0; j < fast[i]->nfiles; j++)
				check_same_file(&fast[i]->files[j], &slow[i]->files[j]);
		}
		/* what the cases are meant to hold, so that equality means something */
		c = find_subject(fast, n, "c2 modify");
		assert_int_equal(c->nfiles, 3);
		f = find_file(c, "a.c");
		assert_non_null(f);
		assert_int_equal(f->nhunks, 2);
		assert_string_equal(f->hunks[1].func, "int f9(int x)");
		if (!budgets[b]) {
			f = find_file(c, "crlf.txt");
			assert_string_equal(f->hunks[0].lines[1].text, "two\r");
			f = find_file(c, "noeol.txt");
			assert_true(f->hunks[0].lines[f->hunks[0].nlines - 1].no_eol);
		}
		c = find_subject(fast, n, "c3 binary");
		assert_true(find_file(c, "bin.dat")->binary);
		assert_true(find_file(c, "x.nodiff")->binary);
		assert_false(find_file(c, "noeol.txt")->binary);
		c = find_subject(fast, n, "c4 add");
		assert_int_equal(find_file(c, "new.c")->status, SS_FILE_ADDED);
		assert_null(find_file(c, "new.c")->old_path);
		c = find_subject(fast, n, "c5 delete");
		f = find_file(c, "new.c");
		assert_int_equal(f->status, SS_FILE_DELETED);
		assert_int_equal(f->old_mode, 0100644);
		assert_int_equal(f->new_mode, 0);
		c = find_subject(fast, n, "c6 rename");
		assert_int_equal(c->nfiles, 1);
		assert_int_equal(c->files[0].status, SS_FILE_RENAMED);
		c = find_subject(fast, n, "c8 mode");
		assert_int_equal(c->files[0].new_mode, 0100755);
		c = find_subject(fast, n, "c11 long");
		f = find_file(c, "noeol.txt");
		assert_int_equal(f->old_mode, 0100755);
		assert_int_equal(f->new_mode, 0100755);
		c = find_subject(fast, n, "c12 long edit");
		assert_int_equal(c->truncated, budgets[b] != 0);
		for (i = 0; i < n; i++) {
			ss_commit_free(fast[i]);
			ss_commit_free(slow[i]);
		}
	}
	cur = saved;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_head_matches_git),
		cmocka_unit_test(test_threads_match_git),
		cmocka_unit_test(test_packed_match_git),
		cmocka_unit_test(test_tiny_cache_match_git),
		cmocka_unit_test(test_revisions_match_git),
		cmocka_unit_test(test_without_diff),
		cmocka_unit_test(test_newest),
		cmocka_unit_test(test_file_details),
		cmocka_unit_test(test_max_lines),
		cmocka_unit_test(test_free_early),
		cmocka_unit_test(test_bad_revision),
		cmocka_unit_test(test_missing_repository),
		cmocka_unit_test(test_missing_blob_any_reader),
		cmocka_unit_test(test_empty_repository),
		cmocka_unit_test(test_graph_matches_revwalk),
		cmocka_unit_test(test_graph_matches_revwalk_dpdk),
		cmocka_unit_test(test_branches),
		cmocka_unit_test(test_shallow_clone),
		cmocka_unit_test(test_corrupt_object),
		cmocka_unit_test(test_truncated_loose_object),
		cmocka_unit_test(test_loose_matches_packed),
		cmocka_unit_test(test_blob_diffs_match_libgit2),
	};

	return cmocka_run_group_tests(tests, setup_repo, teardown_repo);
}
