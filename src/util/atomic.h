/*
 * atomic.h - crash-safe output files.
 *
 * ss_atomic_open() decides how path is written and opens it at once, so
 * that a bad output path is found before the work that fills it:
 *  - "-", /dev/stdout, /dev/stderr, /dev/fd/N and /proc/self/fd/N are the
 *    process's own descriptor, written directly (as the shell does);
 *  - a device, a FIFO or a socket is written directly: it is never
 *    replaced (writing to /dev/full fails at commit with ENOSPC);
 *  - a new path or an existing regular file is written to
 *    "<target>.tmp.XXXXXX" in the target's directory, and
 *    ss_atomic_commit() flushes, fsyncs and renames it over the target,
 *    so that a reader (or a crash at any moment) sees the old file or the
 *    new one, never a half-written one.  A symlink is followed: its final
 *    target is replaced and the link kept.  An existing file keeps its
 *    permission bits (and, when allowed, its owner and group); a new one
 *    gets 0666 & ~umask.  A hard-linked file (link count > 1) is replaced
 *    too, which leaves its other names with the old content: writing in
 *    place would keep the link but could leave a half-written file, and
 *    in a snapshot tree made with "cp -al" it would change the snapshots;
 *    ss_atomic_get_info() tells the caller, which should say so.
 * The empty path, a directory, a missing parent directory, a directory
 * we cannot write and a write-protected file are errors of
 * ss_atomic_open() (message set, naming the path).
 *
 * Temporary files are removed by ss_atomic_abort(), at exit() (die()),
 * and on SIGINT, SIGTERM, SIGHUP, SIGQUIT and SIGPIPE: the first
 * ss_atomic_open() installs a handler for each of these signals whose
 * disposition is still the default; it unlinks the live temporary files
 * and re-raises the signal with the default action, so the process still
 * dies by it.  SIGKILL (or a crash) can leave a temporary file behind.
 *
 * Exactly one of commit/abort must be called; both accept NULL.  At most
 * SS_ATOMIC_MAX files are open at once.  Not thread-safe: open, commit
 * and abort from one thread.
 */
#ifndef SS_ATOMIC_H
#define SS_ATOMIC_H

#include <stdio.h>

#define SS_ATOMIC_MAX 16

typedef struct ss_atomic ss_atomic;

/* What an ss_atomic writes over. */
typedef struct {
	int direct;           /* written in place: a descriptor, device or FIFO */
	int replaces;         /* an existing regular file is replaced by rename */
	long long size;       /* its size in bytes (0 when none) */
	unsigned long links;  /* its link count (0 when none) */
	const char *target;   /* the file replaced: path with symlinks followed */
} ss_atomic_info;

int ss_atomic_open(ss_atomic **out, const char *path);

/*
 * As ss_atomic_open(), for a file the program keeps (the project
 * model): only a missing path or an existing regular file, replaced by
 * rename.  A symlink (never followed: its target may be anyone's file),
 * a FIFO, a device, a socket and a directory are refused, the message
 * naming what path is.
 */
int ss_atomic_open_regular(ss_atomic **out, const char *path);
/*
 * The folder dir made with its missing parents (mkdir -p), for output
 * files written into it; an existing folder is fine.  0, or SS_ERROR
 * with the message set, naming the part that is not a folder or could
 * not be made; the empty dir is an error.
 */
int ss_atomic_make_dirs(const char *dir);

FILE *ss_atomic_file(ss_atomic *a);
void ss_atomic_get_info(ss_atomic_info *out, const ss_atomic *a);
int ss_atomic_commit(ss_atomic *a); /* 0 or SS_ERROR (message set) */
void ss_atomic_abort(ss_atomic *a);

#endif
