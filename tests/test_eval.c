/*
 * test_eval.c - eval's tables carry calibration: the ECE and picks' mean
 * score columns, a reliability table per model in the text, the test
 * commits per verdict band, and the same figures in the JSON, on a result
 * built from known scores; the --models list parsed.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "eval/eval.h"
#include "models/calib.h"
#include "models/model.h"
#include "util/error.h"
#include "util/strbuf.h"

static void test_calibration_tables(void **state)
{
	/* two commits a bin in 0.1-0.3 and 0.8-1.0, one of each bin positive */
	static const float score[8] = { 0.15f, 0.15f, 0.25f, 0.25f, 0.85f, 0.85f, 0.95f, 1.0f };
	static const uint8_t label[8] = { 1, 0, 1, 0, 1, 0, 1, 0 };
	static ss_eval_result r;
	ss_eval_row *row = &r.rows[0];
	ss_strbuf sb = SS_STRBUF_INIT;
	double ece = (2 * 0.35 + 2 * 0.25 + 2 * 0.35 + 2 * fabs((0.95 + 1.0) / 2 - 0.5)) / 8;
	char want[128];
	int depth = 0;
	size_t i;

	(void)state;
	r.ntest = 8;
	r.ntest_pos = 4;
	r.nrows = 1;
	row->kind = SS_MODEL_MLP;
	row->threshold = 0.8f;
	row->calib = (ss_calib){ SS_CALIB_PLATT, 0.75, -1.5 };
	assert_int_equal(ss_metrics_compute(&row->all, score, label, 8, row->threshold), 0);
	assert_int_equal(ss_metrics_compute(&row->untagged, score, label, 8, row->threshold), 0);
	ss_metrics_reliability(&row->rel, score, label, 8);
	row->bands = (ss_bands){ 0.9, 0.8, 0.2 };
	{
		/* as ss_eval_run counts them */
		for (i = 0; i < 8; i++) {
			ss_band v = ss_bands_classify(&row->bands, score[i]);

			row->band_n[v]++;
			row->band_pos[v] += label[i];
		}
		row->uband_n[SS_BAND_NO] = 2;
		row->uband_pos[SS_BAND_NO] = 1;
	}
	assert_true(fabs(row->rel.ece - ece) < 1e-6);
	assert_true(fabs(row->all.pick_score - (0.85 + 0.85 + 0.95 + 1.0) / 4) < 1e-6);

	assert_int_equal(ss_eval_format_text(&sb, &r, "t"), 0);
	assert_non_null(strstr(sb.buf, "    ECE pick_s "));
	snprintf(want, sizeof(want), "-- calibration of mlp on all test commits (ECE %.3f; picks: mean "
		 "score %.3f, fraction positive 0.500)", ece, row->all.pick_score);
	assert_non_null(strstr(sb.buf, want));
	assert_non_null(strstr(sb.buf, "[0.1, 0.2)      2      0.150     0.500\n"));
	assert_non_null(strstr(sb.buf, "[0.9, 1.0]      2      0.975     0.500\n"));
	assert_non_null(strstr(sb.buf, "[0.5, 0.6)      0          -         -\n"));
	assert_non_null(strstr(sb.buf, "calibrated sigmoid(0.7500 logit(s) -1.5000)"));
	/* the verdict bands: 0.95 and 1.0 yes, the 0.85s likely, the rest unsure */
	assert_non_null(strstr(sb.buf, "-- bands of mlp on the test commits (yes >= 0.900, likely >= 0.800, "
				       "unsure >= 0.200)\n"));
	assert_non_null(strstr(sb.buf, "\nyes          2     0.250     0.500         0         -\n"));
	assert_non_null(strstr(sb.buf, "\nlikely       2     0.250     0.500         0         -\n"));
	assert_non_null(strstr(sb.buf, "\nunsure       2     0.250     0.500         0         -\n"));
	assert_non_null(strstr(sb.buf, "\nno           2     0.250     0.500         2     0.500\n"));

	ss_strbuf_reset(&sb);
	assert_int_equal(ss_eval_format_json(&sb, &r, "t"), 0);
	assert_non_null(strstr(sb.buf, "\"calibration\":{\"method\":\"platt\",\"a\":0.75,\"b\":-1.5}"));
	assert_non_null(strstr(sb.buf, "\"reliability\":[{\"lo\":0.0,\"hi\":0.1,\"n\":0,"
				       "\"mean_score\":null,\"fraction_positive\":null},"));
	assert_non_null(strstr(sb.buf, "{\"lo\":0.9,\"hi\":1.0,\"n\":2,\"mean_score\":0.975,"
				       "\"fraction_positive\":0.5}]"));
	assert_non_null(strstr(sb.buf, "\"bands\":{\"yes\":0.9,\"likely\":0.8,\"unsure\":0.2,\"test\":["
				       "{\"band\":\"yes\",\"n\":2,\"positive\":1,\"untagged\":0,"));
	assert_non_null(strstr(sb.buf, "{\"band\":\"no\",\"n\":2,\"positive\":1,\"untagged\":2,"
				       "\"untagged_positive\":1}]}"));
	snprintf(want, sizeof(want), "\"pick_mean_score\":%.6g,", row->all.pick_score);
	assert_non_null(strstr(sb.buf, want));
	snprintf(want, sizeof(want), "\"ece\":%.6g,", row->all.ece);
	assert_non_null(strstr(sb.buf, want));
	/* brackets balance: one JSON value */
	for (i = 0; sb.buf[i]; i++) {
		depth += sb.buf[i] == '{' || sb.buf[i] == '[';
		depth -= sb.buf[i] == '}' || sb.buf[i] == ']';
		assert_true(depth >= 0);
	}
	assert_int_equal(depth, 0);
	ss_strbuf_release(&sb);
}

/* --models KIND,...: the kinds in order; an unknown one, too many or none
 * an error. */
static void test_models_list(void **state)
{
	ss_model_kind k[SS_EVAL_MAX_MODELS];
	size_t n = 99;

	(void)state;
	assert_int_equal(ss_model_kinds_parse(k, SS_EVAL_MAX_MODELS, &n, "keyword,tag,linear"), 0);
	assert_int_equal(n, 3);
	assert_int_equal(k[0], SS_MODEL_KEYWORD);
	assert_int_equal(k[1], SS_MODEL_TAG);
	assert_int_equal(k[2], SS_MODEL_LINEAR);
	assert_int_equal(ss_model_kinds_parse(k, SS_EVAL_MAX_MODELS, &n, "keyword,"), 0);
	assert_int_equal(n, 1);
	assert_int_equal(ss_model_kinds_parse(k, SS_EVAL_MAX_MODELS, &n, "keyword,nosuch"),
			 SS_EINVALID);
	assert_non_null(strstr(ss_error_last(), "unknown model kind 'nosuch'"));
	assert_int_equal(ss_model_kinds_parse(k, 1, &n, "keyword,tag"), SS_EINVALID);
	assert_string_equal(ss_error_last(), "too many models");
	assert_int_equal(ss_model_kinds_parse(k, SS_EVAL_MAX_MODELS, &n, ""), SS_EINVALID);
	assert_string_equal(ss_error_last(), "--models names no model");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_calibration_tables),
		cmocka_unit_test(test_models_list),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
