/*
 * diff.h - the one diff walk shared by git and mail sources.
 *
 * Mail patches are parsed with libgit2's git_diff_from_buffer() and
 * repository commits are diffed with git_diff_tree_to_tree() or, when no
 * rename is possible, blob by blob with git_patch_from_blobs(); all end
 * in the same walk of a git_patch (ss_commit_add_diff(),
 * ss_commit_add_blob_patch()), so git and mail yield identical files,
 * hunks and lines (and share one set of bugs).
 */
#ifndef SS_DIFF_H
#define SS_DIFF_H

#include <git2.h>

#include "commit/commit.h"

/*
 * Append the files of diff to c (files, hunks, lines, totals).  At most
 * max_lines diff lines are stored (0 = all); beyond it hunks keep their
 * counts but no lines, and c->truncated is set.  Returns 0 or < 0 with the
 * error message set.
 */
int ss_commit_add_diff(ss_commit *c, git_diff *diff, size_t max_lines);

/*
 * Append a file whose blob is missing from the object store (a partial
 * clone's): path, status and modes, no hunks, binary set to
 * SS_FILE_UNREADABLE.  0 or SS_ENOMEM.
 */
int ss_commit_add_unreadable(ss_commit *c, const char *path, ss_file_status status,
			     uint32_t old_mode, uint32_t new_mode);

/*
 * Append the one file of patch, made by git_patch_from_blobs(), to c,
 * with status and modes from the caller (a blob patch knows neither: its
 * delta says 100644 and "modified"); paths come from the patch (its
 * as_path arguments).  budget, when not NULL, is the number of diff lines
 * still to store, shared by the files of one commit as in
 * ss_commit_add_diff(), and is decreased.  Returns 0 or < 0 with the error
 * message set.
 */
int ss_commit_add_blob_patch(ss_commit *c, git_patch *patch, ss_file_status status,
			     uint32_t old_mode, uint32_t new_mode, size_t *budget);

/*
 * Parse the unified diff in text (from its first "diff --git" line; text
 * before it is ignored) into c.  Works around libgit2 1.5 rejecting a patch
 * that ends in a pure rename/mode change followed by blank lines and a new
 * empty file in the middle of a patch.  Returns 0, or SS_EINVALID with the
 * error message set.
 */
int ss_commit_parse_patch(ss_commit *c, const char *text, size_t len, size_t max_lines);

#endif
