/*
 * index_build.c - the project index built or brought up to date
 * (index_build.h).  Moved from the command side, cmd/index.c, which
 * checks the options and prints what the update did.
 */
#include "run/index_build.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "labels/layout.h"
#include "util/error.h"

int ss_run_index_is_repository(const char *path)
{
	struct stat sb;
	char p[4200];

	if (stat(path, &sb) || !S_ISDIR(sb.st_mode))
		return 0;
	snprintf(p, sizeof(p), "%s/.git", path);
	if (!stat(p, &sb))
		return 1;
	snprintf(p, sizeof(p), "%s/HEAD", path);
	if (stat(p, &sb) || !S_ISREG(sb.st_mode))
		return 0;
	snprintf(p, sizeof(p), "%s/objects", path);
	return !stat(p, &sb) && S_ISDIR(sb.st_mode);
}

/* The repository's layout: the one the index at db keeps when the refs
 * are as they were (no walk of the history), else found (an error when
 * no branch stands out as the mainline, before anything is written). */
static int find_layout(ss_layout **out, const ss_index_options *opts, const char *eol,
		       const char *db)
{
	ss_layout_options lo = SS_LAYOUT_OPTIONS_INIT;

	*out = NULL;
	lo.mainline = opts->mainline;
	lo.branches = opts->branches;
	lo.release_tags = opts->release_tags;
	lo.eol = eol;
	if ((db && ss_index_layout_kept(out, db, opts->repo, &lo)) ||
	    (!*out && ss_layout_find(out, opts->repo, &lo)))
		return SS_ERROR;
	return 0;
}

/* msg through rp whole (ss_run_say() would cut it at its buffer: the
 * layout's words name branches of any length). */
static void say_whole(const ss_run_report *rp, ss_run_level level, const char *msg)
{
	if (msg && rp && rp->say)
		rp->say(level, msg, rp->ud);
}

/* Say what the update found (and why HEAD is not the mainline), once it
 * was recorded: a refused update says only why. */
static void say_layout(const ss_layout *l, const ss_run_report *rp)
{
	char *what = ss_layout_describe(l);

	say_whole(rp, SS_RUN_WARNING, l->warning);
	say_whole(rp, SS_RUN_NOTE, l->note);
	say_whole(rp, SS_RUN_NOTE, l->series);
	say_whole(rp, SS_RUN_NOTE, l->eol_note);
	say_whole(rp, SS_RUN_NOTE, what);
	free(what);
}

/* What the update read again, left out or completed (the count is the
 * front end's to say). */
static void say_stats(const ss_index_stats *stats, const ss_run_report *rp)
{
	if (stats->mail_reread)
		ss_run_say(rp, SS_RUN_NOTE, "%zu mail sources changed before where the last update "
			   "ended: read again from their start", stats->mail_reread);
	/* as log does on the same input: what was skipped is an error, the
	 * rest is indexed */
	if (stats->skipped)
		ss_run_say(rp, SS_RUN_ERROR, "%zu commits could not be read and are not indexed "
			   "(first: %s)", stats->skipped, stats->first_skip);
	if (stats->repaired)
		ss_run_say(rp, SS_RUN_NOTE, "%zu commit%s indexed while a blob was missing (a "
			   "partial clone) read whole now: patch ids and files complete",
			   stats->repaired, stats->repaired == 1 ? "" : "s");
	if (stats->still_missing)
		ss_run_say(rp, SS_RUN_NOTE, "%zu commit%s indexed without a blob still miss one: "
			   "fetch the blobs (git fetch --refetch, or git rev-list --objects "
			   "--missing=print --all) and run 'stablesel index' again to complete them",
			   stats->still_missing, stats->still_missing == 1 ? "" : "s");
}

/*
 * The folder a first build makes when it is missing (<gitdir>/stablesel,
 * or the one of db), removed again with a refused first build: malloc'd
 * into *out, NULL when it is there already.
 */
static int made_dir(char **out, const char *db)
{
	struct stat sb;
	char *slash;

	if (!(*out = strdup(db)))
		return ss_error_code(SS_ENOMEM, "out of memory");
	if ((slash = strrchr(*out, '/')))
		*slash = '\0';
	if (!slash || !stat(*out, &sb)) {
		free(*out);
		*out = NULL;
	}
	return 0;
}

/* The update of ix failed (rc): a first build (fresh) that wrote
 * nothing is removed with dir (NULL: none), another only closed; the
 * update's message is kept.  Returns rc. */
static int refused(int rc, ss_index *ix, const char *db, const char *dir, int fresh)
{
	char *msg = strdup(ss_error_last());

	if (!msg)
		return ss_error_code(SS_ENOMEM, "out of memory");
	if (fresh)
		ss_index_discard_first_build(ix, db, dir);
	else
		ss_index_free(ix);
	ss_error_set("%s", msg);
	free(msg);
	return rc < 0 ? rc : SS_ERROR;
}

int ss_run_index_build(ss_index_stats *stats, char **path, const ss_run_index_build_options *o,
		       const ss_run_report *rp)
{
	ss_index_options *opts = o->opts;
	ss_run_feature_parts *parts = NULL;
	ss_layout *layout = NULL;
	ss_index *ix = NULL;
	char *dir = NULL;
	struct stat sb;
	int fresh, rc;
	const char *db;

	memset(stats, 0, sizeof(*stats));
	if (o->db ? !(*path = strdup(o->db)) : ss_index_default_path(path, opts->repo))
		return o->db ? ss_error_code(SS_ENOMEM, "out of memory") : SS_ERROR;
	db = *path;
	fresh = stat(db, &sb) != 0;
	if (fresh && (rc = made_dir(&dir, db)))
		return rc;
	if (!o->nspecs && (rc = find_layout(&layout, opts, o->eol, fresh ? NULL : db)))
		goto free_dir;
	opts->layout = layout;
	if ((rc = ss_index_open(&ix, db, SS_INDEX_WRITE)))
		goto free_layout;
	/* the features' parts made while the update reads the diffs, so
	 * that the fill after it reads none again */
	if ((!o->nspecs && !o->no_features &&
	     (rc = ss_run_feature_parts_new(&parts, ix, opts->repo, layout->mtip, opts))) ||
	    (rc = o->nspecs ? ss_index_update_mail(ix, o->specs, o->nspecs, opts, stats)
			    : ss_index_update(ix, opts, stats))) {
		rc = refused(rc, ix, db, dir, fresh);
		ss_run_feature_parts_free(parts);
		goto free_layout;
	}
	ss_run_feature_parts_free(parts);
	if (opts->progress)
		ss_run_progress_done(rp);
	if (layout)
		say_layout(layout, rp);
	/* after the update: the rows are extracted against the whole index */
	if (!o->nspecs && !o->no_features &&
	    (rc = ss_run_feature_store_fill(ix, db, opts->repo, opts->batch, o->hr, rp)))
		goto free_index;
	/* a first build's pages packed (a failure leaves them as they are) */
	if (fresh && ss_index_compact(ix)) {
		say_whole(rp, SS_RUN_NOTE, ss_error_last());
		ss_error_clear();
	}
	say_stats(stats, rp);
free_index:
	ss_index_free(ix);
free_layout:
	opts->layout = NULL;
	ss_layout_free(layout);
free_dir:
	free(dir);
	return rc;
}
