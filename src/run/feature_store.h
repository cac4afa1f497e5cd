/*
 * feature_store.h - the project model's features kept in the project
 * index (feature_store.c; docs/index.md, "Stored features"): the rows a
 * training reads instead of the diffs, the rows it keeps when it had to
 * extract them, and the fill "stablesel index" makes.
 *
 * The history is walked and primed from the index here, as a run reads
 * it (run/commits.h, run/history_load.h), or through the front end's own
 * ss_run_history_reader when it gives one.  Like the rest of src/run/ nothing prints or exits: 0 or a negative
 * SS_E* code with the message set, the rest said through an
 * ss_run_report (NULL: nothing is said).
 */
#ifndef SS_RUN_FEATURE_STORE_H
#define SS_RUN_FEATURE_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "eval/split.h"
#include "features/features.h"
#include "features/history.h"
#include "index/index.h"
#include "models/dataset.h"
#include "run/run.h"
#include "source/source.h"

typedef struct ss_run_feature_store ss_run_feature_store;

/* One commit of a walk, owned by fn; non-zero stops the walk. */
typedef int (*ss_run_commit_fn)(ss_commit *c, void *data);

/*
 * How a front end reads a history instead of the run's own reading
 * (an ss_run_history_reader NULL where one is taken: run/history_load.h's
 * ss_run_history_walk() and ss_run_history_index_prime()).  Each returns
 * 0, or < 0 with the message set, which the caller hands back unchanged.
 */
typedef struct {
	/* walk so's revisions of repo, each commit to fn(c, data) */
	int (*walk)(const char *repo, const ss_source_options *so, ss_run_commit_fn fn,
		    void *data, void *ud);
	/* prime h from the index at db as a training primes it (the
	 * index's commits, paths and releases) */
	int (*history)(ss_history *h, const char *db, const char *repo, void *ud);
	void *ud;
} ss_run_history_reader;

/*
 * The rows of the index ix at path, for commits read with so and
 * extracted with fo, into *out.  Takes ix and path (malloc'd) in any
 * case (freed at close, or here on failure).
 */
int ss_run_feature_store_open(ss_run_feature_store **out, ss_index *ix, char *path,
			      const ss_feat_options *fo, const ss_source_options *so);
/* Commits the rows kept this run (a failure is a warning through rp),
 * and closes; NULL is a no-op. */
void ss_run_feature_store_close(ss_run_feature_store *fs, const ss_run_report *rp);
/* Closes without keeping the rows of the batch not yet committed, as an
 * exit would (a walk that failed); NULL is a no-op. */
void ss_run_feature_store_drop(ss_run_feature_store *fs);

/*
 * r (borrowed, outliving fs): the run's handle of the repository at path,
 * which the checks of what the rows reach use instead of opening that
 * repository again (another path is opened as given).  NULL fs: no-op.
 */
void ss_run_feature_store_use_repo(ss_run_feature_store *fs, const char *path, ss_repo *r);

/*
 * Add the commits of hso's revisions of repo (the walk of the history
 * before the ranked ones, read without diffs) to sink->d from their rows,
 * labelled as ss_split_add() labels them; newest gets the newest author
 * time read.  max (0: no limit): only the newest max + max / 4 commits
 * of the walk are read (memory bounded by that, not by the history),
 * and the newest max of them stay in sink->d, said through rp.  *got:
 *   1   done: every ancestor of the revisions has its row (a fill
 *       reached them), a commit without one is one the diff read skips
 *       and is left out as it would be (a warning says how many);
 *   0   nothing added: the rows do not reach the revisions (said once
 *       when the index cannot be written); read the diffs;
 *  -1   a damaged row: sink->d holds part of the commits, start again
 *       from the diffs (the rows kept then replace the damaged one).
 * hr NULL: the history walked here (ss_run_history_walk()).  Returns 0,
 * or < 0 when the commits cannot be featurized or the walk fails.
 */
int ss_run_feature_store_read(int *got, ss_run_feature_store *fs, const char *repo,
			      const ss_source_options *hso, const ss_run_history_reader *hr,
			      ss_split_sink *sink, size_t max, int64_t *newest,
			      const ss_run_report *rp);

/* hso's commits were all read with their diffs and their rows kept: the
 * rows reach its revision (one, named alone), recorded at close when it
 * has the tip recorded before in its history (or none was). */
void ss_run_feature_store_walked(ss_run_feature_store *fs, const char *repo,
				 const ss_source_options *hso);

/* Keep the row of d's last example when ss_dataset_add() extracted it
 * (fs NULL: nothing); an index that cannot be written is said once
 * through rp.  < 0 only out of memory. */
int ss_run_feature_store_keep(ss_run_feature_store *fs, const ss_dataset *d,
			      const ss_run_report *rp);
size_t ss_run_feature_store_kept(const ss_run_feature_store *fs);

/* Rows read from now on have the Cc: stable feature cleared (the corpus:
 * labels from backports, and a model for projects without the tag). */
void ss_run_feature_store_mask_tag(ss_run_feature_store *fs);

/*
 * Extract and keep the features of the mainline commits of the index ix
 * (at db, from repo) that have none under the project model's feature
 * set, walking only what came since the last fill; drop the rows of
 * other extractors; rows are committed batch at a time (0: 1000), the
 * tip with the last.  The parts the update kept (ss_run_feature_parts_new())
 * are joined with the history, walked without diffs; only commits
 * without a row or a good part are read with their diffs.  Says through
 * rp what it kept.  hr NULL: the history walked and primed here
 * (ss_run_history_walk(), ss_run_history_index_prime()).  0, or < 0
 * with the message set (a failed walk or priming: its message).
 */
int ss_run_feature_store_fill(ss_index *ix, const char *db, const char *repo, size_t batch,
			      const ss_run_history_reader *hr, const ss_run_report *rp);

/*
 * The fill's first part, made while ss_index_update() reads each
 * mainline diff, so that the fill after it reads no diff again
 * (docs/index.md, "Stored features"): sets opts' part, part_releases,
 * part_tag and part_ud for an update of ix (its mainline at mtip, in
 * repo), which *out (NULL when the parts would not be the fill's:
 * the rows' recorded tip is not the mainline's indexed tip) must outlive.
 * Each part is every group but the history and timing ones, extracted
 * against the releases the update planned and the repository (relcode).
 */
typedef struct ss_run_feature_parts ss_run_feature_parts;

int ss_run_feature_parts_new(ss_run_feature_parts **out, ss_index *ix, const char *repo,
			     const char *mtip, ss_index_options *opts);
void ss_run_feature_parts_free(ss_run_feature_parts *p); /* NULL is a no-op */

#endif
