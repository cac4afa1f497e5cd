/*
 * verdict_data.c - a verdict's words from its data (verdict_data.h).
 * They share no word with the model's bands (models/bands.h: yes,
 * likely, unsure, no, wait): "applies" is the branch's answer, "yes" the
 * model's (docs/review.md, "Two words").
 */
#include "queue/verdict_data.h"

#include <stdio.h>
#include <string.h>

const char *ss_verdict_word_name(ss_verdict_word w)
{
	switch (w) {
	case SS_VERDICT_YES:
		return "applies";
	case SS_VERDICT_YES_NEEDS:
		return "applies, needs";
	case SS_VERDICT_ALREADY:
		return "already";
	case SS_VERDICT_NO_BUG:
		return "unaffected: bug not in branch";
	case SS_VERDICT_NO_REVERTED:
		return "reverted by";
	case SS_VERDICT_UNKNOWN:
		break;
	}
	return "unknown";
}

int ss_verdict_word_proposes(ss_verdict_word w)
{
	return w == SS_VERDICT_YES || w == SS_VERDICT_YES_NEEDS;
}

void ss_verdict_data_text(char *out, size_t size, const ss_verdict_data *v)
{
	size_t len;

	snprintf(out, size, "%s", ss_verdict_word_name(v->word));
	if (v->word == SS_VERDICT_NO_REVERTED) {
		len = strlen(out);
		snprintf(out + len, size - len, " %.12s", v->reverted_by ? v->reverted_by : "");
	} else if (v->word == SS_VERDICT_YES_NEEDS) {
		/* the needs are kept oldest first; the words name the newest first */
		for (size_t k = v->nneeds; k-- > 0;) {
			len = strlen(out);
			snprintf(out + len, size - len, " %.12s", v->needs[k]);
		}
		if (v->series_shown) {
			len = strlen(out);
			snprintf(out + len, size - len, " (series %u/%u)", v->series_n, v->series_total);
		}
	}
}
