/*
 * impl.h - what source.c needs from each kind of source (internal).
 *
 * Each kind fills an ss_source_ops and an opaque impl pointer.  next()
 * follows the contract of ss_source_next() in source.h, except that
 * masking and the commit/masked counters are done by source.c, once, for
 * every kind.  The stats pointer stays valid until free() and the kind
 * updates the counters it knows (messages, skipped_*, malformed, bytes).
 */
#ifndef SS_SOURCE_IMPL_H
#define SS_SOURCE_IMPL_H

#include "source/source.h"

int ss_mbox_open(void **out, ss_source_ops *ops, const char *path,
		 const ss_source_options *opts, ss_source_stats *stats);
int ss_git_open(void **out, ss_source_ops *ops, const char *repo,
		const ss_source_options *opts, ss_source_stats *stats);

#endif
