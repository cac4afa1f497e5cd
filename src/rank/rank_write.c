/*
 * rank_write.c - a selected ranking as text, TSV, CSV, JSON lines or an
 * mbox of format-patch messages (see rank.h).
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "eval/eval.h"
#include "commit/patch.h"
#include "features/features.h"
#include "queue/queue.h"
#include "rank/rank.h"
#include "rank/rank_impl.h"
#include "util/error.h"
#include "util/strbuf.h"

#define C_RESET "\033[0m"
#define C_BOLD "\033[1m"
#define C_GREEN "\033[32m"
#define C_YELLOW "\033[33m"
#define C_CYAN "\033[36m"
#define C_RED "\033[31m"
#define C_DIM "\033[2m"

/* Replace tabs and newlines so that a string stays one field. */
static void put_field(FILE *f, const char *s)
{
	for (; *s; s++)
		fputc(*s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s, f);
}

static void put_csv(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s == '\r' ? ' ' : *s, f);
	}
	fputc('"', f);
}

/* "fix of a fix (+1.000); touches drivers/net (+0.500)" (in words, with
 * values: ss_rank_reasons_text()) or "h:fix_of_fix;d:drivers/net" (the
 * short names, for tables) of a row's reasons. */
static void reasons_line(ss_strbuf *sb, const ss_rank_row *w, size_t max, int in_words)
{
	if (in_words) {
		ss_rank_reasons_text(sb, w, max, "; ");
		return;
	}
	for (size_t k = 0; k < w->nreasons && k < max; k++)
		ss_strbuf_addf(sb, "%s%s", k ? ";" : "", w->reasons[k].feature);
}

void ss_rank_reasons_text(ss_strbuf *sb, const ss_rank_row *w, size_t max, const char *sep)
{
	size_t cc = (size_t)-1, key = (size_t)-1, shown = 0;

	/* a Cc: stable@ line is one fact the model sees twice, as the trailer
	 * (cc_stable) and as a message key (k:cc): one reason, their sum */
	for (size_t k = 0; (w->flags & SS_RANK_TAGGED) && k < w->nreasons; k++) {
		if (!strcmp(w->reasons[k].feature, "cc_stable"))
			cc = k;
		else if (!strcmp(w->reasons[k].feature, "k:cc"))
			key = k;
	}
	for (size_t k = 0; k < w->nreasons && shown < max; k++) {
		double c = w->reasons[k].contribution;

		/* both or neither: a "Cc:" key alone may be any Cc: line (the
		 * stable one masked) */
		int fold = cc != (size_t)-1 && key != (size_t)-1;

		if (fold && k == key)
			continue;
		ss_strbuf_adds(sb, shown++ ? sep : "");
		if (fold && k == cc) {
			c += w->reasons[key].contribution;
			ss_strbuf_adds(sb, "tagged for stable (its Cc: stable@ line)");
		} else {
			ss_feat_name_words(sb, w->reasons[k].feature);
		}
		ss_strbuf_addf(sb, " (%+.3f)", c);
	}
}

void ss_ranking_needs_text(ss_strbuf *sb, const ss_ranking *r, const ss_verdict_data *v)
{
	/* newest first, as the verdict's words name them */
	for (size_t k = v->nneeds; k-- > 0;) {
		size_t i = ss_ranking_find(r, v->needs[k]);
		ss_rank_row w;

		ss_strbuf_addf(sb, "%s%.12s", k + 1 < v->nneeds ? ", " : "", v->needs[k]);
		if (i == (size_t)-1)
			continue;
		ss_ranking_row(&w, r, i);
		ss_strbuf_adds(sb, " (\"");
		ss_strbuf_adds(sb, w.subject);
		if (w.flags & SS_RANK_EXTRA)
			ss_strbuf_adds(sb, "\", not ranked)");
		else
			ss_strbuf_addf(sb, "\", score %.3f)", (double)w.score);
	}
}

/* The flags of a row as words: "tagged 5.10+; fixes abc (subj); ...". */
void ss_rank_flags_text(ss_strbuf *sb, const ss_rank_row *w, const char *sep)
{
	size_t start = sb->len;

#define SEP() (sb->len > start ? sep : "")
	if (w->flags & SS_RANK_TAGGED)
		ss_strbuf_addf(sb, "%stagged stable%s%s", SEP(), *w->stable_hint ? " " : "",
			       w->stable_hint);
	if (*w->fixes) {
		const char *p = w->fixes;

		while (*p) {
			const char *nl = strchr(p, '\n');
			size_t len = nl ? (size_t)(nl - p) : strlen(p);

			ss_strbuf_addf(sb, "%sfixes %.*s", SEP(), (int)len, p);
			p += len + (nl != NULL);
		}
	} else if (w->flags & SS_RANK_FIXES) {
		ss_strbuf_addf(sb, "%shas Fixes:", SEP());
	}
	if (w->flags & SS_RANK_BOT)
		ss_strbuf_addf(sb, "%sreported by %s", SEP(), w->bot);
	if (w->flags & SS_RANK_IN_STABLE)
		ss_strbuf_addf(sb, "%salready in stable %s", SEP(), w->branches);
	if (w->review && *w->review)
		ss_strbuf_addf(sb, "%sreview: %s", SEP(), w->review);
	if (w->flags & SS_RANK_TOO_BIG)
		ss_strbuf_addf(sb, "%s%zu lines (stable rules: %d)", SEP(), w->lines, SS_RANK_MAX_LINES);
	if (w->flags & SS_RANK_BINARY)
		ss_strbuf_addf(sb, "%sbinary files (not in the patch)", SEP());
	if (w->flags & SS_RANK_TRUNCATED)
		ss_strbuf_addf(sb, "%sdiff read capped (--max-lines): patch incomplete", SEP());
	if (w->flags & SS_RANK_NOAUTOSEL)
		ss_strbuf_addf(sb, "%sstable+noautosel", SEP());
	if (w->flags & SS_RANK_POLICY)
		ss_strbuf_addf(sb, "%spolicy: %s", SEP(), w->policy);
	if (w->flags & SS_RANK_TOO_YOUNG)
		ss_strbuf_addf(sb, "%stoo young", SEP());
	if (w->flags & SS_RANK_AFTER)
		ss_strbuf_addf(sb, "%swaits: Cc: stable # %s", SEP(), w->stable_hint);
	if (w->flags & SS_RANK_COPIES) {
		const char *p = w->copies;

		ss_strbuf_addf(sb, "%salso as", SEP());
		while (*p) {
			size_t len = strcspn(p, " ");

			ss_strbuf_addf(sb, " %.*s", (int)(len < 12 ? len : 12), p);
			p += len + (p[len] == ' ');
		}
	}
#undef SEP
}

void ss_rank_precedent_text(ss_strbuf *sb, const ss_rank_precedent *p, int color)
{
	ss_strbuf_addf(sb, "%.12s %.2f ", p->id, (double)p->similarity);
	if (p->label > 0)
		ss_strbuf_addf(sb, "%s[stable%s%s]%s", color ? C_GREEN : "", *p->branches ? " " : "",
			       p->branches, color ? C_RESET : "");
	else if (!p->label)
		ss_strbuf_addf(sb, "%s[not in stable]%s", color ? C_RED : "", color ? C_RESET : "");
	else
		ss_strbuf_addf(sb, "[score %.3f]", (double)p->score);
	ss_strbuf_addf(sb, " %s", p->subject);
}

static const char *held_reason(unsigned flags)
{
	return (flags & SS_RANK_NOAUTOSEL) ? "stable+noautosel" : "policy";
}

/* "12 yes, 30 likely, ..." of the listed rows (bands without rows left out). */
static void band_counts_line(ss_strbuf *sb, const ss_ranking *r)
{
	static const ss_band order[] = { SS_BAND_YES, SS_BAND_LIKELY, SS_BAND_WAIT, SS_BAND_UNSURE,
					 SS_BAND_NO };
	size_t n[SS_BAND_WAIT + 1], k;

	ss_ranking_band_counts(n, r);
	for (k = 0; k < sizeof(order) / sizeof(order[0]); k++)
		ss_strbuf_addf(sb, "%s%zu %s", k ? ", " : "", n[order[k]], ss_band_name(order[k]));
}

static void write_text(ss_ranking *r, FILE *f, const ss_rank_write_options *o, const ss_model *m)
{
	const char *cs = o->color ? C_BOLD : "", *ce = o->color ? C_RESET : "";
	size_t i, shown = 0, picks = 0, held[2] = { 0, 0 }, nheld = 0, hidden = 0, nprec = 0;
	size_t copies = 0, young = 0, after = 0;
	const ss_bands *bands = ss_ranking_bands(r);
	ss_strbuf sb = SS_STRBUF_INIT;
	ss_rank_precedent pr[SS_RANK_MAX_PRECEDENTS];
	ss_rank_row w;
	char a[16], b[16];

	if (m) {
		const ss_model_info *in = ss_model_info_of(m);

		ss_format_date(a, in->first);
		ss_format_date(b, in->last);
		fprintf(f, "model: %s (%s), trained on %llu commits %s..%s, threshold %.4f\n",
			ss_model_kind_name(ss_model_get_kind(m)), in->params,
			(unsigned long long)in->n, a, b, r->threshold);
	}
	if (bands->yes > 1)
		fprintf(f, "bands: yes none (not calibrated), likely >= %.3f, unsure >= %.3f, no below",
			bands->likely, bands->unsure);
	else
		fprintf(f, "bands: yes >= %.3f, likely >= %.3f, unsure >= %.3f, no below", bands->yes,
			bands->likely, bands->unsure);
	if (r->sel.min_age_days > 0)
		fprintf(f, "; wait: younger than %g days or Cc: stable # after ...\n", r->sel.min_age_days);
	else
		fprintf(f, "; wait: Cc: stable # after ...\n");
	for (i = 0; i < r->n; i++) {
		ss_ranking_row(&w, r, i);
		shown += w.shown;
		picks += w.pick;
		if (w.copy) {
			copies++;
		} else if (w.flags & SS_RANK_HELD) {
			nheld++;
			held[(w.flags & SS_RANK_NOAUTOSEL) ? 0 : 1]++;
		} else if (r->sel.untagged_only && (w.flags & SS_RANK_TAGGED)) {
			hidden++;
		}
		if (w.shown && w.band == SS_BAND_WAIT) {
			young += (w.flags & SS_RANK_TOO_YOUNG) != 0;
			after += (w.flags & SS_RANK_AFTER) != 0;
		}
	}
	ss_format_date(a, r->now);
	fprintf(f, "%zu commits read (newest %s), %zu above the threshold; %zu shown, %zu proposed",
		r->n, a, r->picks, shown, picks);
	if (r->sel.budget)
		fprintf(f, " (budget %zu)", r->sel.budget);
	if (copies)
		fprintf(f, "; %zu copies of a listed patch folded into its row", copies);
	fprintf(f, "\n");
	ss_strbuf_reset(&sb);
	band_counts_line(&sb, r);
	fprintf(f, "listed: %s", sb.buf);
	if (young || after)
		fprintf(f, " (waiting: %zu too young, %zu asked by Cc: stable)", young, after);
	fprintf(f, "\n");
	if (nheld)
		fprintf(f, "held back by stable rules: %zu (%zu stable+noautosel, %zu by policy)\n", nheld,
			held[0], held[1]);
	if (hidden)
		fprintf(f, "hidden: %zu already tagged for stable (--untagged-only)\n", hidden);
	fprintf(f, "\n%s%5s %6s %-6s %1s %-12s  %s%s\n", cs, "rank", "score", "band", "", "commit", "subject",
		ce);
	for (i = 0, shown = 0; i < r->n; i++) {
		ss_ranking_row(&w, r, i);
		if (!w.shown)
			continue;
		shown++;
		fprintf(f, "%5zu %s%6.3f%s %-6s %1s %s%.12s%s  ", shown,
			o->color ? (w.pick ? C_GREEN : C_DIM) : "", (double)w.score, o->color ? C_RESET : "",
			ss_band_name(w.band), w.pick ? "*" : "", o->color ? C_YELLOW : "", w.id,
			o->color ? C_RESET : "");
		put_field(f, w.subject);
		fputc('\n', f);
		for (size_t b = 0; b < w.nverdicts; b++) {
			const ss_verdict_data *v = &w.verdicts[b];

			fprintf(f, "%28s%s%s: %s%s", "", o->color ? (v->propose ? C_GREEN : C_DIM) : "",
				r->branch[b], v->text, o->color ? C_RESET : "");
			if (*v->detail) {
				fputs(" (", f);
				put_field(f, v->detail);
				fputc(')', f);
			}
			fputc('\n', f);
			if (v->propose && v->nneeds) {
				ss_strbuf_reset(&sb);
				ss_ranking_needs_text(&sb, r, v);
				fprintf(f, "%30saccepting it pulls into the queue: ", "");
				put_field(f, sb.buf);
				fputc('\n', f);
			}
		}
		if (!w.pick && w.band != SS_BAND_WAIT)
			continue;
		ss_format_date(a, w.author_time);
		fprintf(f, "%35s%s, %s\n", "", w.author, a);
		ss_strbuf_reset(&sb);
		ss_rank_flags_text(&sb, &w, "; ");
		if (sb.len)
			fprintf(f, "%35s%s%s%s\n", "", o->color ? C_CYAN : "", sb.buf, o->color ? C_RESET : "");
		ss_strbuf_reset(&sb);
		reasons_line(&sb, &w, 5, 1);
		if (sb.len)
			fprintf(f, "%35sbecause %s\n", "", sb.buf);
		if (!w.pick)
			continue;
		if (o->precedents && nprec < o->precedent_rows) {
			size_t max = o->precedents < SS_RANK_MAX_PRECEDENTS ? o->precedents
								     : SS_RANK_MAX_PRECEDENTS;
			size_t k, n = ss_ranking_precedents(pr, max, r, i);

			nprec++;
			for (k = 0; k < n; k++) {
				ss_strbuf_reset(&sb);
				ss_rank_precedent_text(&sb, &pr[k], o->color);
				fprintf(f, "%35s%s ", "", k ? "    " : "like");
				put_field(f, sb.buf);
				fputc('\n', f);
			}
		}
	}
	if (nheld) {
		fprintf(f, "\n%sheld back by stable rules%s (best %d)\n", cs, ce, 10);
		for (i = 0, shown = 0; i < r->n && shown < 10; i++) {
			ss_ranking_row(&w, r, i);
			if (w.copy || !(w.flags & SS_RANK_HELD))
				continue;
			shown++;
			fprintf(f, "%5s %6.3f %-6s   %.12s  %-17s ", "-", (double)w.score, ss_band_name(w.band), w.id,
				held_reason(w.flags));
			put_field(f, w.subject);
			fputc('\n', f);
		}
	}
	ss_strbuf_release(&sb);
}

static void write_tsv(ss_ranking *r, FILE *f, int csv)
{
	ss_strbuf sb = SS_STRBUF_INIT;
	ss_rank_row w;
	size_t i;
	const char sep = csv ? ',' : '\t';

	fprintf(f, "sha%cscore%cdecision%csubject%cauthor%cflags%creasons%cband", sep, sep, sep, sep, sep,
		sep, sep);
	/* one column a branch, named for it, when there are verdicts */
	for (size_t b = 0; b < r->nbranches; b++) {
		fprintf(f, "%c", sep);
		csv ? put_csv(f, r->branch[b]) : put_field(f, r->branch[b]);
	}
	fputc('\n', f);
	for (i = 0; i < r->n; i++) {
		ss_ranking_row(&w, r, i);
		if (!w.shown)
			continue;
		fprintf(f, "%s%c%.6f%c%d%c", w.id, sep, (double)w.score, sep, w.pick, sep);
		csv ? put_csv(f, w.subject) : put_field(f, w.subject);
		fputc(sep, f);
		csv ? put_csv(f, w.author) : put_field(f, w.author);
		fputc(sep, f);
		ss_strbuf_reset(&sb);
		ss_rank_flags_text(&sb, &w, "; ");
		csv ? put_csv(f, sb.buf) : put_field(f, sb.buf);
		fputc(sep, f);
		ss_strbuf_reset(&sb);
		reasons_line(&sb, &w, 5, 0);
		csv ? put_csv(f, sb.buf) : put_field(f, sb.buf);
		fprintf(f, "%c%s", sep, ss_band_name(w.band));
		for (size_t b = 0; b < r->nbranches; b++) {
			fputc(sep, f);
			if (b < w.nverdicts)
				csv ? put_csv(f, w.verdicts[b].text) : put_field(f, w.verdicts[b].text);
		}
		fputc('\n', f);
	}
	ss_strbuf_release(&sb);
}

/* The space-separated words of s (commit ids) as a JSON array's
 * elements: "a","b". */
static int json_words(ss_strbuf *sb, const char *s)
{
	int rc = 0;

	for (const char *p = s; *p;) {
		size_t len = strcspn(p, " ");

		rc |= ss_strbuf_addf(sb, "%s\"%.*s\"", p == s ? "" : ",", (int)len, p);
		p += len + (p[len] == ' ');
	}
	return rc;
}

/* ids as a JSON array's elements (hex: nothing to escape). */
static int json_ids(ss_strbuf *sb, const ss_verdict_id *ids, size_t n)
{
	int rc = 0;

	for (size_t k = 0; k < n; k++)
		rc |= ss_strbuf_addf(sb, "%s\"%s\"", k ? "," : "", ids[k]);
	return rc;
}

static int write_json(ss_ranking *r, FILE *f, const ss_rank_write_options *o)
{
	ss_strbuf sb = SS_STRBUF_INIT;
	ss_rank_precedent pr[SS_RANK_MAX_PRECEDENTS];
	size_t i, nprec = 0;
	int rc = 0;

	for (i = 0; i < r->n && !rc; i++) {
		ss_rank_row w;
		const char *p;

		ss_ranking_row(&w, r, i);
		if (!w.shown)
			continue;
		rc |= ss_strbuf_addf(&sb, "{\"sha\":\"%s\",\"score\":%.6g,\"band\":\"%s\",\"pick\":%s,"
				     "\"subject\":", w.id, (double)w.score, ss_band_name(w.band),
				     w.pick ? "true" : "false");
		rc |= ss_strbuf_add_json(&sb, w.subject);
		rc |= ss_strbuf_adds(&sb, ",\"author\":");
		rc |= ss_strbuf_add_json(&sb, w.author);
		rc |= ss_strbuf_addf(&sb, ",\"author_time\":%lld,\"lines\":%zu,\"tagged\":%s,\"stable_hint\":",
				     (long long)w.author_time, w.lines,
				     (w.flags & SS_RANK_TAGGED) ? "true" : "false");
		rc |= ss_strbuf_add_json(&sb, w.stable_hint);
		rc |= ss_strbuf_adds(&sb, ",\"fixes\":[");
		for (p = w.fixes; *p;) {
			const char *nl = strchr(p, '\n');
			size_t len = nl ? (size_t)(nl - p) : strlen(p);
			char buf[512];

			snprintf(buf, sizeof(buf), "%.*s", (int)len, p);
			rc |= ss_strbuf_adds(&sb, p == w.fixes ? "" : ",");
			rc |= ss_strbuf_add_json(&sb, buf);
			p += len + (nl != NULL);
		}
		rc |= ss_strbuf_adds(&sb, "],\"bot\":");
		rc |= ss_strbuf_add_json(&sb, w.bot);
		rc |= ss_strbuf_adds(&sb, ",\"in_stable\":");
		rc |= ss_strbuf_add_json(&sb, w.branches);
		rc |= ss_strbuf_adds(&sb, ",\"copies\":[");
		rc |= json_words(&sb, w.copies);
		rc |= ss_strbuf_addf(&sb, "],\"too_big\":%s,\"reasons\":[",
				     (w.flags & SS_RANK_TOO_BIG) ? "true" : "false");
		for (size_t k = 0; k < w.nreasons && !rc; k++) {
			rc |= ss_strbuf_addf(&sb, "%s{\"feature\":", k ? "," : "");
			rc |= ss_strbuf_add_json(&sb, w.reasons[k].feature);
			rc |= ss_strbuf_addf(&sb, ",\"contribution\":%.4g}",
					     (double)w.reasons[k].contribution);
		}
		if (w.nverdicts) {
			rc |= ss_strbuf_adds(&sb, "],\"verdicts\":[");
			for (size_t b = 0; b < w.nverdicts; b++) {
				const ss_verdict_data *v = &w.verdicts[b];

				rc |= ss_strbuf_addf(&sb, "%s{\"branch\":", b ? "," : "");
				rc |= ss_strbuf_add_json(&sb, r->branch[b]);
				rc |= ss_strbuf_adds(&sb, ",\"verdict\":");
				rc |= ss_strbuf_add_json(&sb, v->text);
				rc |= ss_strbuf_adds(&sb, ",\"detail\":");
				rc |= ss_strbuf_add_json(&sb, v->detail);
				rc |= ss_strbuf_addf(&sb, ",\"propose\":%s,\"needs\":[",
						     v->propose ? "true" : "false");
				rc |= json_ids(&sb, v->needs, v->nneeds);
				rc |= ss_strbuf_adds(&sb, "],\"followups\":[");
				rc |= json_ids(&sb, v->followups, v->nfollowups);
				rc |= ss_strbuf_adds(&sb, "]}");
			}
		}
		rc |= ss_strbuf_adds(&sb, "],\"precedents\":[");
		if (w.pick && o->precedents && nprec < o->precedent_rows) {
			size_t max = o->precedents < SS_RANK_MAX_PRECEDENTS ? o->precedents
								     : SS_RANK_MAX_PRECEDENTS;
			size_t k, n = ss_ranking_precedents(pr, max, r, i);

			nprec++;
			for (k = 0; k < n; k++) {
				rc |= ss_strbuf_addf(&sb, "%s{\"sha\":\"%s\",\"similarity\":%.4f,\"score\":%.4f,\"in_stable\":%s,\"subject\":",
						     k ? "," : "", pr[k].id, (double)pr[k].similarity,
						     (double)pr[k].score,
						     pr[k].label < 0 ? "null" : pr[k].label ? "true" : "false");
				rc |= ss_strbuf_add_json(&sb, pr[k].subject);
				rc |= ss_strbuf_adds(&sb, "}");
			}
		}
		rc |= ss_strbuf_adds(&sb, "]}\n");
		/* keep memory flat on long rankings */
		if (sb.len > (1 << 20)) {
			fwrite(sb.buf, 1, sb.len, f);
			ss_strbuf_reset(&sb);
		}
	}
	if (!rc)
		fwrite(sb.buf, 1, sb.len, f);
	ss_strbuf_release(&sb);
	return rc ? SS_ENOMEM : 0;
}

/* Kinds of message lines escaped in the queue mbox. */
enum { ESC_FROM = 1, ESC_PATCH = 2 };

/* Would git am's mailinfo take this message line for the start of the
 * patch (its patchbreak()): "---" alone or before a file name, "diff -",
 * "Index: "?  The message would end there, its trailers after it lost
 * and what follows applied as a diff. */
static int patch_break(const char *p, size_t len)
{
	size_t i;

	if (len >= 6 && !strncmp(p, "diff -", 6))
		return 1;
	if (len >= 7 && !strncmp(p, "Index: ", 7))
		return 1;
	if (len < 3 || strncmp(p, "---", 3))
		return 0;
	if (len > 4 && p[3] == ' ' && !isspace((unsigned char)p[4]))
		return 1;
	for (i = 3; i < len; i++)
		if (!isspace((unsigned char)p[i]))
			return 0;
	return 1;
}

/*
 * The message body as git am reads it back: a line ">*From " gets one
 * more '>' (mboxrd; "From <sha> Mon Sep 17 00:00:00 2001" would start a
 * message with an author of its own: git am --patch-format=mboxrd takes
 * the '>' off again), and a line git am takes for the start of the patch
 * is indented by a space.  *escaped gets the ESC_* kinds done.
 */
static int add_message_body(ss_strbuf *sb, const char *body, size_t len, unsigned *escaped)
{
	const char *p = body, *end = body + len;
	int rc = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p), k = 0;

		while (k < n && p[k] == '>')
			k++;
		if (n - k >= 5 && !strncmp(p + k, "From ", 5)) {
			rc |= ss_strbuf_addch(sb, '>');
			*escaped |= ESC_FROM;
		} else if (patch_break(p, n)) {
			rc |= ss_strbuf_addch(sb, ' ');
			*escaped |= ESC_PATCH;
		}
		rc |= ss_strbuf_add(sb, p, n + (nl != NULL));
		p += n + (nl != NULL);
	}
	return rc;
}

/*
 * One format-patch message of row w: the backport line (a printf format
 * with one %s) opens the body, and the stablesel note goes below the
 * "---" line, where git am leaves it out of the commit.  note holds the
 * note's own lines (each "stablesel: ...\n"), may be "".  trailers (each
 * "Key: value\n", may be "") end the message, where git am keeps them.
 */
static int mbox_message(ss_strbuf *sb, ss_ranking *r, const ss_rank_row *w, const char *prefix,
			const char *backport_line, const char *note, const char *trailers)
{
	const char *name, *email, *lt;
	unsigned escaped = 0;
	int rc = 0;

	/* the author as kept: "Name <email>" */
	lt = strrchr(w->author, '<');
	name = w->author;
	email = lt ? lt : "";
	rc |= ss_strbuf_addf(sb, "From %s Mon Sep 17 00:00:00 2001\nFrom: ", w->id);
	{
		char nb[512];

		snprintf(nb, sizeof(nb), "%.*s",
			 lt ? (int)(lt - name > 0 ? lt - name - 1 : 0) : (int)strlen(name), name);
		rc |= ss_patch_header_value(sb, nb);
		if (*email)
			rc |= ss_strbuf_addf(sb, " %s", email);
	}
	rc |= ss_strbuf_adds(sb, "\nDate: ");
	rc |= ss_patch_date(sb, w->author_time, w->author_tz);
	rc |= ss_strbuf_adds(sb, "\nSubject: ");
	{
		ss_strbuf subj = SS_STRBUF_INIT;

		rc |= ss_strbuf_addf(&subj, "%s%s", prefix, w->subject);
		rc |= ss_patch_header_value(sb, subj.buf);
		ss_strbuf_release(&subj);
	}
	rc |= ss_strbuf_adds(sb, "\nMIME-Version: 1.0\nContent-Type: text/plain; charset=UTF-8\n"
			     "Content-Transfer-Encoding: 8bit\n\n");
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	rc |= ss_strbuf_addf(sb, backport_line ? backport_line : "[ Upstream commit %s ]", w->id);
#pragma GCC diagnostic pop
	rc |= ss_strbuf_adds(sb, "\n\n");
	{
		const char *body = ss_patch_message_body(w->message);
		size_t bl = strlen(body);

		while (bl && body[bl - 1] == '\n')
			bl--;
		rc |= add_message_body(sb, body, bl, &escaped);
	}
	if (*trailers) {
		rc |= ss_strbuf_adds(sb, "\n");
		rc |= ss_strbuf_add(sb, trailers, strlen(trailers) - (trailers[strlen(trailers) - 1] == '\n'));
	}
	/* below "---": git am keeps it out of the commit message */
	rc |= ss_strbuf_adds(sb, "\n---\n");
	if (!(w->flags & SS_RANK_EXTRA)) {
		ss_strbuf t = SS_STRBUF_INIT;

		rc |= ss_strbuf_addf(sb, "stablesel: score %.3f (threshold %.3f)", (double)w->score,
				     r->threshold);
		reasons_line(&t, w, 5, 1);
		if (t.len)
			rc |= ss_strbuf_addf(sb, ", because %s", t.buf);
		ss_strbuf_reset(&t);
		ss_rank_flags_text(&t, w, "; ");
		if (t.len)
			rc |= ss_strbuf_addf(sb, "\nstablesel: %s", t.buf);
		ss_strbuf_release(&t);
		rc |= ss_strbuf_adds(sb, "\n");
	}
	if (escaped & ESC_FROM)
		rc |= ss_strbuf_adds(sb, "stablesel: message lines starting \"From \" escaped as \">From \" "
				     "(mboxrd: git am --patch-format=mboxrd restores them)\n");
	if (escaped & ESC_PATCH)
		rc |= ss_strbuf_adds(sb, "stablesel: message lines git am takes for the patch's start "
				     "(\"---\", \"diff -\", \"Index: \") indented by a space\n");
	rc |= ss_strbuf_adds(sb, note);
	rc |= ss_strbuf_adds(sb, "\n");
	rc |= ss_strbuf_adds(sb, w->diff);
	rc |= ss_strbuf_adds(sb, "-- \nstablesel\n\n");
	return rc;
}

/* The picks best first, without verdicts (no stable branch named). */
static int write_mbox(ss_ranking *r, FILE *f, const ss_rank_write_options *o)
{
	ss_strbuf sb = SS_STRBUF_INIT;
	size_t i, total = 0, k = 0;
	int rc = 0;

	for (i = 0; i < r->n; i++)
		total += r->rows[i].pick && r->rows[i].diff;
	for (i = 0; i < r->n && !rc; i++) {
		ss_rank_row w;
		char prefix[160];

		ss_ranking_row(&w, r, i);
		if (!w.pick || !*w.diff)
			continue;
		k++;
		ss_strbuf_reset(&sb);
		if (o->branch)
			snprintf(prefix, sizeof(prefix), "[PATCH stablesel %s %0*zu/%zu] ", o->branch,
				 total >= 100 ? 3 : 2, k, total);
		else
			snprintf(prefix, sizeof(prefix), "[PATCH stablesel %0*zu/%zu] ",
				 total >= 100 ? 3 : 2, k, total);
		rc |= mbox_message(&sb, r, &w, prefix, o->backport_line, "", "");
		if (!rc)
			fwrite(sb.buf, 1, sb.len, f);
	}
	ss_strbuf_release(&sb);
	return rc ? SS_ENOMEM : 0;
}

/* The rows of ids[0..n) through add; ids no row has are left out. */
static int queue_ids(ss_ranking *r, ss_queue_lists *l, int (*add)(ss_queue_lists *, size_t),
		     const ss_verdict_id *ids, size_t n)
{
	size_t k;
	int rc = 0;

	for (size_t j = 0; j < n && !rc; j++)
		if ((k = ss_ranking_find(r, ids[j])) != (size_t)-1)
			rc = add(l, k);
	return rc;
}

/* What queue_row() reads: the ranking and the branch. */
struct queue_of {
	ss_ranking *r;
	size_t b;
};

/*
 * Row i as an item of branch b's queue: a pick when picked and its
 * verdict proposes it for b; it needs what its verdict names (a verdict
 * names prerequisites only when it proposes); a follow-up travels when
 * its own verdict proposes it; a prerequisite read apart (SS_RANK_EXTRA)
 * goes before the row needing it.
 */
static int queue_row(ss_queue_item *item, ss_queue_lists *l, size_t i, void *ud)
{
	const struct queue_of *q = ud;
	ss_rank_row w;
	int propose, rc;

	ss_ranking_row(&w, q->r, i);
	propose = q->b < w.nverdicts && w.verdicts[q->b].propose;
	*item = (ss_queue_item){ w.order, w.time, w.pick && propose, propose,
				 (w.flags & SS_RANK_EXTRA) != 0, NULL, 0, NULL, 0 };
	if (q->b >= w.nverdicts)
		return 0;
	if ((rc = queue_ids(q->r, l, ss_queue_need, w.verdicts[q->b].needs,
			    w.verdicts[q->b].nneeds)))
		return rc;
	return queue_ids(q->r, l, ss_queue_followup, w.verdicts[q->b].followups,
			 w.verdicts[q->b].nfollowups);
}

int ss_ranking_queue_of(ss_ranking *r, ss_queue_role *roles, size_t *queue, size_t *nqueue, size_t b)
{
	struct queue_of q = { r, b };

	return ss_queue_build_from(roles, queue, nqueue, r->n, queue_row, &q);
}

/*
 * The queue of branch o->queue_branch: the picks its verdicts propose,
 * with their prerequisites and follow-ups, in the order they were
 * committed upstream, so that git am applies them in sequence.  Subjects
 * name every branch whose queue takes the commit.
 */
static int write_queue(ss_ranking *r, FILE *f, const ss_rank_write_options *o)
{
	size_t qb = o->queue_branch, n = 0, nq = 0, k;
	ss_queue_role *roles[SS_RANK_MAX_BRANCHES] = { NULL };
	size_t *queue = malloc((r->n + 1) * sizeof(*queue));
	ss_strbuf sb = SS_STRBUF_INIT, note = SS_STRBUF_INIT, trailers = SS_STRBUF_INIT;
	int rc = 0;

	if (!queue) {
		rc = SS_ENOMEM;
		goto free_all;
	}
	if (qb >= r->nbranches) {
		rc = ss_error_code(SS_EINVALID, "no stable branch %zu for a queue", qb);
		goto free_all;
	}
	/* every branch's queue, qb's last: subjects name each branch that
	 * takes a commit */
	for (size_t b = 0; b < r->nbranches && !rc; b++)
		if (!(roles[b] = calloc(r->n + 1, sizeof(*roles[b]))))
			rc = SS_ENOMEM;
	for (size_t b = 0; b < r->nbranches && !rc; b++)
		if (b != qb)
			rc = ss_ranking_queue_of(r, roles[b], queue, &nq, b);
	if (!rc)
		rc = ss_ranking_queue_of(r, roles[qb], queue, &nq, qb);
	/* the rows with a patch to write */
	for (k = 0; k < nq && !rc; k++) {
		ss_rank_row w;

		ss_ranking_row(&w, r, queue[k]);
		if (*w.diff)
			queue[n++] = queue[k];
	}
	for (k = 0; k < n && !rc; k++) {
		size_t i = queue[k];
		ss_rank_row w;
		char prefix[300], names[200] = "";

		ss_ranking_row(&w, r, i);
		for (size_t b = 0; b < r->nbranches; b++)
			if (roles[b][i].kind) {
				size_t len = strlen(names);

				snprintf(names + len, sizeof(names) - len, "%s%s", len ? "-" : "",
					 r->branch[b]);
			}
		snprintf(prefix, sizeof(prefix), "[PATCH stablesel %s %0*zu/%zu] ", names,
			 n >= 100 ? 3 : 2, k + 1, n);
		ss_strbuf_reset(&note);
		for (size_t b = 0; b < w.nverdicts; b++) {
			const ss_verdict_data *v = &w.verdicts[b];

			rc |= ss_strbuf_addf(&note, "stablesel: %s: %s", r->branch[b], v->text);
			if (*v->detail)
				rc |= ss_strbuf_addf(&note, " (%s)", v->detail);
			rc |= ss_strbuf_adds(&note, "\n");
		}
		for (size_t b = 0; b < r->nbranches; b++) {
			const ss_queue_role *q = &roles[b][i];
			const char *ofid;

			if (q->kind != SS_QUEUE_NEEDED && q->kind != SS_QUEUE_FOLLOWUP)
				continue;
			ofid = r->rows[q->of].id;
			if (q->kind == SS_QUEUE_NEEDED)
				rc |= ss_strbuf_addf(&note, "stablesel: prerequisite of %.12s for %s; %s\n", ofid,
						     r->branch[b],
						     (w.flags & SS_RANK_EXTRA) ? "not among the ranked commits"
						     : w.pick ? "proposed on its own too"
						     : "not proposed on its own");
			else
				rc |= ss_strbuf_addf(&note, "stablesel: follow-up of %.12s for %s (fixes it)\n",
						     ofid, r->branch[b]);
		}
		if (!(w.flags & SS_RANK_EXTRA) && !w.pick)
			rc |= ss_strbuf_adds(&note, "stablesel: below the threshold: not stable material on its own\n");
		/* the kernel stable tree's line for a commit taken only because
		 * another needs it, kept in the commit by git am */
		ss_strbuf_reset(&trailers);
		if (roles[qb][i].kind == SS_QUEUE_NEEDED && roles[qb][i].of < r->n)
			rc |= ss_strbuf_addf(&trailers, "Stable-dep-of: %.12s (\"%s\")\n",
					     r->rows[roles[qb][i].of].id,
					     r->pool.buf + r->rows[roles[qb][i].of].subject);
		ss_strbuf_reset(&sb);
		rc |= mbox_message(&sb, r, &w, prefix, o->backport_line, note.buf, trailers.buf);
		if (!rc)
			fwrite(sb.buf, 1, sb.len, f);
	}
	rc = rc ? (rc < 0 ? rc : SS_ENOMEM) : 0;
free_all:
	ss_strbuf_release(&sb);
	ss_strbuf_release(&note);
	ss_strbuf_release(&trailers);
	for (size_t b = 0; b < SS_RANK_MAX_BRANCHES; b++)
		free(roles[b]);
	free(queue);
	return rc;
}

int ss_ranking_write(ss_ranking *r, FILE *f, const ss_rank_write_options *o, const ss_model *m)
{
	int rc = 0;

	if (!r->selected) {
		ss_rank_select s = SS_RANK_SELECT_INIT;

		ss_ranking_select(r, &s);
	}
	switch (o->format) {
	case SS_RANK_TSV:
		write_tsv(r, f, 0);
		break;
	case SS_RANK_CSV:
		write_tsv(r, f, 1);
		break;
	case SS_RANK_JSON:
		rc = write_json(r, f, o);
		break;
	case SS_RANK_MBOX:
		rc = r->nbranches ? write_queue(r, f, o) : write_mbox(r, f, o);
		break;
	default:
		write_text(r, f, o, m);
		break;
	}
	if (!rc && ferror(f))
		rc = ss_error_set("cannot write the ranking: %s", strerror(errno));
	return rc;
}
