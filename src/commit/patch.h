/*
 * patch.h - commits written back as patches: the unified diff regenerated
 * from a commit's files and hunks, and the mail header lines of a
 * "git format-patch" message, so that "git am" applies what stablesel
 * proposes.
 *
 * The diff is rebuilt from the parsed hunks (file headers, mode and rename
 * lines, "@@ -a,b +c,d @@ function" lines, context/added/removed lines,
 * "\ No newline at end of file"); binary files cannot be rebuilt and are
 * written as git's "Binary files ... differ" line, which git apply refuses.
 */
#ifndef SS_OUT_PATCH_H
#define SS_OUT_PATCH_H

#include <stddef.h>

#include "commit/commit.h"
#include "util/strbuf.h"

/*
 * Append the diff of c to sb.  At most max_lines diff lines are written
 * (0 = all); *cut (may be NULL) gets how many were left out.  Returns 0 or
 * SS_ENOMEM.  A commit read with a capped diff (c->truncated) gives a
 * diff that does not apply; the caller says so.
 */
int ss_patch_diff(ss_strbuf *sb, const ss_commit *c, size_t max_lines, size_t *cut);

/* Append an RFC 2822 date ("Mon, 13 Nov 2023 22:13:20 +0100") of time t
 * (UTC seconds) shown in the offset tz (minutes). */
int ss_patch_date(ss_strbuf *sb, int64_t t, int tz);

/* Append a "Subject:" or "From:" header value, RFC 2047-encoded (UTF-8,
 * base64) when it holds bytes outside printable ASCII. */
int ss_patch_header_value(ss_strbuf *sb, const char *s);

/* The message without its subject line (and the blank lines after it). */
const char *ss_patch_message_body(const char *message);

#endif
