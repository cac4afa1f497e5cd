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
#include <stdint.h>

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

/*
 * A run's resources, opened once and borrowed by every step of the run
 * instead of each opening its own: the repositories it reads (one
 * ss_repo a path, opened as given, the way the path functions open them:
 * source/git.h) and the project index (one read-only connection a file
 * and cut in time).  The run owns them; what it hands out is borrowed
 * and valid until ss_run_free(), except the index, which comes as a
 * reference of the caller's own (ss_index_free() it as one opened).
 * Used from one thread (the handles are libgit2's and SQLite's, which a
 * worker thread does not share: the git source's readers open their own).
 */
typedef struct ss_run ss_run;
struct ss_repo;
struct ss_index;

/* 0, or SS_ENOMEM with the message set. */
int ss_run_new(ss_run **out);
void ss_run_free(ss_run *run); /* NULL is a no-op */

/*
 * The repository at path, opened once for the run (the first call opens
 * it, later calls give the same handle): borrowed.  NULL when run or path
 * is NULL or path cannot be opened (nothing set: the caller's path
 * function says why, as it said before there was a run).
 */
struct ss_repo *ss_run_repo(ss_run *run, const char *path);

/*
 * The project index a step reads (run/index_open.h: ss_run_index_open,
 * then ss_index_as_of when as_of is not 0), opened once per (db, repo,
 * as_of) for the run (run NULL: opened for the caller alone, each call
 * its own): *out a reference of the caller's (ss_index_free),
 * *path its path (malloc'd), *missing as ss_run_index_open() says (a
 * missing index is remembered too).  Errors as ss_run_index_open() and
 * ss_index_as_of(); they are not remembered.
 */
int ss_run_index(struct ss_index **out, char **path, int *missing, ss_run *run, const char *db,
		 const char *repo, int64_t as_of);

/*
 * The project index a step reads, as ss_run_index() gives it, a missing
 * default index said through rp once for the run (run/index_open.h:
 * ss_run_index_missing_say; run NULL: each time): what the steps of a
 * run that read the index call, so that the run, not each step, says
 * it.  0 or < 0 with the message set.
 */
int ss_run_index_read(struct ss_index **out, char **path, ss_run *run, const char *db,
		      const char *repo, int64_t as_of, const ss_run_report *rp);

/*
 * Make ix, read from path (a connection the caller opened: the writer of
 * a command that writes, such as review's decisions), the run's index of
 * (db, repo) of today: the steps that would read that index borrow ix
 * instead of opening a reader of their own.  The run takes a reference
 * (ss_index_share); the caller frees its own.  Before any step asked
 * for that index: SS_EINVALID when the run holds one already.  0 or < 0
 * with the message set.
 */
int ss_run_index_use(ss_run *run, struct ss_index *ix, const char *path, const char *db,
		     const char *repo);

/* Index connections and repositories the run opened so far: what a
 * test counts to see the steps share them. */
size_t ss_run_opened_indexes(const ss_run *run);
size_t ss_run_opened_repos(const ss_run *run);

#endif
