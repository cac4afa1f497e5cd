/*
 * commits.h - reading the commits of a run's sources: every commit of
 * one source (an mbox, '-' for standard input, or a repository with its
 * revisions) handed to the caller in order, a malformed one skipped
 * (said as an error, or, for a history source, counted and said once),
 * and the history a ranked range stands on (the bottoms of A..B).
 */
#ifndef SS_RUN_COMMITS_H
#define SS_RUN_COMMITS_H

#include <stddef.h>

#include "commit/commit.h"
#include "run/run.h"
#include "source/source.h"

/* One commit, the callee's to free; non-zero stops the reading. */
typedef int (*ss_run_commit_fn)(ss_commit *c, void *data);

/* The commits of history sources that could not be read (see below). */
typedef struct {
	size_t n;           /* how many */
	char first[512];    /* the first one's message */
} ss_run_skips;

#define SS_RUN_SKIPS_INIT { 0, "" }

/*
 * Read every commit of spec with opts into fn, oldest as the source
 * gives them, progress through rp labelled spec.  A commit that cannot
 * be read is an error through rp and the reading goes on, or, with
 * skips given (a history source), counted into skips quietly.  *n: how
 * many were handed to fn.  0, or < 0 with the message set when spec
 * cannot be opened or read.
 */
int ss_run_read_commits(size_t *n, const char *spec, const ss_source_options *opts,
			ss_run_commit_fn fn, void *data, ss_run_skips *skips,
			const ss_run_report *rp);

/*
 * Read the commits of each spec of specs[0..nspecs) in turn, or, with
 * none, of the repository repo (opts' revisions), into fn as
 * ss_run_read_commits() reads one; *n how many in all.  The caller names
 * at least one of them (a usage error of its own).  0, or < 0 with the
 * message set at the first source that cannot be read.
 */
int ss_run_read_sources(size_t *n, const char *repo, const char *const *specs, size_t nspecs,
			const ss_source_options *opts, ss_run_commit_fn fn, void *data,
			ss_run_skips *skips, const ss_run_report *rp);

/* Say once through rp (a warning) how many history commits were left
 * out and the first one's message; nothing when none was. */
void ss_run_skips_say(const ss_run_skips *skips, const ss_run_report *rp);

/*
 * The history of a ranked range: the bottoms of revs[0..nrevs) ("A" of
 * "A..B", "X" of "^X"; "A...B" and plain revisions have none) copied
 * into bottom[0..max) (each at most size bytes, longer ones cut), in
 * order.  Returns how many (0: the range has no bottom).
 */
size_t ss_run_history_bottoms(char (*bottom)[256], size_t max, const char *const *revs,
			      size_t nrevs);

/*
 * The revisions --history sources are read with, into out[0..max): the
 * --history-rev ones hrevs[0..nhrevs) when given, else the bottoms of
 * the ranked revisions revs[0..nrevs) (copied into bottom[0..max), which
 * out then points into).  Returns how many; 0: none of either, the
 * sources' own revisions are kept.
 */
size_t ss_run_history_revs(const char **out, char (*bottom)[256], size_t max,
			   const char *const *hrevs, size_t nhrevs, const char *const *revs,
			   size_t nrevs);

/* What a run with neither sources nor a repository is told (a usage
 * error: the front end's to say how). */
#define SS_RUN_NO_COMMITS "no commits to read: name an mbox, '-' for standard input, or " \
	"--repo PATH (or run it in a repository)"

#endif
