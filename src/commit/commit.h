/*
 * commit.h - the one commit model every source yields.
 *
 * A git repository, a format-patch mbox, a lore archive and a tip-bot mail
 * all become the same struct ss_commit: ids, people, times, subject,
 * message, trailers, and files -> hunks -> lines.  Everything a commit
 * points to lives in its own arena and dies with ss_commit_free(); the
 * fields are read-only for every stage after the source.
 *
 * Mail transport (headers, the tip-bot preamble and its branch name) never
 * reaches this struct, but for the few fields marked as transport (a
 * subject's [PATCH n/m], a thread's root), which only the labeler and the
 * verdicts read: scripts/transport.sh keeps them from features and models.  Masking (ss_commit_mask_stable) happens once, in the
 * source, right after parsing, so no later stage can see a masked tag.
 */
#ifndef SS_COMMIT_H
#define SS_COMMIT_H

#include <stddef.h>
#include <stdint.h>

#include "util/arena.h"

typedef struct {
	const char *name;  /* never NULL ("" when unknown) */
	const char *email; /* never NULL ("" when unknown) */
	int64_t time;      /* seconds since the epoch, UTC */
	int tz;            /* offset from UTC in minutes */
} ss_person;

/*
 * A trailer's key is as written ("Signed-off-by", "Cc", "Fixes") but for
 * the forms projects write for what a commit fixes, which are given the
 * key every later stage reads: "Follow-up-for: <sha>", "Follow-up for[:]
 * <sha>[ and <sha>]" and "Fixes <sha>" on a line of a body paragraph
 * become "Fixes" (after the trailer blocks' own, one per id, value from
 * the id on; a commit's web address gives its id); "Fixes[:] #123" and
 * "Fixes[:] <a bug's web address>" name an issue and become "Closes".
 */
typedef struct {
	const char *key;   /* as written, or "Fixes"/"Closes" (above) */
	const char *value; /* trimmed */
} ss_trailer;

/* Enum values only grow: they are written to files. */
typedef enum {
	SS_FILE_MODIFIED = 0,
	SS_FILE_ADDED = 1,
	SS_FILE_DELETED = 2,
	SS_FILE_RENAMED = 3,
	SS_FILE_COPIED = 4,
	SS_FILE_TYPECHANGE = 5
} ss_file_status;

typedef struct {
	char origin;       /* '+' added, '-' removed, ' ' context */
	char no_eol;       /* 1 when "\ No newline at end of file" followed */
	uint32_t len;      /* bytes of text, no newline */
	const char *text;  /* NUL-terminated, without origin and newline */
} ss_line;

typedef struct {
	uint32_t old_start, old_lines, new_start, new_lines;
	const char *func;  /* function context after "@@ ... @@", "" if none */
	ss_line *lines;    /* in diff order */
	size_t nlines;
	size_t added, removed;
} ss_hunk;

#define SS_FILE_UNREADABLE 2

typedef struct {
	const char *old_path; /* NULL for an added file */
	const char *new_path; /* NULL for a deleted file */
	ss_file_status status;
	int binary;           /* 1 binary, SS_FILE_UNREADABLE a blob missing
	                       * from the store (partial clone): no hunks */
	uint32_t old_mode, new_mode;
	ss_hunk *hunks;
	size_t nhunks;
	size_t added, removed;  /* lines, as git --numstat counts them */
} ss_file;

typedef struct ss_commit {
	char id[41];            /* 40 hex digits (or derived, see mbox.c) */
	ss_person author, committer;
	const char *subject;    /* first line, [PATCH ...] prefixes removed */
	const char *message;    /* whole message: subject, body, trailers */
	const char *body;       /* message without subject and trailer blocks */
	ss_trailer *trailers;   /* every trailer block, in message order */
	size_t ntrailers;
	ss_file *files;
	size_t nfiles;
	size_t files_cap;       /* slots allocated in files (diff.c); 0 if unknown */
	size_t added, removed;  /* totals over text files */
	int truncated;          /* the diff was cut at the per-commit caps */
	int masked;             /* stable tags were removed from this commit */
	const char *source;     /* file or repository it came from (for errors) */
	/* Transport facts for the labeler only, never for a model: the n/N
	 * of a "[PATCH n/N]" mail subject (0 when none). */
	unsigned patch_n, patch_total;
	/* Transport facts for series only (commit/series.h: verdicts and the
	 * queue), never for a model nor a feature (scripts/transport.sh):
	 * the root message id of the mail's thread with the subject's
	 * version ("<root> v2"), and the strict n/m of "[PATCH vK n/m]";
	 * NULL and 0 for git and for mail without them. */
	const char *mail_thread;
	unsigned mail_n, mail_total;
	size_t index;           /* position in its source, from 0 */
	/* The merge that brought the commit into the mainline (git only: a
	 * pull request's merge on the first-parent line of the walk's
	 * newest commit): its whole message (stable tags masked with the
	 * commit's), and how many commits it brought; NULL and 0 for a
	 * commit made on the mainline itself, and for mail. */
	const char *merge_message;
	size_t merge_commits;

	ss_arena *arena;        /* owns everything above */
} ss_commit;

/* Allocate an empty commit with its arena; NULL on ENOMEM. */
ss_commit *ss_commit_new(void);
void ss_commit_free(ss_commit *c); /* NULL is a no-op */

/* The path a file is known by: new path, or old path when deleted. */
const char *ss_file_path(const ss_file *f);

/*
 * Set message, subject, body and trailers from a raw commit message.
 * Trailers are read from every trailer-shaped paragraph, not only the last
 * (DPDK puts Fixes: and Cc: stable in a block of their own above the
 * Signed-off-by block), and the Fixes: forms of prose (ss_trailer above).
 * Returns 0 or SS_ENOMEM.
 */
int ss_commit_set_message(ss_commit *c, const char *msg, size_t len);

/* True when value names a stable address ("stable@vger.kernel.org",
 * "<stable@dpdk.org> # 21.11") but not the opt-out stable+noautosel@. */
int ss_is_stable_address(const char *value);

/* True when a message line is "Cc: ... stable@..." (a trailer or not). */
int ss_commit_has_stable_tag(const ss_commit *c);

/*
 * True when c was tagged for stable: it carries the tag, or carried it
 * before ss_commit_mask_stable() removed it (c->masked).  For evaluation
 * and the "tagged" flag only; no model may see it when tags are masked.
 */
int ss_commit_was_tagged(const ss_commit *c);

/*
 * Remove every trace of the stable tag: Cc: stable@ trailers, and any other
 * message line that names a stable@ address.  Rebuilds message, body and
 * trailers; sets c->masked when something was removed.  0 or SS_ENOMEM.
 */
int ss_commit_mask_stable(ss_commit *c);

/* First trailer with this key (case-insensitive) from index *pos on; pos
 * may be NULL.  Returns NULL when there is none. */
const ss_trailer *ss_commit_trailer(const ss_commit *c, const char *key, size_t *pos);

#endif
