/*
 * index_mail.c - updating the index from mail sources (index.h:
 * ss_index_update_mail): each mbox read on from where the last update
 * stopped, its release commits as releases unless a releases file is
 * given.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "index/index_update.h"
#include "util/error.h"
#include "util/hexid.h"
#include "util/testhook.h"

/* A release commit of a mail source ("version: 21.11.0", "Linux 6.6"). */
static int add_stream_release(struct updater *u, const ss_commit *c)
{
	ss_release_version v;
	sqlite3_stmt *st;
	int rc;

	if (ss_release_version_of_subject(&v, c->subject ? c->subject : "") ||
	    !ss_hexid_is_full(c->id, strlen(c->id)))
		return 0;
	if ((rc = ss_index_prepare(&st, u->ix, "INSERT OR IGNORE INTO releases(tag, commit_id, time,"
				   " kind) VALUES(?, ?, ?, ?)")))
		return rc;
	sqlite3_bind_text(st, 1, v.text, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, c->id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, c->committer.time > 0 ? c->committer.time : c->author.time);
	sqlite3_bind_text(st, 4, v.rc ? "rc" : ss_release_version_is_mainline(&v) ? "mainline"
									   : "stable", -1, SQLITE_STATIC);
	rc = sqlite3_step(st) == SQLITE_DONE ? 0 : ss_index_sql_error(u->ix, "write releases");
	sqlite3_finalize(st);
	return rc;
}


static int add_mail_commit(struct updater *u, const ss_commit *c, void *ctx)
{
	int rc = ss_index_add_commit(u, c, 1);

	(void)ctx;
	return !rc && !u->opts->releases ? add_stream_release(u, c) : rc;
}

/*
 * Where the last read of a mail source ended, as its ref records it:
 * "<decoded bytes>:<crc32 of them>" (format 2), or, as the first indexes
 * wrote it, the number of messages read ("<n>").  0 when none or unreadable.
 */
static void mail_mark(const char *tip, unsigned long long *at, unsigned long *crc, size_t *count)
{
	char *end;
	unsigned long long v;

	*at = 0;
	*crc = 0;
	*count = 0;
	if (!tip[0])
		return;
	v = strtoull(tip, &end, 10);
	if (*end == ':') {
		*at = v;
		*crc = strtoul(end + 1, &end, 10);
		if (*end)
			*at = *crc = 0;
	} else if (!*end) {
		*count = (size_t)v;
	}
}

/*
 * Read the mail source spec as mainline commits, in batches, from where
 * the last update stopped: an mbox that grew at its end, as a list
 * archive does, is decoded up to there and not parsed (its decoded
 * length and their crc32 are recorded; an index of the first format
 * recorded the number of messages, which are parsed and passed over).
 * When the bytes up to there are no longer the ones read before (the
 * mbox was rewritten), it is read again from its start.  The new end is
 * recorded with the last batch.
 */
static int read_mail(struct updater *u, const char *spec)
{
	ss_source_options so = SS_SOURCE_OPTIONS_INIT;
	char name[4200], old[41], kind[16], mark[48];
	const ss_source_stats *st;
	ss_source *src = NULL;
	size_t seen = 0, skip;
	int rc, reread = 0;

	snprintf(name, sizeof(name), "mbox:%s", spec);
	if ((rc = ss_index_ref_get(u->ix, name, old, kind)))
		return rc;
	so.resume = 1;
	mail_mark(old, &so.resume_at, &so.resume_crc, &skip);
	if ((rc = ss_source_open(&src, spec, &so)))
		return rc;
	if ((rc = ss_index_begin(u)))
		goto free_source;
	if ((rc = ss_index_write_source(u, src, skip, &seen, spec, add_mail_commit, NULL)))
		goto rollback;
	st = ss_source_stats_get(src);
	if (st->resumed < 0) {
		/* rewritten: nothing was read; again, from the start */
		ss_source_free(src);
		so.resume_at = 0;
		if ((rc = ss_source_open(&src, spec, &so)))
			goto rollback;
		if ((rc = ss_index_write_source(u, src, 0, &seen, spec, add_mail_commit, NULL)))
			goto rollback;
		st = ss_source_stats_get(src);
		skip = 0;
		reread = 1;
		u->stats->mail_reread++;
	}
	if (seen > skip)
		u->stats->refs_walked++;
	/* a last message skipped may be one cut by a writer still appending
	 * (a cut at a line end reads as a malformed message): keep the old
	 * end, so that the next update reads it again, whole (what it read
	 * before it passes over as already indexed) */
	if (u->last_skipped)
		snprintf(mark, sizeof(mark), "%s", reread ? "" : old);
	else if (st->decoded)
		snprintf(mark, sizeof(mark), "%llu:%lu", st->decoded, st->decoded_crc);
	else /* no mbox (a maildir): the messages, read again and passed over */
		snprintf(mark, sizeof(mark), "%zu", seen);
	if ((rc = ss_index_ref_set(u->ix, name, mark, "mbox")) || (rc = ss_index_commit_tx(u)))
		goto rollback;
	ss_test_point("source");
	goto free_source;
rollback:
	ss_index_rollback(u);
free_source:
	ss_source_free(src);
	return rc;
}

/* The releases of a mail index from opts->releases (read before the
 * first batch): no graph to place commits with, so no first releases. */
static int mail_releases(struct updater *u, const ss_releases *rel)
{
	int rc;

	if ((rc = ss_index_exec(u->ix, "BEGIN IMMEDIATE", "start a transaction")))
		return rc;
	if ((rc = ss_index_replace_releases(u, rel)) ||
	    (rc = ss_index_exec(u->ix, ss_index_done_sql, "write meta")))
		goto rollback;
	u->stats->releases = ss_releases_count(rel);
	rc = ss_index_exec(u->ix, "COMMIT", "commit a transaction");
	if (!rc) {
		ss_test_point("releases");
		return 0;
	}
rollback:
	ss_index_rollback(u);
	return rc;
}

int ss_index_update_mail(ss_index *ix, const char *const *specs, size_t n,
			 const ss_index_options *opts, ss_index_stats *stats)
{
	static const ss_index_stats zero;
	ss_index_options o = *opts;
	ss_index_stats local;
	struct updater u;
	ss_releases *rel = NULL;
	char id[41];
	size_t i;
	int rc;

	if (!stats)
		stats = &local;
	*stats = zero;
	if (!o.batch)
		o.batch = 1000;
	if ((rc = ss_index_meta_get(ix, "repository", id, sizeof(id))))
		return rc;
	if (id[0])
		return ss_error_code(SS_EINVALID, "index '%s' is a repository's: mail goes into an "
				     "index of its own (--db FILE)", ix->path);
	memset(&u, 0, sizeof(u));
	u.ix = ix;
	u.opts = &o;
	u.stats = stats;
	/* a releases file that cannot be read refuses the update before it
	 * writes anything */
	if (o.releases && (rc = ss_releases_load_tsv(&rel, o.releases)))
		return rc;
	for (i = 0; i < ST_NSTMT; i++)
		if ((rc = ss_index_prepare(&u.st[i], ix, ss_index_stmt_sql[i])))
			goto free_stmts;
	for (i = 0; i < n && !rc; i++)
		rc = read_mail(&u, specs[i]);
	if (rc)
		goto free_stmts;
	if ((rc = ss_index_exec(ix, "BEGIN IMMEDIATE", "start a transaction")))
		goto free_stmts;
	if ((rc = ss_index_exec(ix, ss_index_derive_sql, "derive fixes")) ||
	    (!rel && (rc = ss_index_exec(ix, ss_index_done_sql, "write meta"))) ||
	    (rc = ss_index_exec(ix, "COMMIT", "commit a transaction"))) {
		ss_index_rollback(&u);
		goto free_stmts;
	}
	ss_test_point("derive");
	if (rel)
		rc = mail_releases(&u, rel);
	else
		rc = ss_index_count_releases(ix, &stats->releases);
free_stmts:
	for (i = 0; i < ST_NSTMT; i++)
		sqlite3_finalize(u.st[i]);
	ss_releases_free(rel);
	return rc;
}
