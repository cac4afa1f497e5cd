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

/*
 * A near copy: a patch sent again with a few changed lines of its own
 * different (a rebase that had to touch a line, a review's small fix).
 * Its author key is the author's e-mail (lower case) and the subject
 * (white space removed) hashed, 0 when c has no text change; its sketch
 * is a MinHash of the set of its changed lines (each "path origin text",
 * white space removed): SS_NEAR_HASHES minimums, each under its own seed,
 * so that the share of equal minimums of two sketches estimates the
 * Jaccard similarity of the two sets (Broder, 1997).  Two commits of one
 * author key whose sketches agree in at least SS_NEAR_AGREE of them are
 * one patch (the ranking folds them: rank/ranking.c).
 */
#define SS_NEAR_HASHES 16
#define SS_NEAR_AGREE 12

typedef struct {
	uint64_t author;               /* 0: none */
	uint32_t min[SS_NEAR_HASHES];
} ss_near_sketch;

void ss_commit_near_sketch(ss_near_sketch *out, const ss_commit *c);

/* How many of the minimums of a and b agree (0..SS_NEAR_HASHES). */
int ss_near_agree(const ss_near_sketch *a, const ss_near_sketch *b);

#endif
