/*
 * options.h - the training and feature options "train" and "eval" share,
 * parsed in one place so that both commands accept the same spelling and
 * range (the CLI's option table, cmd/common.c, names and describes them).
 *
 *   --vocab-size N --min-df N --hash-bits N --features GROUP,...
 *   --val-share F --seed N --threads N --refit --no-refit
 *   --target-precision P --target-recall R
 *   --C F --balance
 *   --hidden N --hidden2 N --dropout F --lr F --weight-decay F
 *   --epochs N --patience N --batch N --no-class-weights
 *   --wide --no-wide --input-dropout F
 */
#ifndef SS_MODEL_OPTIONS_H
#define SS_MODEL_OPTIONS_H

#include "features/features.h"
#include "models/model.h"

/*
 * If name is one of the options above, apply it (value may be NULL for
 * flags) and return how many values it took (0 or 1); SS_ENOTFOUND (no
 * message) when name is not a training option; SS_EINVALID (message set)
 * when the value is missing or bad.
 */
int ss_train_option(ss_train_options *o, ss_feat_options *fo, const char *name,
		    const char *value);

/* Parse "words,paths,..." into SS_FG_* bits; SS_EINVALID on an unknown name. */
int ss_feat_groups_parse(uint32_t *out, const char *list);

#endif
