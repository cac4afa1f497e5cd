/*
 * check_ancestry.c - a branch's ancestry kept between runs (check.h,
 * ss_check_ancestry_kept): the set of its commits that "is it in the
 * branch" looks up, written to a file of the repository once it is big
 * enough to cost time, read back the next time instead of walking the
 * whole history again, and extended by the commits the branch gained
 * since.
 *
 * Why: on a kernel-sized history a stable branch holds 1.2 M commits.
 * Reading them commit by commit takes 9 s of a weekly rank --onto it,
 * and 1-2 s from git's commit-graph file when the repository keeps one
 * (bench/results/index-scale.md); the branch moves by a few hundred
 * commits a week.  The file is a plain list of the keys the look-up
 * uses (the first 64 bits of each id, ss_check_oid_key), 8 bytes each
 * little-endian, after one header line:
 *
 *     stablesel ancestry 1 <tip: 40 hex> <count>\n<ref>\n
 *
 * It lives in <gitdir>/stablesel/ancestry/, named by a hash of the ref
 * --onto named (one file a branch, replaced as it moves; none for a
 * commit named by id), and is written
 * through a temporary file renamed over it (util/atomic.h).  A file whose
 * header, ref or size does not match is not used (the set is built as
 * without it and the file written again).
 *
 * Extension: from the branch's new tip, its commits are read down to
 * the ones the file holds.  The file's tip is an ancestor of the new tip
 * exactly when that descent meets it (any path from the new tip to it
 * first enters the file's set at it), and only then is the file's set
 * taken: a branch rewritten since is built again.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <git2.h>

#include "check/check_impl.h"
#include "source/git.h"
#include "source/git_repo.h"
#include "util/atomic.h"
#include "util/error.h"
#include "util/grow.h"

#define MAGIC "stablesel ancestry 1 "

/* The file of ck's branch: <gitdir>/stablesel/ancestry/<hash of ref>.
 * 0, or -1 when the path does not fit or --onto named no ref: a commit
 * or an expression (a replay's point set back by --as-of) is a new file
 * each time, never extended. */
static int file_path(char *out, size_t size, const ss_check *ck)
{
	uint64_t h = 0xcbf29ce484222325ull;   /* FNV-1a */
	int n;

	if (strncmp(ck->ref, "refs/", 5))
		return -1;

	for (const char *p = ck->ref; *p; p++)
		h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
	n = snprintf(out, size, "%sstablesel/ancestry/%016llx", git_repository_path(ck->repo),
		     (unsigned long long)h);
	return n < 0 || (size_t)n >= size ? -1 : 0;
}

/*
 * The file's set into ck->ancestors and its tip into *tip: 1, or 0 when
 * there is no usable file (ck->ancestors left empty), < 0 out of memory.
 */
static int read_file(ss_check *ck, const char *path, git_oid *tip)
{
	FILE *f = fopen(path, "rb");
	char head[128], ref[sizeof(ck->ref) + 2], hex[41];
	unsigned long long count;
	unsigned char buf[8 * 4096];
	struct stat st;
	long data;
	size_t left, found;
	int rc = 0;

	if (!f)
		return 0;
	if (!fgets(head, sizeof(head), f) || strncmp(head, MAGIC, strlen(MAGIC)) ||
	    sscanf(head + strlen(MAGIC), "%40s %llu", hex, &count) != 2 ||
	    git_oid_fromstrn(tip, hex, 40) < 0 || !fgets(ref, sizeof(ref), f) ||
	    strcspn(ref, "\n") != strlen(ck->ref) || strncmp(ref, ck->ref, strlen(ck->ref)) ||
	    fstat(fileno(f), &st) < 0 || (data = ftell(f)) < 0 ||
	    (unsigned long long)(st.st_size - data) != count * 8)
		goto out;
	for (left = (size_t)count; left && rc >= 0;) {
		size_t n = left < sizeof(buf) / 8 ? left : sizeof(buf) / 8;

		if (fread(buf, 8, n, f) != n) {
			rc = -2;
			break;
		}
		for (size_t i = 0; i < n; i++) {
			uint64_t k = 0;

			for (int b = 7; b >= 0; b--)
				k = k << 8 | buf[i * 8 + (size_t)b];
			if (!k) {
				rc = -2;   /* never a key: a damaged file */
				break;
			}
			if (ss_u64map_find_or_put(&ck->ancestors, k, 1, &found) < 0) {
				rc = SS_ENOMEM;
				break;
			}
		}
		left -= n;
	}
	if (rc == -2)
		rc = 0;
	else if (rc == 0)
		rc = 1;
out:
	fclose(f);
	if (rc != 1)
		ss_u64map_release(&ck->ancestors);
	return rc == SS_ENOMEM ? ss_error_code(SS_ENOMEM, "out of memory for the branch's commits")
			       : rc;
}

/*
 * The branch's commits the set lacks, read from its tip down to the set:
 * 1 when the descent met old (the set is then the branch's), 0 when it
 * did not (a rewritten branch: the set is not its ancestry) or a commit
 * could not be read, < 0 out of memory.
 */
static int extend(ss_check *ck, const git_oid *old, size_t *added)
{
	git_oid *todo = NULL;
	size_t ntodo = 0, cap = 0, found;
	int met = 0, rc = 0;

	*added = 0;
	if (SS_GROW(todo, 1, cap))
		return ss_error_code(SS_ENOMEM, "out of memory for the branch's commits");
	git_oid_cpy(&todo[ntodo++], git_commit_id(ck->branch));
	ss_git_object_cache_hold(1);
	while (ntodo && rc == 0) {
		git_oid oid = todo[--ntodo];
		git_commit *c = NULL;

		if (git_oid_equal(&oid, old)) {
			met = 1;
			continue;
		}
		if ((rc = ss_u64map_find_or_put(&ck->ancestors, ss_check_oid_key(&oid), 1, &found)) < 0)
			break;
		if (rc == 1) {   /* in the set, or read already */
			rc = 0;
			continue;
		}
		if (git_commit_lookup(&c, ck->repo, &oid) < 0) {
			rc = 1;
			break;
		}
		(*added)++;
		for (unsigned k = 0; k < git_commit_parentcount(c) && !rc; k++) {
			if (SS_GROW(todo, ntodo + 1, cap))
				rc = SS_ENOMEM;
			else
				git_oid_cpy(&todo[ntodo++], git_commit_parent_id(c, k));
		}
		git_commit_free(c);
	}
	ss_git_object_cache_hold(0);
	free(todo);
	if (rc == SS_ENOMEM)
		return ss_error_code(SS_ENOMEM, "out of memory for the branch's commits");
	return rc ? 0 : met;
}

int ss_check_ancestry_read(ss_check *ck)
{
	char path[4096];
	git_oid tip;
	size_t added;
	int rc;

	if (ck->keep_min == SIZE_MAX || file_path(path, sizeof(path), ck))
		return 0;
	if ((rc = read_file(ck, path, &tip)) <= 0)
		return rc;
	if (git_oid_equal(&tip, git_commit_id(ck->branch))) {
		ck->kept = SS_CHECK_KEPT_READ;
		return 1;
	}
	if ((rc = extend(ck, &tip, &added)) < 0 || rc == 0) {
		ss_u64map_release(&ck->ancestors);
		return rc;
	}
	ck->kept = SS_CHECK_KEPT_EXTENDED;
	ck->kept_added = added;
	return 1;
}

void ss_check_ancestry_write(ss_check *ck)
{
	char path[4096], dir[4096];
	ss_atomic *a = NULL;
	FILE *f;
	int rc = 0;

	if (ck->keep_min == SIZE_MAX || ck->ancestors.n < ck->keep_min ||
	    ck->kept == SS_CHECK_KEPT_READ || file_path(path, sizeof(path), ck))
		return;
	snprintf(dir, sizeof(dir), "%sstablesel/ancestry", git_repository_path(ck->repo));
	if (ss_atomic_make_dirs(dir) || ss_atomic_open_regular(&a, path))
		goto fail;
	f = ss_atomic_file(a);
	fprintf(f, MAGIC "%s %zu\n%s\n", git_oid_tostr_s(git_commit_id(ck->branch)), ck->ancestors.n,
		ck->ref);
	for (size_t i = 0; i < ck->ancestors.cap && !rc; i++) {
		unsigned char b[8];
		uint64_t k = ck->ancestors.key[i];

		if (!k)
			continue;
		for (int j = 0; j < 8; j++)
			b[j] = (unsigned char)(k >> (8 * j));
		if (fwrite(b, 1, 8, f) != 8)
			rc = -1;
	}
	if (rc) {
		ss_atomic_abort(a);
		ss_error_set("cannot write '%s'", path);
		goto fail;
	}
	if (ss_atomic_commit(a))
		goto fail;
	if (ck->kept != SS_CHECK_KEPT_EXTENDED)
		ck->kept = SS_CHECK_KEPT_WRITTEN;
	return;
fail:
	/* only a cache: the run goes on, and says why it was not kept */
	free(ck->kept_error);
	ck->kept_error = strdup(ss_error_last());
	ss_error_clear();
}

ss_check_kept ss_check_ancestry_kept(const ss_check *ck, size_t *added, const char **error)
{
	if (added)
		*added = ck ? ck->kept_added : 0;
	if (error)
		*error = ck ? ck->kept_error : NULL;
	return ck ? ck->kept : SS_CHECK_KEPT_NONE;
}
