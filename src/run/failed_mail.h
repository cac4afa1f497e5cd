/*
 * failed_mail.h - the mails for accepted picks marked failed on a branch
 * (failed_mail.c; docs/review.md): which picks, each checked again on
 * its branch, the mail's text, and every mail written into a folder
 * (ss_run_failed_mails_write(): the sender and Cc from git, one file a
 * pick, what could not be checked said).  cmd/review_mail.c says how
 * many were written.
 */
#ifndef SS_RUN_FAILED_MAIL_H
#define SS_RUN_FAILED_MAIL_H

#include <stddef.h>
#include <stdio.h>

#include "check/check.h"
#include "index/index_decisions.h"
#include "index/index.h"
#include "labels/carried.h"
#include "run/run.h"

typedef struct {
	char commit[41];
	char *branch;                /* owned */
} ss_run_failed_pick;

typedef struct {
	ss_run_failed_pick *f;
	size_t n;
	const char *const *named;
	size_t nnamed;
} ss_run_failed_list;

/* The picks of ix decided "failed" on the branches named (nnamed 0:
 * every branch), into *l (released with ss_run_failed_list_release()
 * whatever is returned).  0 or < 0 with the message set. */
int ss_run_failed_picks(ss_run_failed_list *l, ss_index *ix, const char *const *named,
			size_t nnamed);
void ss_run_failed_list_release(ss_run_failed_list *l);

/* A failed pick checked again now on its branch. */
typedef struct {
	ss_check *ck;
	ss_carried *carried;
	ss_commit *c;
	ss_check_result res;
} ss_run_failed_check;

/*
 * Check p again on its branch of repo, with what the branch carries
 * (index ix at path, else the branch; said through rp), into *m
 * (released with ss_run_failed_check_release() whatever is returned):
 * 0; SS_ESKIP with the message set when this pick cannot be checked (the
 * branch, the commit) or mailed (a branch name with a control character,
 * which would break the mail's header); another < 0 when nothing more
 * can be.
 */
int ss_run_failed_mail_check(ss_run_failed_check *m, ss_index *ix, const char *path,
			     const char *repo, const ss_run_failed_pick *p, const ss_run_report *rp);
void ss_run_failed_check_release(ss_run_failed_check *m);

/* The mail's file: DIR/failed-<branch>-<12 hex>.eml, the branch's '/'
 * and odd bytes as '-' and then "+<8 hex of the branch name>" after it,
 * so that "a/b" and "a-b" have two files.  One branch and commit, one
 * name, however often the mails are written. */
void ss_run_failed_mail_file(char *out, size_t size, const char *dir, const char *branch,
			     const char *commit);

/* The mail to c's author (From: from, Cc: cc if any; the Date now) for
 * c that failed on branch, res its check by ck, to f.  Its header is
 * source/mail_header.h's: names quoted, non-ASCII encoded (RFC 2047),
 * folded, no line break from any value.  0, or < 0 with the message set
 * before anything is written (from or cc no address list; no memory). */
int ss_run_failed_mail_write(FILE *f, ss_check *ck, const ss_commit *c, const ss_check_result *res,
			      const char *branch, const char *from, const char *cc);

/* What "review --failed-mail" writes. */
typedef struct {
	const char *dir;                /* the folder of the mails, made when
					   missing (required, not "") */
	const char *cc;                 /* the mails' Cc (NULL: git config
					   stablesel.failedCc of repo, if any) */
	const char *const *named;       /* the branches (NULL: every branch) */
	size_t nnamed;                  /* (0) */
	const char *db;                 /* the index (NULL: repo's own) */
	const char *repo;               /* the repository (NULL: ".") */
} ss_run_failed_mails_options;

#define SS_RUN_FAILED_MAILS_OPTIONS_INIT { NULL, NULL, NULL, 0, NULL, NULL }

/*
 * One mail for each accepted pick marked failed on a branch o names,
 * from the user git names in repo, into its file in o->dir
 * (ss_run_failed_mail_file(); written whole or not at all,
 * util/atomic.h; a file that had other hard links a warning through
 * rp); a pick that cannot be checked or mailed an error through rp, the
 * rest written.  *written: how many mails.  0, or < 0 with the message
 * set when nothing more can be written (the folder, the index, the
 * sender, a file; two picks whose mails would have one name).
 */
int ss_run_failed_mails_write(size_t *written, const ss_run_failed_mails_options *o,
			      const ss_run_report *rp);

#endif
