/*
 * replay.h - commits kept compressed in memory, to be read again.
 *
 * A first rank without --model reads the ranked range twice: once to
 * train the project model (the range is part of its labelled history) and
 * once to score it with that model.  Reading a commit with its diff from
 * git is most of the cost; a commit kept here costs a serialization and a
 * zstd pass (DPDK: 37 MB for 15,534 commits that `git log -p` prints in
 * 161 MB) and comes back equal,
 * field for field, to the one that was added (ids, people, message,
 * trailers, files, hunks, lines, flags, its source and index).
 *
 * Commits are added in order, then read back in the same order.  The
 * store has a cap on its compressed size: past it the store drops what it
 * holds and refuses more (ss_replay_dropped()), so that the caller reads
 * the commits again from their source instead of holding an unbounded
 * history in memory.  Adding after the first read, or reading a dropped
 * store, is refused with SS_EINVALID.
 */
#ifndef SS_REPLAY_H
#define SS_REPLAY_H

#include <stddef.h>

#include "commit/commit.h"

typedef struct ss_replay ss_replay;

/* A store holding at most cap compressed bytes (0: no cap); SS_ENOMEM. */
int ss_replay_new(ss_replay **out, size_t cap);
void ss_replay_free(ss_replay *r); /* NULL is a no-op */

/* Keep a copy of c (c is not taken).  0 also when the cap is passed: the
 * store is then dropped; SS_ENOMEM, SS_EINVALID after a read began. */
int ss_replay_add(ss_replay *r, const ss_commit *c);

/* 1 when the cap was passed and nothing is kept any more. */
int ss_replay_dropped(const ss_replay *r);

/* Commits kept, and their size serialized and compressed (bytes). */
size_t ss_replay_count(const ss_replay *r);
size_t ss_replay_raw_bytes(const ss_replay *r);
size_t ss_replay_bytes(const ss_replay *r);

/* The next kept commit, in the order added: 0 (*out is the caller's to
 * ss_commit_free), SS_ITEROVER at the end, SS_ENOMEM, SS_EINVALID for a
 * dropped store or damaged data. */
int ss_replay_next(ss_commit **out, ss_replay *r);

#endif
