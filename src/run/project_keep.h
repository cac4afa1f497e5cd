/*
 * project_keep.h - where the project model is kept and when a kept one
 * may score a ranking (docs/scores.md): its path (--project-model, else
 * beside the repository's data, else beside the stable file or the
 * index), its folder made (never in read-only data), what it learnt from
 * (the history before the ranked commits: its cut, kept in the model's
 * source) and whether that cut lies behind the ranked range.
 * run/project_choose.c trains it, cmd/rank_report.c says what happened.
 */
#ifndef SS_RUN_PROJECT_KEEP_H
#define SS_RUN_PROJECT_KEEP_H

#include <stddef.h>
#include <stdint.h>

#include "models/model.h"
#include "run/run.h"
#include "util/strbuf.h"

/*
 * Where the project model lives, into *out (malloc'd): project_model
 * (--project-model) when given, else <gitdir>/stablesel/project.model of
 * repo, else of the stable repository, else stablesel/project.model in
 * the stable file's folder, else project.model beside index_path; *out
 * NULL when none of them is given.  0, or SS_ENOMEM.  rh: NULL, or repo
 * open (a run's, borrowed; so in the functions below), read instead of
 * opening repo again.
 */
int ss_project_model_path(char **out, const char *project_model, const char *repo, ss_repo *rh,
			  const char *stable, const char *index_path);

/*
 * The folder of path, made when missing, only in a folder that may be
 * written (one whose mode grants nobody write access is read-only data,
 * such as ../shared/data, also for root).  0, or SS_ERROR with the
 * system's reason as the message (strerror; errno set).
 */
int ss_project_model_make_parent(const char *path);

/*
 * The kept model at path, into *out: only from a regular file (a FIFO,
 * whose open would block, a device or a directory is refused, a symlink
 * read through to a regular file).  0; SS_ENOTFOUND when there is none;
 * else < 0 with the message set.
 */
int ss_project_model_read(ss_model **out, const char *path);

/*
 * The kept project model a front end scores with when no model is
 * named, as rank scored (explain): the one at project_model
 * (--project-model, which must load), else the one kept for repo (rh as
 * above), into *out, its path (malloc'd) into *used.  *out NULL and 0
 * when there is none; one kept for repo that cannot be read is a warning
 * through rp.
 */
int ss_project_model_kept(ss_model **out, char **used, const char *project_model,
			  const char *repo, ss_repo *rh, const ss_run_report *rp);

/*
 * Keep m at path (temporary file + rename), only over a regular file or
 * a missing one: a symlink (whose target would be replaced), a FIFO or a
 * device is refused (util/atomic.h's ss_atomic_open_regular()).  0 or
 * < 0 with the message set.
 */
int ss_project_model_write(const ss_model *m, const char *path);

/*
 * What the model learns from, so that it never scores a commit it was
 * trained on (a fix the stable tree missed would otherwise be taught as
 * "not backported" and ranked low).
 */
typedef enum {
	SS_PROJECT_HELD_NONE,    /* the ranked commits themselves (in-sample, said) */
	SS_PROJECT_HELD_HISTORY, /* --history */
	SS_PROJECT_HELD_RANGE,   /* with the index, the repository before the
				  * bottoms (A) of --rev A..B; their ids are the cut */
	SS_PROJECT_HELD_SINCE    /* the commits read but authored before --since
				  * (history only to rank); that time is the cut */
} ss_project_held;

/*
 * Which: nhistory --history sources, else (with an index, no mbox and
 * a repository) the history the ranked range stands on when bottoms
 * says it has one (its history source is not the range itself: the
 * bottoms of A..B, or --history-rev), else since (0: none).
 */
ss_project_held ss_project_model_held(size_t nhistory, int with_index, int nspecs, int repo,
				      int bottoms, int64_t since);

/*
 * The training cut into in's cut fields (ss_model_info): since
 * (SS_PROJECT_HELD_SINCE), or each bottom bottoms[0..n) resolved in repo
 * (SS_PROJECT_HELD_RANGE; at most SS_MODEL_CUT_MAX); other kinds clear
 * them.  The same cut is appended to sb as text for the model's source,
 * which people read: " authored before <seconds>", or " before <id>"
 * for each bottom.  0 or < 0 with the message set (a bottom that does
 * not resolve, too many bottoms: then no ids are kept).
 */
int ss_project_model_cut(ss_model_info *in, ss_strbuf *sb, ss_project_held held, int64_t since,
			 const char *repo, ss_repo *rh, const char *const *bottoms, size_t n);

/*
 * Why kept model m may have learnt from commits this ranking scores
 * (into why[size], returned), or NULL, from m's cut fields (format 5 and
 * earlier: as its loader read them from its source): a cut time later than since; a
 * cut id no bottom of bottoms[0..n) in repo holds in its history (then
 * b..top may hold the cut's commits); no cut while one is known now.
 */
const char *ss_project_model_trained_on_ranked(char *why, size_t size, const ss_model *m,
					       ss_project_held held, int64_t since,
					       const char *repo, ss_repo *rh,
					       const char *const *bottoms, size_t n);

#endif
