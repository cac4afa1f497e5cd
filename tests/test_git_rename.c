/*
 * test_git_rename.c - ss_git_find_renames() (source/git_rename.c) against
 * libgit2's git_diff_find_similar() on the same tree diffs: every delta's
 * status, similarity, paths, ids and modes equal, on a crafted repository
 * with what could make them differ: many exact renames, renames with
 * edits, a signature equal to an exact match's (whitespace only), the
 * same blob deleted twice, added twice, empty files, renames below the
 * threshold, pairs that push each other out, tiny files, an executable,
 * a symlink and a type change; a commit too small for the shortcut;
 * renames among random files (scores of every size).
 * Each way ss_git_find_renames() can go (libgit2 alone, exact matches
 * only, the renames handed over) is reached.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <git2.h>

#include "source/git_impl.h"
#include "testutil.h"

static const char script[] =
	"set -e\n"
	"git -c init.defaultBranch=main init -q .\n"
	"git config user.name T; git config user.email t@example.org\n"
	"git config core.autocrlf false; git config commit.gpgsign false\n"
	"export GIT_AUTHOR_DATE='1700000000 +0000' GIT_COMMITTER_DATE='1700000000 +0000'\n"
	/* c1: everything the later commits move */
	"mkdir old sim\n"
	"for i in 01 02 03 04 05 06 07 08 09 10 11 12 13 14; do\n"
	"  seq -f \"file$i line %g\" 1 40 > old/f$i.c; done\n"
	"seq -f 'big line %g' 1 300 > big.txt\n"
	"seq -f 'dup line %g' 1 10 > dup1.txt; cp dup1.txt dup2.txt\n"
	"seq -f 'e line %g' 1 10 > e1.txt; cp e1.txt e2.txt\n"
	": > empty1; : > empty2; : > empty3\n"
	"echo one > tiny1; echo two words > tiny2\n"
	"for x in a b c d e f g h; do\n"
	"  { seq -f 'shared %g' 1 30; seq -f \"own $x %g\" 1 30; } > sim/$x.c; done\n"
	"seq -f 'rewrite %g' 1 40 > heavy.txt\n"
	"seq -f 'exe %g' 1 20 > exe.sh; chmod +x exe.sh\n"
	"ln -s big.txt link\n"
	"git add -A; git commit -qm 'c1 root'\n"
	/* c2: a directory moved, one file edited on the way; big.txt
	 * renamed with only indentation changed (the same signature: 100
	 * without being the same blob) and copied unchanged after it */
	"git mv old new\n"
	"printf 'added 1\\nadded 2\\n' >> new/f03.c\n"
	"sed 's/^big line 1/   big line 1/' big.txt > big2.txt\n"
	"cp big.txt big3.txt; git rm -q big.txt; git add -A\n"
	"git commit -qm 'c2 move'\n"
	/* c3: moved again; one blob deleted twice and added once, another
	 * deleted twice and added twice, empty files */
	"git mv new again\n"
	"git rm -q dup1.txt dup2.txt e1.txt e2.txt empty1 empty2 empty3\n"
	"seq -f 'dup line %g' 1 10 > dupA.txt\n"
	"seq -f 'e line %g' 1 10 > E1.txt; cp E1.txt E2.txt\n"
	": > emptyA; : > emptyB\n"
	"git add -A; git commit -qm 'c3 duplicates'\n"
	/* c4: renames with edits whose targets come in the other order, so
	 * that early targets take sources that later ones take back; one
	 * rewritten beyond the threshold; tiny files edited */
	"mkdir sim2\n"
	"n=0; for x in a b c d e f g h; do n=$((n + 1)); y=$(echo hgfedcba | cut -c$n)\n"
	"  { seq -f 'shared %g' 1 30; seq -f \"own $x %g\" 1 $((30 - 3 * n)); } > sim2/$y.c\n"
	"  git rm -q sim/$x.c; done\n"
	"git rm -q heavy.txt; seq -f 'other text %g' 1 40 > heavy2.txt\n"
	"sed -i 's/^rewrite 1$/rewrite 1/' heavy2.txt\n"
	"git rm -q tiny1 tiny2; echo one more > tinyA; echo two > tinyB\n"
	"git add -A; git commit -qm 'c4 similar'\n"
	/* c5: an executable and exact moves; a symlink gone, another added;
	 * a symlink become a file */
	"ln -s big2.txt tl; git add tl; git commit -qm 'c5a link'\n"
	"mkdir bin moved; git mv exe.sh bin/exe.sh\n"
	"for i in 01 02 03 04 05 06 07 08; do git mv again/f$i.c moved/f$i.c; done\n"
	"git rm -q link; ln -s again/f09.c link2\n"
	"rm tl; seq -f 'big line %g' 1 300 > tl\n"
	"git add -A; git commit -qm 'c5 modes'\n"
	/* c6: one rename among few files: libgit2 alone */
	"git mv dupA.txt dupB.txt; echo z >> tinyA; git commit -qam 'c6 few'\n"
	/* r1..r6: 16 files of random lines from a pool of 60, then 16 new
	 * files each made of one of them (some twice, some never) with a
	 * random share of its lines replaced: scores of every size, ties,
	 * partners pushed out */
	"for seed in 1 2 3 4 5 6; do\n"
	"  mkdir rand\n"
	"  awk -v seed=$seed 'BEGIN { srand(seed); for (k = 0; k < 16; k++) {\n"
	"    f = sprintf(\"rand/s%02d.txt\", k); n = 20 + int(rand() * 40);\n"
	"    for (i = 0; i < n; i++) print \"L\" int(rand() * 60) > f; close(f) } }'\n"
	"  git add rand; git commit -qm \"r$seed base\"\n"
	"  mkdir rand2\n"
	"  awk -v seed=$seed 'BEGIN { srand(seed + 100); for (k = 0; k < 16; k++) {\n"
	"    f = sprintf(\"rand2/t%03d.txt\", int(rand() * 1000));\n"
	"    src = sprintf(\"rand/s%02d.txt\", int(rand() * 16)); n = 0;\n"
	"    while ((getline line < src) > 0) lines[n++] = line; close(src); keep = rand();\n"
	"    for (i = 0; i < n; i++) print (rand() < keep ? lines[i] : \"x\" int(rand() * 40)) > f;\n"
	"    close(f) } }'\n"
	"  git rm -rq rand; git add rand2; git commit -qm \"r$seed\"\n"
	"  git rm -rq rand2; git commit -qm \"r$seed end\"\n"
	"done\n";

static git_repository *repo;

static int setup(void **state)
{
	char *dir = test_tmpdir(), path[4096];
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "%s/make.sh", dir);
	assert_non_null(f = fopen(path, "w"));
	assert_int_equal(fwrite(script, 1, sizeof(script) - 1, f), sizeof(script) - 1);
	assert_int_equal(fclose(f), 0);
	snprintf(path, sizeof(path), "%s/repo", dir);
	assert_int_equal(test_run("mkdir '%s' && cd '%s' && sh ../make.sh", path, path), 0);
	git_libgit2_init();
	assert_int_equal(git_repository_open(&repo, path), 0);
	free(dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	git_repository_free(repo);
	git_libgit2_shutdown();
	return 0;
}

/* The tree diff of commit c against its first parent (empty for a root). */
static git_diff *tree_diff(git_commit *c)
{
	git_commit *parent = NULL;
	git_tree *a = NULL, *b = NULL;
	git_diff *diff = NULL;

	if (git_commit_parentcount(c)) {
		assert_int_equal(git_commit_parent(&parent, c, 0), 0);
		assert_int_equal(git_commit_tree(&a, parent), 0);
	}
	assert_int_equal(git_commit_tree(&b, c), 0);
	assert_int_equal(git_diff_tree_to_tree(&diff, repo, a, b, NULL), 0);
	git_tree_free(a);
	git_tree_free(b);
	git_commit_free(parent);
	return diff;
}

static void same_file(const git_diff_file *a, const git_diff_file *b)
{
	assert_true((a->path == NULL) == (b->path == NULL));
	if (a->path)
		assert_string_equal(a->path, b->path);
	assert_true(git_oid_equal(&a->id, &b->id));
	assert_int_equal(a->mode, b->mode);
}

/* The deltas of commit c after ss_git_find_renames() against libgit2's;
 * returns how ss_git_find_renames() went. */
static int check_commit(git_commit *c, const char *subject)
{
	git_diff_find_options fopts;
	git_diff *ours = tree_diff(c), *theirs = tree_diff(c), *plain = tree_diff(c);
	size_t i, n;
	int how;

	git_diff_find_options_init(&fopts, GIT_DIFF_FIND_OPTIONS_VERSION);
	fopts.flags = GIT_DIFF_FIND_RENAMES;
	fopts.rename_limit = 1000;
	how = ss_git_find_renames(ours, repo, 1000, 0);
	assert_true(how >= 0);
	assert_int_equal(git_diff_find_similar(theirs, &fopts), 0);
	assert_int_equal(ss_git_find_renames(plain, repo, 1000, 1), 0);
	n = git_diff_num_deltas(theirs);
	assert_int_equal(git_diff_num_deltas(ours), n);
	assert_int_equal(git_diff_num_deltas(plain), n);
	for (i = 0; i < n; i++) {
		const git_diff_delta *x = git_diff_get_delta(ours, i);
		const git_diff_delta *y = git_diff_get_delta(theirs, i);
		const git_diff_delta *z = git_diff_get_delta(plain, i);

		if (x->status != y->status || x->similarity != y->similarity)
			fail_msg("%s: delta %zu (%s): status %d/%d similarity %u/%u", subject, i,
				 y->new_file.path, x->status, y->status, x->similarity,
				 y->similarity);
		assert_int_equal(z->status, y->status);
		assert_int_equal(z->similarity, y->similarity);
		same_file(&x->old_file, &y->old_file);
		same_file(&x->new_file, &y->new_file);
		same_file(&z->old_file, &y->old_file);
		same_file(&z->new_file, &y->new_file);
	}
	git_diff_free(ours);
	git_diff_free(theirs);
	git_diff_free(plain);
	return how;
}

/* The delta of path (new side) in c's diff after renames, as libgit2 has it. */
static void expect(git_commit *c, const char *path, git_delta_t status, const char *from,
		   int similarity)
{
	git_diff_find_options fopts;
	git_diff *diff = tree_diff(c);
	size_t i, n;

	git_diff_find_options_init(&fopts, GIT_DIFF_FIND_OPTIONS_VERSION);
	fopts.flags = GIT_DIFF_FIND_RENAMES;
	fopts.rename_limit = 1000;
	assert_true(ss_git_find_renames(diff, repo, 1000, 0) >= 0);
	n = git_diff_num_deltas(diff);
	for (i = 0; i < n; i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);

		if (strcmp(d->new_file.path, path) || d->status == GIT_DELTA_DELETED)
			continue;
		assert_int_equal(d->status, status);
		if (from)
			assert_string_equal(d->old_file.path, from);
		if (similarity >= 0)
			assert_int_equal(d->similarity, similarity);
		git_diff_free(diff);
		return;
	}
	fail_msg("%s not in the diff", path);
}

static void test_renames_match_libgit2(void **state)
{
	git_revwalk *walk;
	git_oid oid;
	int seen[3] = { 0, 0, 0 }, how;
	size_t n = 0;

	(void)state;
	assert_int_equal(git_revwalk_new(&walk, repo), 0);
	git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL | GIT_SORT_REVERSE);
	assert_int_equal(git_revwalk_push_head(walk), 0);
	while (!git_revwalk_next(&oid, walk)) {
		git_commit *c;
		const char *subject;

		assert_int_equal(git_commit_lookup(&c, repo, &oid), 0);
		subject = git_commit_summary(c);
		how = check_commit(c, subject);
		seen[how]++;
		/* what the cases are meant to hold, so that equality means something */
		if (!strcmp(subject, "c2 move")) {
			assert_int_equal(how, 2);
			expect(c, "new/f01.c", GIT_DELTA_RENAMED, "old/f01.c", 100);
			expect(c, "new/f03.c", GIT_DELTA_RENAMED, "old/f03.c", -1);
			/* not the same blob, yet 100: taken before the exact copy */
			expect(c, "big2.txt", GIT_DELTA_RENAMED, "big.txt", 100);
			expect(c, "big3.txt", GIT_DELTA_ADDED, NULL, -1);
		} else if (!strcmp(subject, "c3 duplicates")) {
			assert_int_equal(how, 1);
			expect(c, "dupA.txt", GIT_DELTA_RENAMED, "dup1.txt", 100);
			expect(c, "E1.txt", GIT_DELTA_RENAMED, "e1.txt", 100);
			expect(c, "E2.txt", GIT_DELTA_RENAMED, "e2.txt", 100);
			expect(c, "emptyA", GIT_DELTA_RENAMED, "empty1", 100);
		} else if (!strcmp(subject, "c4 similar")) {
			assert_int_equal(how, 2);
			expect(c, "heavy2.txt", GIT_DELTA_ADDED, NULL, -1);
		} else if (!strcmp(subject, "c5 modes")) {
			assert_true(how > 0);
			expect(c, "bin/exe.sh", GIT_DELTA_RENAMED, "exe.sh", 100);
		} else if (!strcmp(subject, "c6 few")) {
			assert_int_equal(how, 0);
			expect(c, "dupB.txt", GIT_DELTA_RENAMED, "dupA.txt", 100);
		}
		git_commit_free(c);
		n++;
	}
	git_revwalk_free(walk);
	assert_int_equal(n, 7 + 6 * 3);
	assert_true(seen[0] > 0);
	assert_true(seen[1] > 0);
	assert_true(seen[2] > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_renames_match_libgit2),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
