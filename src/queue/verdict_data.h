/*
 * verdict_data.h - a verdict as data: what check/verdict.c decides for one
 * commit on one stable branch, as it crosses to rank (rank.h's rows) and
 * the writers (text, TSV, JSON, mbox, HTML report).  The verdict is an
 * enum, the ids it names are full ids, the words are made once, here, by
 * ss_verdict_data_text(); nobody parses them again.
 *
 * It sits on the queue's floor (below check and rank) so that both may
 * name it.  A ss_verdict_data borrows every pointer it holds: the filler
 * (check's ss_verdict_export(), or rank's ss_ranking_row()) says how long
 * they live.
 */
#ifndef SS_VERDICT_DATA_H
#define SS_VERDICT_DATA_H

#include <stddef.h>

/* Enum values only grow. */
typedef enum {
	SS_VERDICT_YES = 0,
	SS_VERDICT_YES_NEEDS = 1,
	SS_VERDICT_ALREADY = 2,
	SS_VERDICT_NO_BUG = 3,
	SS_VERDICT_NO_REVERTED = 4,
	SS_VERDICT_UNKNOWN = 5
} ss_verdict_word;

/* A full commit id, NUL-terminated. */
typedef char ss_verdict_id[41];

typedef struct {
	ss_verdict_word word;
	int propose;                   /* the word lets the commit be proposed
					  (yes, yes needs): ss_verdict_word_proposes() */
	const ss_verdict_id *needs;    /* prerequisites, oldest first; only when
					  it proposes (none otherwise) */
	size_t nneeds;
	const ss_verdict_id *followups;/* later fixes of it that travel with it
					  (none for a commit already there) */
	size_t nfollowups;
	const char *reverted_by;       /* the commit reverting it ("" or NULL: none) */
	unsigned series_n, series_total; /* "(series 2/5)" after the needs ... */
	int series_shown;              /* ... when set (yes, needs only) */
	const char *detail;            /* why, in words: "in 20.11 as <id>",
					  "applies; fixes ..." ("" none) */
	const char *text;              /* the verdict as shown; made by
					  ss_verdict_data_text() (ss_ranking_row()
					  fills it; ignored on input) */
} ss_verdict_data;

/* "applies", "applies, needs", "already", "unaffected: bug not in
 * branch", "reverted by", "unknown" (ss_verdict_data_text() adds the ids);
 * never a band's word (models/bands.h), so that a row's band (the model)
 * and its verdict (the branch) cannot be read one for the other. */
const char *ss_verdict_word_name(ss_verdict_word w);

/* Does the word let the commit be proposed (yes, yes needs)? */
int ss_verdict_word_proposes(ss_verdict_word w);

/*
 * The verdict as shown: "applies", "applies, needs 0f9e8d7c6b5a
 * 1a2b3c4d5e6f" (the newest need first), "applies, needs 1a2b3c4d5e6f
 * (series 2/3)", "reverted by 1a2b3c4d5e6f", "already" ...; ids abbreviated to 12.  out
 * is always terminated (size > 0); SS_VERDICT_TEXT_MAX is enough.
 */
#define SS_VERDICT_TEXT_MAX 300
void ss_verdict_data_text(char *out, size_t size, const ss_verdict_data *v);

#endif
