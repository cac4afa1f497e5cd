/*
 * review_mail.c - "stablesel review --failed-mail --mail-dir DIR": for each
 * accepted pick marked failed on a branch, one mail to its author, ready
 * for git send-email (review_share.h; the picks, their check and the
 * mail's text are run/failed_mail.c's: one concept split across two
 * floors): the sender and Cc from git, the
 * files written, what could not be checked on stderr.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "decisions_cli.h"
#include "review_share.h"
#include "run/failed_mail.h"
#include "source/ident.h"
#include "util/atomic.h"
#include "util/error.h"

int review_failed_mail(const char *dir, const char *cc, const char *const *named, size_t nnamed,
		       const char *db, const char *repo)
{
	ss_run_failed_list l;
	char *path = NULL, *from = NULL, *ccc = NULL, **names = NULL;
	const char *r = repo ? repo : ".";
	ss_index *ix;
	size_t written = 0;

	/* the folder first: '' would write into '/', a missing one is made */
	if (!*dir)
		usage_die("-o needs a folder for the mails, not ''");
	if (ss_atomic_make_dirs(dir))
		die("%s", ss_error_last());
	ix = cli_decisions_open(db, repo, 0, &path, NULL);
	if (ss_git_identity(&from, r))
		die("%s", ss_error_last());
	if (!cc && ss_git_config_string(&ccc, r, "stablesel.failedCc"))
		die("%s", ss_error_last());
	if (ss_run_failed_picks(&l, ix, named, nnamed))
		die("%s", ss_error_last());
	for (size_t i = 0; i < l.n; i++) {
		ss_run_failed_check m;
		ss_atomic *out;
		char file[4400];
		int rc = ss_run_failed_mail_check(&m, ix, path, r, &l.f[i], cli_run_report());

		if (rc == SS_ESKIP) {
			error("%s", ss_error_last());
		} else if (rc) {
			die("%s", ss_error_last());
		} else {
			ss_run_failed_mail_file(file, sizeof(file), dir, l.f[i].branch, m.c->id);
			/* one name, one mail: a name made twice (two branch names
			 * of one hash) is never written over */
			for (size_t k = 0; k < written; k++)
				if (!strcmp(names[k], file))
					die("two failed mails would be written to '%s'", file);
			if (!(names = realloc(names, (written + 1) * sizeof(*names))) ||
			    !(names[written] = strdup(file)))
				die("out of memory");
			out = cli_output_open(file);
			if (ss_run_failed_mail_write(ss_atomic_file(out), m.ck, m.c, &m.res,
						     l.f[i].branch, from, cc ? cc : ccc))
				die("%s", ss_error_last());
			cli_output_commit(out, SIZE_MAX, "mails");
			written++;
		}
		ss_run_failed_check_release(&m);
	}
	note("%zu mail%s for failed picks written to '%s'%s", written, written == 1 ? "" : "s", dir,
	     written ? " (send them with git send-email)" : "");
	ss_run_failed_list_release(&l);
	for (size_t k = 0; k < written; k++)
		free(names[k]);
	free(names);
	free(from);
	free(ccc);
	ss_index_free(ix);
	free(path);
	return ss_had_error ? SS_EXIT_BADINPUT : 0;
}
