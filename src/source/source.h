/*
 * source.h - iterators over commits, whatever they are stored in.
 *
 * A source yields one ss_commit at a time (streaming: nothing holds a whole
 * mbox or history).  A spec names what to read:
 *   - a directory or "git:PATH": a git repository; revisions in opts;
 *   - "-": an mbox on standard input;
 *   - any other path: an mbox file, plain, gzip or zstd (sniffed by magic).
 *
 * ss_source_next() returns
 *   0            *out is a commit the caller owns (ss_commit_free);
 *   SS_ITEROVER  the source is exhausted;
 *   SS_ESKIP     one message was malformed and skipped: ss_error_last()
 *                names it; the caller warns and calls next() again;
 *   other < 0    a fatal error (message set); the source is unusable.
 */
#ifndef SS_SOURCE_H
#define SS_SOURCE_H

#include <stddef.h>

#include "commit/commit.h"

typedef struct ss_source ss_source;

typedef struct {
	const char *repo;          /* repository path for git sources (NULL) */
	const char **revs;         /* revisions "A..B", "^C", "D" (NULL: HEAD) */
	size_t nrevs;              /* number of revs (0) */
	int mask_stable_tags;      /* remove Cc: stable@ traces (0) */
	int with_diff;             /* read files/hunks/lines (1) */
	size_t max_lines;          /* diff lines kept per commit, 0 = all (0) */
	/* mbox: read again from where an earlier read ended (the index's
	 * update): count the decoded bytes and their crc32 into the stats,
	 * and pass over the first resume_at of them when their crc32 is
	 * resume_crc (stats.resumed says whether it was) */
	int resume;                /* (0) */
	unsigned long long resume_at; /* (0: read everything) */
	unsigned long resume_crc;  /* (0) */
	/* git: the revision whose first-parent line is the mainline when
	 * telling which merge brought each commit in (ss_commit's
	 * merge_message), so that a commit read alone gets the merge a
	 * ranged walk gives it (NULL: the walk's newest commit) */
	const char *merges_tip;    /* (NULL) */
	/* the commits committed after it are passed over, counted in
	 * stats.later: what was not yet known at that time (--as-of) */
	int64_t until;             /* (0: none) */
	/* git: read only the newest this many commits of the walk (merges
	 * included: the walk lists them before they are read), the older
	 * ones passed over unread and counted in stats.older: a bounded
	 * read of a long history (the project model's training) */
	size_t newest;             /* (0: all) */
} ss_source_options;

#define SS_SOURCE_OPTIONS_INIT { NULL, NULL, 0, 0, 1, 0, 0, 0, 0, NULL, 0, 0 }

/* What a source read and left out, for the summary line. */
typedef struct {
	size_t messages;     /* mail messages seen (mbox only) */
	size_t commits;      /* commits yielded */
	size_t skipped_replies, skipped_covers, skipped_merges;
	size_t skipped_other; /* mails that are neither patches nor replies */
	size_t malformed;    /* messages skipped with SS_ESKIP */
	size_t masked;       /* commits whose stable tag was masked */
	size_t truncated;    /* commits cut at max_lines */
	size_t later;        /* commits committed after opts.until */
	size_t older;        /* commits of the walk before opts.newest, unread */
	unsigned long long bytes; /* input bytes read (compressed size for files) */
	/* mbox with opts.resume, at SS_ITEROVER: */
	unsigned long long decoded; /* decoded bytes, those passed over included */
	unsigned long decoded_crc;  /* their crc32 */
	int resumed;         /* 1 resume_at bytes passed over; 0 none asked; -1 they
	                      * were not the ones read before: nothing was read */
} ss_source_stats;

/* True when spec names a git repository (a directory or "git:PATH"). */
int ss_source_is_repository(const char *spec);

int ss_source_open(ss_source **out, const char *spec, const ss_source_options *opts);
int ss_source_next(ss_commit **out, ss_source *src);
const ss_source_stats *ss_source_stats_get(const ss_source *src);

/*
 * The one loop over a source's commits: each commit of src goes to fn,
 * which owns it, until the source ends (0).  A message skipped
 * (SS_ESKIP) goes to skip (NULL: passed over quietly) with its name in
 * ss_error_last().  A non-zero return of fn or skip stops the walk and is
 * returned as is; another error of the source is returned.
 */
typedef int (*ss_source_commit_fn)(ss_commit *c, void *ud);
typedef int (*ss_source_skip_fn)(void *ud);
int ss_source_each(ss_source *src, ss_source_commit_fn fn, ss_source_skip_fn skip, void *ud);

/*
 * Commit id of the repository at repo read alone, with its diff: the walk
 * "id ^id^" (the commit without its first parent's history; "id" when it
 * has no parent to hide), into *out (the caller's to free); malformed
 * commits are passed over.  *out NULL and 0 when the walk does not yield
 * it; < 0 with the message set when the repository or the walk cannot be
 * read.
 */
int ss_source_read_alone(ss_commit **out, const char *repo, const char *id);
/*
 * The same commit read through the open handle r (source/git_repo.h), as
 * the walk would give it (a shallow clone's grafted commit as a root, a
 * merge not at all), without opening the repository again: what a run
 * that holds its repository reads prerequisites and queued commits with.
 * id must be 40 hex digits (anything else is no commit: *out NULL and
 * 0); its source is ss_repo_path(r).  *out NULL and 0 for a merge or a
 * malformed commit; < 0 with the message set when id cannot be read.
 * From the thread that uses r.
 */
struct ss_repo;
int ss_repo_read_commit(ss_commit **out, struct ss_repo *r, const char *id);
void ss_source_free(ss_source *src); /* NULL is a no-op */

/*
 * The libgit2 handle src's commits are read with on the caller's thread
 * (through the source's object store and its cache), for reading more
 * objects of the same repository on that thread while src is open:
 * whatever comes from it goes before ss_source_free().  NULL for a
 * source other than a repository.
 */
struct git_repository *ss_source_git_repo(ss_source *src);

/* Implementations behind ss_source (internal to src/source/). */
typedef struct {
	int (*next)(ss_commit **out, void *impl);
	void (*free)(void *impl);
	struct git_repository *(*repo)(void *impl); /* NULL: none */
} ss_source_ops;

#endif
