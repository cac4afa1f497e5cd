/*
 * atomic.h - crash-safe output files.
 *
 * ss_atomic_open() creates "<path>.tmp.XXXXXX" in the same directory;
 * ss_atomic_commit() flushes, fsyncs and renames it over path, so a reader
 * (or a crash at any moment) sees the old file or the new one, never a
 * half-written one.  ss_atomic_abort() removes the temporary file.
 * Exactly one of commit/abort must be called; both accept NULL.
 * path "-" means standard output: nothing temporary, commit just flushes.
 */
#ifndef SS_ATOMIC_H
#define SS_ATOMIC_H

#include <stdio.h>

typedef struct ss_atomic ss_atomic;

int ss_atomic_open(ss_atomic **out, const char *path);
FILE *ss_atomic_file(ss_atomic *a);
int ss_atomic_commit(ss_atomic *a); /* 0 or SS_ERROR (message set) */
void ss_atomic_abort(ss_atomic *a);

#endif
