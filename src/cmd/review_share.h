/*
 * review_share.h - review's non-interactive forms (cmd/review.c):
 * the decisions as a JSON file a team keeps in git (review_share.c), and
 * the mails for accepted picks that do not apply (review_mail.c).
 * docs/review.md.
 */
#ifndef SS_CMD_REVIEW_SHARE_H
#define SS_CMD_REVIEW_SHARE_H

#include <stddef.h>

/*
 * --export FILE: every decision of the index (--db, else repo's), one
 * object a line, by branch then commit, so that a diff of two exports is
 * the decisions that changed.  --import FILE: the file read and checked
 * whole (a malformed one is one error naming the file and line, nothing
 * written), then merged by time in one transaction, each conflict (the
 * two sides differ) listed on stderr.  Returns the exit code.
 */
int review_share(const char *export_file, const char *import_file, const char *db,
		 const char *repo);

/*
 * --failed-mail --mail-dir DIR: for each decision "failed" of the branches
 * (named, else every branch with one), a mail to the commit's author,
 * Cc cc (else git config stablesel.failedCc), ready for git send-email:
 * what failed, the prerequisites found, the commands that try the
 * backport.  Returns the exit code.
 */
int review_failed_mail(const char *dir, const char *cc, const char *const *named, size_t nnamed,
		       const char *db, const char *repo);

#endif
