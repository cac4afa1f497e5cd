/*
 * test_check_lines.c - the batch blame of check_lines.c against libgit2's
 * git_blame_file(), its brute force: a repository made with the git CLI
 * whose file src/dir/f.c is edited by 80 commits (a line replaced,
 * inserted or deleted at pseudo-random places, now and then several),
 * beside commits to other files (src/dir/g.c, lib/h.c on a side branch
 * merged back, src/dir/new.c added late); a branch "stable" forks at the
 * 12th commit.  For every commit after the fork, blamed at its parent,
 * for several line ranges of f.c, the owners (the commits after the fork
 * that last changed those lines, newest first, each once) must be the
 * ones git_blame_file() names down to the fork, the changed files taken
 * from the commits' trees or from a project index.  A file missing at the
 * parent has none; a commit outside the walk is not covered.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <git2.h>

#include "check/check_impl.h"
#include "index/index.h"
#include "testutil.h"

#define NCOMMITS 80
#define FORK 12

static char *tmpdir;
static char repo_path[4096];
static git_repository *repo;
static git_oid ids[NCOMMITS + 8];
static size_t nids;

/* A small deterministic generator (tests must not vary by run). */
static unsigned rnd_state = 12345;
static unsigned rnd(unsigned n)
{
	rnd_state = rnd_state * 1103515245u + 12345u;
	return (rnd_state >> 16) % n;
}

static void write_lines(const char *rel, char **lines, size_t n)
{
	char path[4300];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", repo_path, rel);
	assert_non_null(f = fopen(path, "w"));
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s\n", lines[i]);
	fclose(f);
}

/* Commit everything staged at time t; its id into ids[]. */
static void commit_at(long t, const char *msg)
{
	char *out;

	assert_int_equal(test_run("cd '%s' && git add -A && GIT_AUTHOR_DATE='@%ld +0000' "
				  "GIT_COMMITTER_DATE='@%ld +0000' git commit -q -m '%s'",
				  repo_path, t, t, msg), 0);
	out = test_run_output("git -C '%s' rev-parse HEAD", repo_path);
	assert_int_equal(git_oid_fromstrn(&ids[nids++], out, 40), 0);
	free(out);
}

static int setup(void **state)
{
	char *lines[400];
	size_t n = 30, made = 0;
	long t = 1600000000;

	(void)state;
	tmpdir = test_tmpdir();
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	setenv("GIT_CONFIG_GLOBAL", "/dev/null", 1);
	snprintf(repo_path, sizeof(repo_path), "%s/repo", tmpdir);
	if (test_run("mkdir -p '%s/src/dir' '%s/lib' && cd '%s' && git init -q -b main . && "
		     "git config user.name T && git config user.email t@example.org",
		     repo_path, repo_path, repo_path))
		return -1;
	git_libgit2_init();
	for (size_t i = 0; i < n; i++) {
		char buf[64];

		snprintf(buf, sizeof(buf), "line %zu of the first version", i);
		lines[i] = strdup(buf);
	}
	write_lines("src/dir/f.c", lines, n);
	write_lines("src/dir/g.c", lines, 3);
	write_lines("lib/h.c", lines, 3);
	commit_at(t, "first");
	for (int k = 1; k < NCOMMITS; k++) {
		int edits = 1 + (int)rnd(3);

		t += 3600;
		for (int e = 0; e < edits; e++) {
			unsigned op = rnd(3), at = rnd((unsigned)n);
			char buf[64];

			snprintf(buf, sizeof(buf), "line made by commit %d (%zu)", k, made++);
			if (op == 0 || n < 10) {                 /* insert */
				memmove(lines + at + 1, lines + at, (n - at) * sizeof(*lines));
				lines[at] = strdup(buf);
				n++;
			} else if (op == 1 && n < 390) {         /* replace */
				free(lines[at]);
				lines[at] = strdup(buf);
			} else {                                 /* delete */
				free(lines[at]);
				memmove(lines + at, lines + at + 1, (n - at - 1) * sizeof(*lines));
				n--;
			}
		}
		write_lines("src/dir/f.c", lines, n);
		if (k % 7 == 0) {
			char *g[1] = { lines[0] };

			write_lines("src/dir/g.c", g, 1);
		}
		if (k == 60) {
			char *nw[2] = { lines[1], lines[2] };

			write_lines("src/dir/new.c", nw, 2);
		}
		commit_at(t, "edit");
		if (k == FORK - 1 &&
		    test_run("git -C '%s' branch stable", repo_path))
			return -1;
		if (k == 40) {
			/* a side branch changing lib/h.c, merged back */
			char *h[1] = { lines[3] };

			if (test_run("git -C '%s' checkout -q -b side HEAD~3", repo_path))
				return -1;
			write_lines("lib/h.c", h, 1);
			commit_at(t + 60, "side");
			if (test_run("cd '%s' && git checkout -q main && GIT_AUTHOR_DATE='@%ld +0000' "
				     "GIT_COMMITTER_DATE='@%ld +0000' git merge -q --no-ff -m merge side",
				     repo_path, t + 120, t + 120))
				return -1;
			t += 200;
		}
	}
	for (size_t i = 0; i < n; i++)
		free(lines[i]);
	return git_repository_open(&repo, repo_path) < 0 ? -1 : 0;
}

static int teardown(void **state)
{
	(void)state;
	git_repository_free(repo);
	git_libgit2_shutdown();
	test_run("rm -rf '%s'", tmpdir);
	free(tmpdir);
	return 0;
}

/* git_blame_file()'s owners of the lines at parent down to bottom: the
 * commits other than bottom, newest first (author time, then line), once. */
static size_t blame_owners(git_oid *out, const git_oid *parent, const git_oid *bottom,
			   const char *path, int start, int lines)
{
	git_blame_options o;
	git_blame *b = NULL;
	size_t n = 0;
	struct { int64_t t; size_t line; git_oid id; } own[400];

	git_blame_options_init(&o, GIT_BLAME_OPTIONS_VERSION);
	git_oid_cpy(&o.newest_commit, parent);
	git_oid_cpy(&o.oldest_commit, bottom);
	o.min_line = (size_t)start;
	o.max_line = (size_t)(start + lines - 1);
	if (git_blame_file(&b, repo, path, &o) < 0)
		return 0;
	for (uint32_t i = 0; i < git_blame_get_hunk_count(b); i++) {
		const git_blame_hunk *h = git_blame_get_hunk_byindex(b, i);

		if (git_oid_equal(&h->final_commit_id, bottom) || h->boundary)
			continue;
		own[n].t = h->final_signature->when.time;
		own[n].line = h->final_start_line_number;
		git_oid_cpy(&own[n].id, &h->final_commit_id);
		n++;
	}
	git_blame_free(b);
	/* newest first; a stable insertion sort */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && (own[j].t > own[j - 1].t ||
					     (own[j].t == own[j - 1].t && own[j].line < own[j - 1].line)); j--) {
			__typeof__(own[0]) x = own[j];

			own[j] = own[j - 1];
			own[j - 1] = x;
		}
	{
		size_t m = 0;

		for (size_t i = 0; i < n; i++) {
			size_t k;

			for (k = 0; k < m && !git_oid_equal(&out[k], &own[i].id); k++)
				;
			if (k == m)
				git_oid_cpy(&out[m++], &own[i].id);
		}
		return m;
	}
}

static int file_lines(const git_oid *commit, const char *path)
{
	git_commit *c = NULL;
	git_tree *t = NULL;
	git_tree_entry *e = NULL;
	git_blob *b = NULL;
	int n = 0;

	assert_int_equal(git_commit_lookup(&c, repo, commit), 0);
	assert_int_equal(git_commit_tree(&t, c), 0);
	if (git_tree_entry_bypath(&e, t, path) == 0 &&
	    git_blob_lookup(&b, repo, git_tree_entry_id(e)) == 0) {
		const char *p = git_blob_rawcontent(b);

		for (git_object_size_t i = 0; i < git_blob_rawsize(b); i++)
			n += p[i] == '\n';
	}
	git_blob_free(b);
	git_tree_entry_free(e);
	git_tree_free(t);
	git_commit_free(c);
	return n;
}

/* The walk's files from the trees, or from the project index ix. */
static void same_as_git_blame(ss_index *ix)
{
	const char *paths[] = { "src/dir/f.c", "src/dir/g.c", "src/dir/new.c", "lib/h.c" };
	git_oid tops[NCOMMITS + 8], bottom, want[400];
	ss_check_lines *h = NULL;
	size_t ntops = 0, checked = 0, nonempty = 0;

	assert_int_equal(git_oid_fromstr(&bottom, "0000000000000000000000000000000000000000"), 0);
	{
		char *out = test_run_output("git -C '%s' rev-parse stable", repo_path);

		assert_int_equal(git_oid_fromstrn(&bottom, out, 40), 0);
		free(out);
	}
	/* the picks: every commit after the fork; their parents the tops */
	for (size_t i = FORK + 1; i < nids; i++) {
		git_commit *c = NULL;

		assert_int_equal(git_commit_lookup(&c, repo, &ids[i]), 0);
		if (git_commit_parentcount(c) == 1)
			git_oid_cpy(&tops[ntops++], git_commit_parent_id(c, 0));
		git_commit_free(c);
	}
	assert_int_equal(ss_check_lines_new(&h, repo, &bottom, tops, ntops, paths, 4, ix), 0);
	assert_true(git_oid_equal(ss_check_lines_bottom(h), &bottom));
	for (size_t i = 0; i < ntops; i++) {
		for (size_t p = 0; p < 4; p++) {
			int n = file_lines(&tops[i], paths[p]);

			assert_true(ss_check_lines_covers(h, &bottom, &tops[i], paths[p]));
			for (int start = 1; start <= (n ? n : 1); start += 1 + (int)rnd(7)) {
				int lines = 1 + (int)rnd(8);
				git_oid *own = NULL;
				size_t nown = 0, nwant;

				if (n && start + lines - 1 > n)
					lines = n - start + 1;
				nwant = n ? blame_owners(want, &tops[i], &bottom, paths[p], start, lines) : 0;
				assert_int_equal(ss_check_lines_owners(h, &own, &nown, &tops[i], paths[p],
								       start, lines), 0);
				if (nown != nwant)
					print_message("%s at %s lines %d+%d: %zu owners, git blame %zu\n",
						      paths[p], git_oid_tostr_s(&tops[i]), start, lines,
						      nown, nwant);
				assert_int_equal(nown, nwant);
				for (size_t k = 0; k < nown; k++) {
					char a[41], b[41], c[41];

					if (!git_oid_equal(&own[k], &want[k]))
						print_message("%s at %s lines %d+%d: owner %zu %s, git "
							      "blame %s\n", paths[p],
							      git_oid_tostr(a, sizeof(a), &tops[i]), start,
							      lines, k, git_oid_tostr(b, sizeof(b), &own[k]),
							      git_oid_tostr(c, sizeof(c), &want[k]));
					assert_true(git_oid_equal(&own[k], &want[k]));
				}
				checked++;
				nonempty += nown > 0;
				free(own);
			}
		}
	}
	/* enough cases, and owners found in most */
	assert_true(checked > 300);
	assert_true(nonempty > checked / 2);
	/* not covered: a commit outside the walk, a file not announced,
	 * another bottom */
	assert_false(ss_check_lines_covers(h, &bottom, &ids[2], paths[0]));
	assert_false(ss_check_lines_covers(h, &bottom, &tops[0], "src/dir/other.c"));
	assert_false(ss_check_lines_covers(h, &ids[3], &tops[0], paths[0]));
	assert_true(ss_check_lines_covers(h, NULL, &tops[0], NULL));
	ss_check_lines_free(h);
}

static void test_same_as_git_blame(void **state)
{
	(void)state;
	same_as_git_blame(NULL);
}

/*
 * The files each commit changed from the project index's rows: the same
 * owners; and with every row of the commits whose id starts with 0-5
 * taken out of the index (as a stale one lacks commits: their trees are
 * compared), the same again.
 */
static void test_from_index(void **state)
{
	char db[4200];
	ss_index *ix = NULL;

	(void)state;
	snprintf(db, sizeof(db), "%s/index.db", tmpdir);
	assert_int_equal(test_run("./stablesel index --no-progress --repo '%s' --db '%s' >/dev/null 2>&1",
				  repo_path, db), 0);
	assert_int_equal(test_run("test $(sqlite3 '%s' \"SELECT count(*) FROM files WHERE "
				  "path = 'src/dir/f.c'\") -ge %d", db, NCOMMITS / 2), 0);
	assert_int_equal(ss_index_open(&ix, db, SS_INDEX_READ), 0);
	same_as_git_blame(ix);
	ss_index_free(ix);
	assert_int_equal(test_run("sqlite3 '%s' \"DELETE FROM files WHERE substr(commit_id, 1, 1) < '6'\" "
				  "&& test $(sqlite3 '%s' \"SELECT count(DISTINCT commit_id) FROM files\") -gt 20",
				  db, db), 0);
	assert_int_equal(ss_index_open(&ix, db, SS_INDEX_READ), 0);
	same_as_git_blame(ix);
	ss_index_free(ix);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_as_git_blame),
		cmocka_unit_test(test_from_index),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
