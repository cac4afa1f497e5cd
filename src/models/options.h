/*
 * options.h - the feature groups by name: the one table of SS_FG_* names
 * (features/features.h) that --features parses and its help lists.  The
 * training options themselves are declared, with their ranges, in the
 * CLI's option table (cli/option_groups.c, cli_train_args_init()).
 */
#ifndef SS_MODEL_OPTIONS_H
#define SS_MODEL_OPTIONS_H

#include "features/features.h"
#include "models/model.h"

/* Parse "words,paths,..." into SS_FG_* bits; SS_EINVALID on an unknown name. */
int ss_feat_groups_parse(uint32_t *out, const char *list);

/* The help of --features: "the feature groups: words, ..., default
 * (words ... relcode), all", cut to size. */
void ss_feat_groups_help(char *out, size_t size);

/* The SS_FG_* bits of one group's name ("merge"), 0 when none. */
uint32_t ss_feat_group_bit(const char *name);

#endif
