/*
 * patchid.h - a patch's identity independent of where it applies: git's
 * "git patch-id --stable".
 *
 * The same change carries a new commit id every time it is cherry-picked,
 * rebased or backported; its patch id stays: the SHA-1 of each file's
 * diff lines with all white space removed and line numbers, "index" lines
 * and "\ No newline" markers left out, the files' hashes added as 160-bit
 * little-endian numbers so that file order does not matter.  Equal patch
 * ids find a backport without a backport line, and the same patch sent
 * twice.
 *
 * ss_patch_id_text() follows git's builtin/patch-id.c state machine on
 * diff text (including its quirk that a file without hunks, a mode change,
 * is hashed together with the next file).  ss_commit_patch_id() runs it on
 * the diff rebuilt from a parsed commit (commit/patch.h), which equals
 * git's for text changes; git's differs where the diff text we rebuild
 * does: renames and copies ("similarity index" is not kept) and binary
 * files (blob ids are not kept), so a commit with a binary file has no
 * patch id here, nor has one whose diff was read capped.  On DPDK
 * v21.11..v22.03 read from the repository, 951 of 956 commits have git's
 * id and the other 5 are renames (tests/test_patchid.c).
 */
#ifndef SS_PATCHID_H
#define SS_PATCHID_H

#include <stddef.h>
#include <stdint.h>

#include "commit/commit.h"

/*
 * The patch id of the diff text (len bytes, from its first "diff " line;
 * anything before is ignored) as 40 lower-case hex digits and a NUL in
 * out.  0, SS_ENOTFOUND when the text holds no diff, SS_ENOMEM.
 */
int ss_patch_id_text(char out[41], const char *text, size_t len);

/*
 * The patch id of c's diff.  0; SS_ENOTFOUND when c has no diff, a binary
 * file, or a diff read capped (c->truncated); SS_ENOMEM.  No message is
 * set for SS_ENOTFOUND: a commit without a patch id is not an error.
 */
int ss_commit_patch_id(char out[41], const ss_commit *c);

/*
 * The first 64 bits of c's patch id as a number, 0 when c has none: the
 * key that groups copies of one patch (rebased, re-sent, cherry-picked).
 */
uint64_t ss_commit_patch_key(const ss_commit *c);

/*
 * A key for one patch across rebases that git's patch id tells apart:
 * the author's e-mail (lower case), the subject, and each file's path
 * with its added and removed lines (white space removed), in diff order,
 * hashed; context lines and line numbers left out.  Copies of a patch the
 * tip tree mails again for each branch, rebased onto other context lines,
 * share it.  0 when c has no text change, a binary file or a capped diff.
 */
uint64_t ss_commit_change_key(const ss_commit *c);

#endif
