/*
 * eval.h - models trained and scored side by side on one time split.
 *
 * Every model is trained on the same training examples (choosing its
 * settings and threshold on the newest part of them, see model.h) and
 * scored on the same test examples; metrics are computed on all test
 * commits and again on the test commits that did not carry the stable tag
 * (what a model adds to the tag), with the expected calibration error,
 * the picks' mean score, a reliability table of all test commits, and how
 * many test commits fell in each verdict band (models/bands.h) and how
 * many of them reached stable.
 * Tables come out as aligned text or JSON.
 */
#ifndef SS_EVAL_H
#define SS_EVAL_H

#include <stddef.h>
#include <stdint.h>

#include "models/metrics.h"
#include "models/dataset.h"
#include "models/model.h"
#include "util/strbuf.h"

#define SS_EVAL_MAX_MODELS 16

typedef struct {
	ss_model_kind kind;
	double train_seconds, predict_seconds;
	long rss_kb;          /* process peak RSS after this model (getrusage) */
	float threshold;
	char params[256];
	size_t nweights;
	double val_f1;        /* F1 on the validation slice at the threshold */
	ss_calib calib;       /* the model's calibration map */
	ss_reliability rel;   /* calibration on all test commits */
	ss_bands bands;       /* the model's verdict cut points */
	/* test commits per band (SS_BAND_NO..SS_BAND_YES) and of them positive;
	 * u: the test commits without the stable tag */
	size_t band_n[SS_BAND_YES + 1], band_pos[SS_BAND_YES + 1];
	size_t uband_n[SS_BAND_YES + 1], uband_pos[SS_BAND_YES + 1];
	ss_metrics all;       /* all test commits */
	ss_metrics untagged;  /* test commits without the stable tag */
} ss_eval_row;

typedef struct {
	size_t ntrain, ntrain_pos, ntest, ntest_pos, ntest_tagged;
	size_t nuntagged, nuntagged_pos;
	int64_t train_first, train_last, test_first, test_last;
	int masked;           /* tags were masked (recorded by the caller) */
	ss_eval_row rows[SS_EVAL_MAX_MODELS];
	size_t nrows;
} ss_eval_result;

/* Receives every test commit's score by every model (ss_eval_run's sink). */
typedef void (*ss_eval_score_fn)(void *ud, const ss_example *e, ss_model_kind kind,
				 float score, int decision);

/*
 * Train each of kinds[0..nkinds) on train[], score test[].  log (from
 * opts) hears about each model; sink (may be NULL) gets each test
 * commit's score, with sink_ud.  0 or < 0 with the message set.
 */
int ss_eval_run(ss_eval_result *out, const ss_dataset *d, const size_t *train, size_t ntrain,
		const size_t *test, size_t ntest, const ss_model_kind *kinds, size_t nkinds,
		const ss_train_options *opts, ss_eval_score_fn sink, void *sink_ud);

/* Append the result as a text table or a JSON object (one line). */
int ss_eval_format_text(ss_strbuf *sb, const ss_eval_result *r, const char *title);
int ss_eval_format_json(ss_strbuf *sb, const ss_eval_result *r, const char *title);

/* "YYYY-MM-DD" (UTC midnight) or "YYYY-MM-DDTHH:MM" (UTC) to seconds since
 * the epoch; SS_EINVALID. */
int ss_parse_date(int64_t *out, const char *s);
/* Seconds since the epoch to "YYYY-MM-DD" (UTC). */
void ss_format_date(char buf[16], int64_t t);

/* Seconds of a monotonic clock (for timings). */
double ss_now(void);
/* Peak resident set size of this process so far, in KiB. */
long ss_peak_rss_kb(void);

#endif
