/* options.c - the feature groups by name (see options.h). */
#include <stdio.h>
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

/* "words, subsystem, ..., all" from the table above. */
static void group_list(char *out, size_t size)
{
	size_t len = 0;

	out[0] = '\0';
	for (size_t i = 0; i < sizeof(groups) / sizeof(groups[0]) && len < size; i++)
		len += (size_t)snprintf(out + len, size - len, "%s%s", i ? ", " : "", groups[i].name);
}

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
		if (!found) {
			char names[300];

			group_list(names, sizeof(names));
			return ss_error_code(SS_EINVALID, "unknown feature group '%.*s' (%s)", (int)len, p,
					     names);
		}
		p += len;
		if (*p == ',')
			p++;
	}
	if (!bits)
		return ss_error_code(SS_EINVALID, "no feature group named");
	*out = bits;
	return 0;
}

void ss_feat_groups_help(char *out, size_t size)
{
	size_t len;

	snprintf(out, size, "the feature groups: ");
	len = strlen(out);
	for (size_t i = 0; i < sizeof(groups) / sizeof(groups[0]) && len < size; i++) {
		uint32_t bit = groups[i].bit;

		len += (size_t)snprintf(out + len, size - len, "%s%s", i ? ", " : "", groups[i].name);
		if (bit == SS_FG_DEFAULT) {
			len += (size_t)snprintf(out + len, size - len, " (");
			for (size_t j = 0, k = 0; j < sizeof(groups) / sizeof(groups[0]) && len < size; j++)
				if (groups[j].bit != SS_FG_DEFAULT && !(groups[j].bit & (groups[j].bit - 1)) &&
				    (groups[j].bit & SS_FG_DEFAULT))
					len += (size_t)snprintf(out + len, size - len, "%s%s", k++ ? " " : "",
								groups[j].name);
			len += (size_t)snprintf(out + len, size - len, ")");
		}
	}
}

uint32_t ss_feat_group_bit(const char *name)
{
	for (size_t i = 0; i < sizeof(groups) / sizeof(groups[0]); i++)
		if (!strcmp(groups[i].name, name))
			return groups[i].bit;
	return 0;
}
