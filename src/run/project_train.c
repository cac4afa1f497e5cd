/*
 * project_train.c - the project model trained from the examples read
 * (project_train.h).  Moved from cmd/project_model.c (the second half of
 * train: settle, the minimums, the window, the training, relcode).
 */
#include "run/project_train.h"

#include <stdio.h>
#include <stdlib.h>

#include "eval/split.h"
#include "run/project_model.h"
#include "util/error.h"

int ss_project_model_fit(ss_model **out, size_t *n, size_t *npos, char *why, size_t size,
			 ss_dataset *d, int64_t newest, int relcode, const ss_run_report *rp)
{
	ss_train_options o = SS_TRAIN_OPTIONS_INIT;
	ss_model *m = NULL;
	size_t *idx = NULL, i;
	int64_t window;
	int rc;

	*out = NULL;
	*n = *npos = 0;
	if ((rc = ss_split_part(&idx, n, d, 0)))
		return rc;
	ss_split_settle(idx, n, d, SS_PROJECT_SETTLE_DAYS, newest);
	for (i = 0; i < *n; i++)
		*npos += ss_dataset_example(d, idx[i])->label;
	if (*n < SS_PROJECT_MIN_COMMITS || *npos < SS_PROJECT_MIN_POSITIVE) {
		snprintf(why, size, "too few settled commits to train a model for this project "
			 "(%zu, %zu of them in the stable tree; at least %d and %d)", *n, *npos,
			 SS_PROJECT_MIN_COMMITS, SS_PROJECT_MIN_POSITIVE);
		goto out;
	}
	if ((rc = ss_project_model_window(&window, d, idx, *n, &o, rp)))
		goto out;
	if (window) {
		int64_t top = INT64_MIN;

		for (i = 0; i < *n; i++)
			if (ss_dataset_example(d, idx[i])->time > top)
				top = ss_dataset_example(d, idx[i])->time;
		*n = ss_project_model_in_window(idx, d, idx, *n, top - window, npos);
	}
	if ((rc = ss_model_train(&m, SS_MODEL_LINEAR, d, idx, *n, &o))) {
		rc = ss_run_fail(rc, "cannot train the project model");
		goto out;
	}
	if (relcode) {
		ss_model *with = m;

		if ((rc = ss_project_model_relcode(&m, with, d, idx, *n, &o, rp))) {
			ss_model_free(with);
			goto out;
		}
	}
	*out = m;
out:
	free(idx);
	return rc;
}
