/*
 * project_train.h - the project model trained from the examples read
 * (docs/scores.md): only the settled ones (SS_PROJECT_SETTLE_DAYS before
 * the newest commit read), enough of them (SS_PROJECT_MIN_COMMITS,
 * SS_PROJECT_MIN_POSITIVE) or none, the history window, a linear model,
 * then, with a repository, the relcode features kept or left out
 * (run/project_rules.h).  run/project_choose.c reads the examples and
 * keeps the file.
 */
#ifndef SS_RUN_PROJECT_TRAIN_H
#define SS_RUN_PROJECT_TRAIN_H

#include <stddef.h>
#include <stdint.h>

#include "features/history.h"
#include "models/dataset.h"
#include "models/model.h"
#include "run/run.h"
#include "util/strbuf.h"

/*
 * The part (ss_example.part) of the ranked cycle's commits whose fate is
 * known already (--learn-in-cycle: taken by a stable branch, or decided
 * in review): learnt from with the fit part whatever their age, never
 * validated on.  The history's examples are part 0.
 */
#define SS_PROJECT_PART_CYCLE 2

/*
 * Train the project's linear model on d's settled examples (newest: the
 * newest author time read, the ranked commits' too) into *out; repo (may
 * be NULL): the repository read, when there is one: the relcode
 * features may then be left out, and a hashed rule the guard names is
 * named from a commit read again from it, with hist (may be NULL: the
 * history the ranking reads) for the features of its history.  *n and
 * *npos: how many examples it learnt from and how many positive.  Too
 * few: *out NULL and why[size] says so (for the built-in model's note).
 * prior (may be NULL): the built-in model, whose weights the project's
 * are mixed with by the share its validation slice chooses; the
 * project's best single rule is raised when it beats the model there
 * (models/model.h, ss_linear_adapt).  What it chose is said through rp.
 * 0 or < 0 with the message set.
 */
int ss_project_model_fit(ss_model **out, size_t *n, size_t *npos, char *why, size_t size,
			 ss_dataset *d, int64_t newest, const char *repo, const ss_history *hist,
			 const ss_model *prior, const ss_run_report *rp);

/*
 * The name of m's hashed feature slot (a feature index) into name, which
 * holds "hash:N" (ss_featurizer_name_ix()) and is left so when it cannot
 * be told: the rows the index keeps hold hashes, not names, so the newest
 * of d's examples idx[0..n) that has the feature is read again from the
 * repository repo (NULL: none) and its features extracted with their
 * names, with hist (may be NULL) for the features of its history (a
 * release line, a fix of a fix).  Errors are not reported: the slot's
 * number is a name too.
 */
void ss_project_model_name_hashed(ss_strbuf *name, const ss_model *m, uint32_t slot,
				  const ss_dataset *d, const size_t *idx, size_t n, const char *repo,
				  const ss_history *hist);

#endif
