/*
 * review_mail.c - "stablesel review --failed-mail --mail-dir DIR": for each
 * accepted pick marked failed on a branch, one mail to its author, ready
 * for git send-email (review_share.h; the picks, their check, the mail's
 * text and the files written are run/failed_mail.c's): the folder asked
 * for, how many mails were written said.
 */
#include <stdio.h>

#include "builtin.h"
#include "review_share.h"
#include "run/failed_mail.h"
#include "util/error.h"

int review_failed_mail(const char *dir, const char *cc, const char *const *named, size_t nnamed,
		       const char *db, const char *repo)
{
	ss_run_failed_mails_options o = SS_RUN_FAILED_MAILS_OPTIONS_INIT;
	size_t written;

	/* '' would write into '/' */
	if (!*dir)
		usage_die("-o needs a folder for the mails, not ''");
	o.dir = dir;
	o.cc = cc;
	o.named = named;
	o.nnamed = nnamed;
	o.db = db;
	o.repo = repo;
	if (ss_run_failed_mails_write(&written, &o, cli_run_report()))
		die("%s", ss_error_last());
	note("%zu mail%s for failed picks written to '%s'%s", written, written == 1 ? "" : "s", dir,
	     written ? " (send them with git send-email)" : "");
	return ss_had_error ? SS_EXIT_BADINPUT : 0;
}
