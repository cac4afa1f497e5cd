/*
 * run.h - what the run floor (src/run/) shares: how a step of a run tells
 * its front end what it decided and how far it is, without printing.
 *
 * src/run/ sits between the core (rank, check and below) and the
 * commands (src/cmd/): the steps a run takes (which releases, which
 * stable branches, what they carry, their verdicts) as a second front
 * end would take them too.  Like the core it never prints nor exits: it
 * returns 0 or a negative SS_E* code with the message set, and says
 * what it decided through an ss_run_report the caller gives (NULL:
 * nothing is said).
 */
#ifndef SS_RUN_H
#define SS_RUN_H

#include <stddef.h>

typedef enum {
	SS_RUN_NOTE = 0,      /* a decision worth a line ("note: ...") */
	SS_RUN_WARNING = 1,   /* something the user should fix ("warning: ...") */
	SS_RUN_INFO = 2,      /* what the run chose, in the command's own words
				 ("rank: ..."; cli_run_report(): a note) */
	SS_RUN_ERROR = 3      /* one item failed, the run goes on ("error: ...") */
} ss_run_level;

typedef struct {
	/* one message, whole, without its "note: " or newline */
	void (*say)(ss_run_level level, const char *msg, void *ud);
	/* done of total (0: unknown) of what; done_all ends the line */
	void (*progress)(const char *what, size_t done, size_t total, void *ud);
	void (*progress_done)(void *ud);
	void *ud;
} ss_run_report;

/* Say msg (printf-style) through rp (NULL or no say: nothing). */
void ss_run_say(const ss_run_report *rp, ss_run_level level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void ss_run_progress(const ss_run_report *rp, const char *what, size_t done, size_t total);
void ss_run_progress_done(const ss_run_report *rp);

/*
 * Set the message "<fmt ...>: <the last message>" (the step that failed,
 * then why) and return rc (SS_ERROR when rc is not negative).
 */
int ss_run_fail(int rc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
