/*
 * check.c - commits checked against a stable branch (see check.h): the
 * patch applied to the branch's tree in memory, and the commit and the
 * bug it fixes looked up in the branch's ancestry.
 *
 * The patch is rebuilt from the parsed commit (ss_patch_diff) and parsed
 * back with git_diff_from_buffer, the way mail patches are read, so that
 * a commit from any source can be checked.  git_apply_to_tree reports
 * only that a patch failed; which file and hunk stopped it comes from its
 * delta and hunk callbacks (the last ones called before the failure).
 *
 * Cost: git_apply_to_tree reads the branch's whole tree into an index for
 * every commit, so a check costs in proportion to the tree's size (1,004
 * commits against a 3,000-file tree: 9.0 s, against 0.35 s to read them;
 * docs/review.md).  Applying file by file to blobs would avoid that, but
 * libgit2 has no public call that applies a patch to a buffer.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <string.h>

#include <git2.h>

#include "check/check.h"
#include "history/history.h"
#include "out/patch.h"
#include "util/error.h"
#include "util/strbuf.h"

struct ss_check {
	git_repository *repo;
	git_commit *branch;
	git_tree *tree;
	char id[41];
	ss_histidx *blame;   /* the repository for blame (opts.prereqs) */
};

int ss_check_open(ss_check **out, const char *path, const ss_check_options *opts)
{
	ss_check_options defaults = SS_CHECK_OPTIONS_INIT;
	const char *rev;
	ss_check *ck;
	git_object *obj = NULL;
	int rc;

	*out = NULL;
	if (!opts)
		opts = &defaults;
	rev = opts->rev ? opts->rev : "HEAD";
	if (!strncmp(path, "git:", 4))
		path += 4;
	if (git_libgit2_init() < 0)
		return ss_error_code(SS_EINVALID, "cannot start libgit2: %s", ss_git_error());
	ck = calloc(1, sizeof(*ck));
	if (!ck) {
		git_libgit2_shutdown();
		return ss_error_code(SS_ENOMEM, "out of memory for a branch check");
	}
	if (git_repository_open_ext(&ck->repo, path, 0, NULL) < 0) {
		rc = ss_error_code(SS_ENOTFOUND, "cannot open repository '%s': %s", path,
				   ss_git_error());
		goto free_check;
	}
	if (git_revparse_single(&obj, ck->repo, rev) < 0 ||
	    git_object_peel((git_object **)&ck->branch, obj, GIT_OBJECT_COMMIT) < 0) {
		rc = ss_error_code(SS_ENOTFOUND, "cannot resolve '%s' in '%s' to a commit: %s", rev,
				   path, ss_git_error());
		goto free_check;
	}
	if (git_commit_tree(&ck->tree, ck->branch) < 0) {
		rc = ss_error_code(SS_EINVALID, "cannot read the tree of '%s': %s", rev,
				   ss_git_error());
		goto free_check;
	}
	git_oid_tostr(ck->id, sizeof(ck->id), git_commit_id(ck->branch));
	if (opts->prereqs && ((rc = ss_histidx_new(&ck->blame)) ||
			      (rc = ss_histidx_open_repo(ck->blame, path))))
		goto free_check;
	git_object_free(obj);
	*out = ck;
	return 0;

free_check:
	git_object_free(obj);
	ss_check_free(ck);
	return rc;
}

void ss_check_free(ss_check *ck)
{
	if (!ck)
		return;
	ss_histidx_free(ck->blame);
	git_tree_free(ck->tree);
	git_commit_free(ck->branch);
	git_repository_free(ck->repo);
	free(ck);
	git_libgit2_shutdown();
}

const char *ss_check_branch_id(const ss_check *ck)
{
	return ck->id;
}

const char *ss_apply_status_name(ss_apply_status s)
{
	switch (s) {
	case SS_APPLY_CLEAN:
		return "applies";
	case SS_APPLY_CONFLICT:
		return "conflict";
	case SS_APPLY_MISSING:
		return "missing";
	case SS_APPLY_EXISTS:
		return "exists";
	case SS_APPLY_UNKNOWN:
		break;
	}
	return "unknown";
}

/* Is the commit named by id (a full or abbreviated id) in the branch?  1
 * yes, 0 no, -1 not in the repository (or not a commit); full_out gets
 * its full id when found. */
static int in_branch(ss_check *ck, const char *id, char full_out[41])
{
	git_object *obj = NULL;
	const git_oid *oid, *tip = git_commit_id(ck->branch);
	int rc;

	if (strlen(id) < 4 || git_revparse_single(&obj, ck->repo, id) < 0 ||
	    git_object_type(obj) != GIT_OBJECT_COMMIT) {
		git_object_free(obj);
		return -1;
	}
	oid = git_object_id(obj);
	if (full_out)
		git_oid_tostr(full_out, 41, oid);
	rc = git_oid_equal(oid, tip) ? 1 : git_graph_descendant_of(ck->repo, tip, oid);
	git_object_free(obj);
	return rc < 0 ? -1 : rc;
}

/* The hex id after "This reverts commit " in a message, into id ("" when
 * none). */
static void reverted_id(char id[41], const char *message)
{
	const char *p = message ? strstr(message, "This reverts commit ") : NULL;
	size_t n = 0;

	id[0] = '\0';
	if (!p)
		return;
	p += strlen("This reverts commit ");
	while (n < 40 && isxdigit((unsigned char)p[n])) {
		id[n] = (char)tolower((unsigned char)p[n]);
		n++;
	}
	id[n >= 4 ? n : 0] = '\0';
}

/* The bug's targets (Fixes:, revert) against the branch. */
static void check_bug(ss_check_result *out, ss_check *ck, const ss_commit *c)
{
	char id[41], full[41];
	const char *subject;
	size_t len, found = 0;
	int any = 0;

	out->bug_in_branch = -1;
	out->target[0] = '\0';
	for (size_t i = 0; i <= c->ntrailers; i++) {
		int r;

		if (i < c->ntrailers) {
			if (strcasecmp(c->trailers[i].key, "Fixes") ||
			    ss_histidx_parse_fixes(id, &subject, &len, c->trailers[i].value))
				continue;
		} else {
			reverted_id(id, c->message);
			if (!id[0])
				continue;
		}
		if (!any++)
			snprintf(out->target, sizeof(out->target), "%s", id);
		r = in_branch(ck, id, full);
		if (r < 0)
			continue;
		found++;
		if (r == 1) {
			out->bug_in_branch = 1;
			snprintf(out->target, sizeof(out->target), "%s", full);
			return;
		}
		if (found == 1)
			snprintf(out->target, sizeof(out->target), "%s", full);
	}
	/* the bug is absent only when every target was found and is absent */
	if (found && found == (size_t)any)
		out->bug_in_branch = 0;
}

struct apply_state {
	const char *path;   /* the delta being applied (libgit2's memory) */
	int hunk;           /* hunks of it seen so far */
	git_delta_t status;
};

static int on_delta(const git_diff_delta *delta, void *payload)
{
	struct apply_state *st = payload;

	st->path = delta->old_file.path ? delta->old_file.path : delta->new_file.path;
	if (delta->status == GIT_DELTA_ADDED)
		st->path = delta->new_file.path;
	st->status = delta->status;
	st->hunk = 0;
	return 0;
}

static int on_hunk(const git_diff_hunk *hunk, void *payload)
{
	struct apply_state *st = payload;

	(void)hunk;
	st->hunk++;
	return 0;
}

/* Is path a blob in the branch's tree? */
static int has_path(ss_check *ck, const char *path)
{
	git_tree_entry *e = NULL;
	int found = git_tree_entry_bypath(&e, ck->tree, path) == 0;

	git_tree_entry_free(e);
	return found;
}

static int check_apply(ss_check_result *out, ss_check *ck, const ss_commit *c)
{
	ss_strbuf sb = SS_STRBUF_INIT;
	git_apply_options opts;
	struct apply_state st = { NULL, 0, GIT_DELTA_UNMODIFIED };
	git_diff *diff = NULL;
	git_index *index = NULL;
	size_t cut = 0;
	int rc = 0;

	out->apply = SS_APPLY_UNKNOWN;
	out->path[0] = '\0';
	out->hunk = 0;
	if (c->truncated || !c->nfiles)
		return 0;
	for (size_t i = 0; i < c->nfiles; i++)
		if (c->files[i].binary) {
			snprintf(out->path, sizeof(out->path), "%s", ss_file_path(&c->files[i]));
			return 0;
		}
	/* git_apply_to_tree (1.5) lets an added file replace one the tree
	 * has; git apply refuses it ("already exists"), and so do we */
	for (size_t i = 0; i < c->nfiles; i++)
		if (c->files[i].status == SS_FILE_ADDED && has_path(ck, c->files[i].new_path)) {
			out->apply = SS_APPLY_EXISTS;
			snprintf(out->path, sizeof(out->path), "%s", c->files[i].new_path);
			return 0;
		}
	if ((rc = ss_patch_diff(&sb, c, 0, &cut)))
		goto free_buf;
	if (cut || git_diff_from_buffer(&diff, sb.buf, sb.len) < 0)
		goto free_buf;  /* unknown: a patch libgit2 cannot read back */
	git_apply_options_init(&opts, GIT_APPLY_OPTIONS_VERSION);
	opts.delta_cb = on_delta;
	opts.hunk_cb = on_hunk;
	opts.payload = &st;
	opts.flags = GIT_APPLY_CHECK;
	if (git_apply_to_tree(&index, ck->repo, ck->tree, diff, &opts) == 0) {
		out->apply = SS_APPLY_CLEAN;
		goto free_diff;
	}
	if (!st.path)
		goto free_diff;  /* failed before any file: cannot tell */
	snprintf(out->path, sizeof(out->path), "%s", st.path);
	if (st.status == GIT_DELTA_ADDED) {
		out->apply = has_path(ck, st.path) ? SS_APPLY_EXISTS : SS_APPLY_CONFLICT;
	} else if (!has_path(ck, st.path)) {
		out->apply = SS_APPLY_MISSING;
	} else {
		out->apply = SS_APPLY_CONFLICT;
		out->hunk = st.hunk;
	}

free_diff:
	git_index_free(index);
	git_diff_free(diff);
free_buf:
	ss_strbuf_release(&sb);
	return rc;
}

/* The commits that last touched the lines c changes, not in the branch. */
static int check_needs(ss_check_result *out, ss_check *ck, const ss_commit *c)
{
	ss_blame_candidate cand[16];
	size_t n = 0;
	int rc;

	if ((rc = ss_blame_introducers(cand, 16, &n, ck->blame, c)))
		return rc;
	for (size_t i = 0; i < n && i < 16 && out->nneeds < SS_CHECK_MAX_NEEDS; i++)
		if (in_branch(ck, cand[i].id, NULL) == 0)
			memcpy(out->needs[out->nneeds++], cand[i].id, sizeof(cand[i].id));
	return 0;
}

int ss_check_commit(ss_check_result *out, ss_check *ck, const ss_commit *c)
{
	int rc, r;

	memset(out, 0, sizeof(*out));
	if ((rc = check_apply(out, ck, c)))
		return rc;
	r = in_branch(ck, c->id, NULL);
	out->in_branch = r == 1;
	check_bug(out, ck, c);
	/* blame needs the commit in the repository (r >= 0) */
	if (ck->blame && out->apply == SS_APPLY_CONFLICT && r >= 0 &&
	    (rc = check_needs(out, ck, c)))
		return rc;
	return 0;
}
