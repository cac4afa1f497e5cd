/* options.c - the shared training and feature options (see options.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "models/options.h"
#include "util/error.h"

static const struct {
	const char *name;
	uint32_t bit;
} groups[] = {
	{ "words", SS_FG_WORDS }, { "subsystem", SS_FG_SUBSYSTEM },
	{ "metrics", SS_FG_METRICS }, { "constructs", SS_FG_CONSTRUCTS },
	{ "people", SS_FG_PEOPLE }, { "paths", SS_FG_PATHS },
	{ "trailers", SS_FG_TRAILERS }, { "history", SS_FG_HISTORY },
	{ "effects", SS_FG_EFFECTS }, { "timing", SS_FG_TIMING },
	{ "series", SS_FG_SERIES }, { "merge", SS_FG_MERGE },
	{ "relcode", SS_FG_RELCODE }, { "keys", SS_FG_KEYS },
	{ "default", SS_FG_DEFAULT },
	{ "all", SS_FG_ALL },
};

int ss_feat_groups_parse(uint32_t *out, const char *list)
{
	const char *p = list;
	uint32_t bits = 0;

	while (*p) {
		size_t len = strcspn(p, ","), i;
		int found = 0;

		for (i = 0; i < sizeof(groups) / sizeof(groups[0]); i++)
			if (strlen(groups[i].name) == len && !strncmp(groups[i].name, p, len)) {
				bits |= groups[i].bit;
				found = 1;
			}
		if (!found)
			return ss_error_code(SS_EINVALID,
					     "unknown feature group '%.*s' (words, subsystem, metrics, "
					     "constructs, people, paths, trailers, history, effects, "
					     "timing, series, merge, relcode, keys, default, all)", (int)len, p);
		p += len;
		if (*p == ',')
			p++;
	}
	if (!bits)
		return ss_error_code(SS_EINVALID, "no feature group named");
	*out = bits;
	return 0;
}

static int num(double *out, const char *name, const char *v, double lo, double hi)
{
	char *end;

	if (!v)
		return ss_error_code(SS_EINVALID, "option '%s' needs a value", name);
	errno = 0;
	*out = strtod(v, &end);
	if (errno || end == v || *end || !(*out >= lo && *out <= hi))
		return ss_error_code(SS_EINVALID, "option '%s' expects a number in [%g, %g], not '%s'",
				     name, lo, hi, v);
	return 1;
}

static int integer(int *out, const char *name, const char *v, int lo, int hi)
{
	double d;
	int rc = num(&d, name, v, lo, hi);

	if (rc < 0)
		return rc;
	if (d != (double)(int)d)
		return ss_error_code(SS_EINVALID, "option '%s' expects an integer, not '%s'", name, v);
	*out = (int)d;
	return 1;
}

int ss_train_option(ss_train_options *o, ss_feat_options *fo, const char *name,
		    const char *value)
{
	double d;
	int i, rc;

	if (!strcmp(name, "--refit")) {
		o->refit = 1;
		return 0;
	}
	if (!strcmp(name, "--no-refit")) {
		o->refit = 0;
		return 0;
	}
	if (!strcmp(name, "--balance")) {
		o->linear_balance = 1;
		return 0;
	}
	if (!strcmp(name, "--wide")) {
		o->wide = 1;
		return 0;
	}
	if (!strcmp(name, "--no-wide")) {
		o->wide = 0;
		return 0;
	}
	if (!strcmp(name, "--warm-start") || !strcmp(name, "--no-warm-start")) {
		o->warm_start = name[2] == 'w';
		return 0;
	}
	if (!strcmp(name, "--input-dropout")) {
		if ((rc = num(&d, name, value, 0.0, 0.9)) < 0)
			return rc;
		o->input_dropout = (float)d;
		return 1;
	}
	if (!strcmp(name, "--no-class-weights")) {
		o->mlp_balance = 0;
		return 0;
	}
	if (!strcmp(name, "--features")) {
		uint32_t bits;

		if (!value)
			return ss_error_code(SS_EINVALID, "option '%s' needs a value", name);
		if ((rc = ss_feat_groups_parse(&bits, value)))
			return rc;
		fo->groups = bits;
		return 1;
	}
	if (!strcmp(name, "--vocab-size") || !strcmp(name, "--min-df") ||
	    !strcmp(name, "--hash-bits")) {
		if ((rc = integer(&i, name, value, !strcmp(name, "--hash-bits") ? 8 : 0,
				  !strcmp(name, "--hash-bits") ? 24 : 10000000)) < 0)
			return rc;
		if (!strcmp(name, "--vocab-size"))
			fo->vocab_size = (uint32_t)i;
		else if (!strcmp(name, "--min-df"))
			fo->min_df = (uint32_t)i;
		else
			fo->hash_bits = (uint32_t)i;
		return 1;
	}
	if (!strcmp(name, "--target-precision") || !strcmp(name, "--target-recall")) {
		if ((rc = num(&d, name, value, 0.0, 1.0)) < 0)
			return rc;
		o->rule = name[9] == 'p' ? SS_THRESH_PRECISION : SS_THRESH_RECALL;
		o->target = d;
		return 1;
	}
	if (!strcmp(name, "--val-share")) {
		if ((rc = num(&d, name, value, 0.01, 0.9)) < 0)
			return rc;
		o->val_share = d;
		return 1;
	}
	if (!strcmp(name, "--seed")) {
		if ((rc = num(&d, name, value, 0, 1e15)) < 0)
			return rc;
		o->seed = (uint64_t)d;
		return 1;
	}
	if (!strcmp(name, "--C")) {
		if ((rc = num(&d, name, value, 1e-6, 1e6)) < 0)
			return rc;
		o->C = d;
		return 1;
	}
	if (!strcmp(name, "--dropout")) {
		if ((rc = num(&d, name, value, 0.0, 0.95)) < 0)
			return rc;
		o->dropout = (float)d;
		return 1;
	}
	if (!strcmp(name, "--lr") || !strcmp(name, "--weight-decay")) {
		if ((rc = num(&d, name, value, 0.0, 10.0)) < 0)
			return rc;
		if (name[2] == 'l')
			o->lr = (float)d;
		else
			o->weight_decay = (float)d;
		return 1;
	}
	if (!strcmp(name, "--threads"))
		return integer(&o->threads, name, value, 1, 64);
	if (!strcmp(name, "--hidden"))
		return integer(&o->hidden, name, value, 1, 4096);
	if (!strcmp(name, "--hidden2"))
		return integer(&o->hidden2, name, value, 0, 4096);
	if (!strcmp(name, "--epochs"))
		return integer(&o->epochs, name, value, 1, 10000);
	if (!strcmp(name, "--patience"))
		return integer(&o->patience, name, value, 1, 10000);
	if (!strcmp(name, "--batch"))
		return integer(&o->batch, name, value, 1, 1 << 20);
	return SS_ENOTFOUND;
}
