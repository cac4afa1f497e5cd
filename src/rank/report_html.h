/*
 * report_html.h - a ranking as one self-contained HTML page for reviewers:
 * first what a maintainer acts on, each stable branch's queue (with
 * verdicts) and the ranked list, each commit a <details> element that
 * opens to its flags, reasons, precedents, message and diff, its review
 * decisions beside its subject; then the model's summary, a
 * precision-recall curve (inline SVG), the calibration and the bands,
 * computed over the settled commits only (reached stable, or labelled 0
 * by --labels): a commit stable has not taken yet is undecided, not a
 * negative.
 *
 * No network and no external assets: CSS and JavaScript are inline.  All
 * commit text is HTML-escaped.  To keep the page quick on whole histories,
 * each diff is capped (the ranking keeps at most diff_cap lines, and says
 * how many were left out) and only the first `diffs` rows carry their
 * message and diff (the others: flags, reasons and precedents).
 * Opening "report.html#open=<sha prefix>" opens that commit on load (by a
 * click on its summary) and scrolls to it ("#open=<sha>&noscroll" does not
 * scroll, for screenshots of the whole page top).
 */
#ifndef SS_RANK_REPORT_HTML_H
#define SS_RANK_REPORT_HTML_H

#include <stdio.h>

#include "models/model.h"
#include "rank/rank.h"
#include "util/strbuf.h"

typedef struct {
	const char *title;     /* page title ("stablesel report") */
	const char *sources;   /* what was ranked, for the header (NULL) */
	size_t diffs;          /* rows that carry a diff, 0 = all (2000) */
	size_t precedents;     /* precedents per pick (3) */
	size_t precedent_rows; /* picks that get precedents (200) */
} ss_report_options;

#define SS_REPORT_OPTIONS_INIT { "stablesel report", NULL, 2000, 3, 200 }

/* Append s[0..len) HTML-escaped (& < > " '). 0 or SS_ENOMEM. */
int ss_html_escape(ss_strbuf *sb, const char *s, size_t len);

/* Write the page for the selected ranking r (m may be NULL).  0, or
 * SS_ERROR / SS_ENOMEM with the message set. */
int ss_report_write(FILE *f, ss_ranking *r, const ss_model *m, const ss_report_options *o);

#endif
