/*
 * series.h - which patch series a commit was posted in, and its place.
 *
 * A maintainer takes patch 3/5 with 1/5 and 2/5 when they belong together
 * (AUTOSEL's picks from the middle of a series are a standing complaint).
 * Two ways to know the series of a commit:
 *
 *   - a Link: trailer (any source, git or mail) naming the message id the
 *     patch was posted under, when that id is numbered as git-send-email
 *     numbers it ("<20240101120000.12345-3-ann@example.org>", older
 *     "<1563900266-19734-2-git-send-email-ann@example.org>") or as b4 does
 *     ("<20240117-topic-v2-3-4e0b6c85bc6d@kernel.org>"): the id with the
 *     number left out is the series, the number orders it;
 *   - for mail, the "[PATCH n/m]" / "[PATCH vK n/m]" of the subject with
 *     the thread's root message id (ss_commit's mail_thread, set by the
 *     mail source).
 *
 * The Link: comes first: it is the commit's own record.  A git-send-email
 * number counts the cover letter too, so the Link: number orders a series
 * but is not its "n of m"; verdicts count the members they read.
 *
 * Mail transport (the thread, the subject's n/m) is read here for verdicts
 * and the queue only: no feature and no model may call ss_series_of() or
 * ss_series_subject() (scripts/transport.sh checks it).  ss_series_link()
 * and ss_series_msgid() read a Link: trailer, the commit's own text; the
 * opt-in "series" feature group uses them.  Every function takes untrusted text:
 * numbers over SS_SERIES_MAX_N, n > m, n or m of 0, a missing m and
 * overlong ids all give "no series", never an error.
 */
#ifndef SS_SERIES_H
#define SS_SERIES_H

#include <stddef.h>

#include "commit/commit.h"

#define SS_SERIES_KEY_MAX 256
#define SS_SERIES_MAX_N 9999

typedef struct {
	char key[SS_SERIES_KEY_MAX]; /* the series ("" none): equal keys, one series */
	unsigned n;                  /* the commit's number in it, from 1 */
	unsigned total;              /* m of "n/m"; 0 when unknown (a Link:) */
} ss_series;

/*
 * The "[PATCH n/m]" of a mail subject: the first bracket holding "PATCH"
 * ("[PATCH 2/5]", "[PATCH v3 02/12]", "[RFC PATCH net-next v2 1/3]").
 * Returns 1 with n, total and version (1 when not written) set, 0 when
 * there is none or it is malformed (then all three are 0).
 */
int ss_series_subject(unsigned *n, unsigned *total, unsigned *version, const char *subject);

/* A numbered message id (with or without <>): 1 with out set, else 0
 * (out->key ""). */
int ss_series_msgid(ss_series *out, const char *msgid);

/* A Link: value: the message id in a lore/lkml/patch.msgid.link URL or
 * in <>, then ss_series_msgid().  1 or 0, as it. */
int ss_series_link(ss_series *out, const char *value);

/* The series of c: its first numbered Link:, else its mail thread and
 * subject number (key "thread:<root> vK/m").  1 or 0 (out->key ""). */
int ss_series_of(ss_series *out, const ss_commit *c);

#endif
