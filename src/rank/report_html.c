/*
 * report_html.c - the HTML report of a ranking (see report_html.h;
 * "stablesel report" is cmd/report.c).  The page is
 * built row by row into a buffer that is flushed every megabyte, so that
 * memory stays flat on long rankings.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "eval/eval.h"
#include "features/features.h"
#include "models/metrics.h"
#include "rank/rank_impl.h"
#include "rank/report_html.h"
#include "util/error.h"

static const char css[] =
	"body{font:14px/1.4 system-ui,sans-serif;margin:1.5em auto;max-width:1100px;color:#222;padding:0 1em}"
	"h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.5em}"
	"table.sum td{padding:1px 10px 1px 0}"
	"table.rel td,table.rel th{padding:1px 8px;text-align:right}"
	"details.c{border-bottom:1px solid #e4e4e4}"
	"details.c>summary{cursor:pointer;padding:3px 0;list-style-position:outside;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}"
	"details.c[open]>summary{background:#f4f7ff}"
	".n{display:inline-block;width:3.5em;text-align:right;color:#888;margin-right:.6em}"
	".s{display:inline-block;width:3.5em;font-variant-numeric:tabular-nums}"
	".pick .s{color:#0a7a2f;font-weight:bold}"
	".v{display:inline-block;width:3.6em;font-size:11px;text-align:center;border-radius:3px;margin-right:.4em}"
	".v.yes{background:#0a7a2f;color:#fff}.v.likely{background:#bfe5c8;color:#125d2a}"
	".v.unsure{background:#f3ecc8;color:#6b5900}.v.no{color:#999}.v.wait{background:#dde6f5;color:#1f4e9c}"
	"code{font:12px/1.3 ui-monospace,monospace}"
	".f{font-size:11px;border-radius:3px;padding:0 4px;margin-left:4px;background:#eee;color:#444}"
	".f.t{background:#dff3e4;color:#125d2a}.f.x{background:#e6eefc;color:#1f4e9c}"
	".f.b{background:#fdf0d8;color:#7a4b00}.f.st{background:#e8e0f7;color:#4d2d8a}"
	".f.big{background:#fde2e2;color:#8a1f1f}.f.r{background:#1f4e9c;color:#fff}"
	"table.q td,table.q th{padding:1px 8px;text-align:left}"
	".d{padding:.3em 0 .8em 4.5em}"
	"table.why td{padding:0 8px 0 0}table.why td:first-child{font:12px ui-monospace,monospace}"
	"table.why i{display:inline-block;height:9px;background:#6a9be6}"
	"pre{background:#f8f8f8;border:1px solid #e4e4e4;padding:6px;overflow:auto;font:12px/1.35 ui-monospace,monospace;white-space:pre}"
	"pre.diff .a{color:#116329;background:#e9f7ec}pre.diff .r{color:#82071e;background:#fbe9eb}"
	"pre.diff .h{color:#6f42c1}pre.diff .fh{font-weight:bold}"
	".cut,.muted{color:#888;font-size:12px}"
	"#bar{position:sticky;top:0;background:#fff;padding:6px 0;border-bottom:1px solid #ccc;z-index:1}"
	"svg text{font-size:11px;fill:#444}";

static const char js[] =
	"(function(){\n"
	"function colour(d){var p=d.querySelector('pre.diff');if(!p||p.getAttribute('data-done'))return;"
	"p.setAttribute('data-done','1');var lines=p.textContent.split('\\n'),f=document.createDocumentFragment();"
	"lines.forEach(function(l,i){var c='';if(/^(diff |\\+\\+\\+ |--- )/.test(l))c='fh';else if(l[0]=='+')c='a';"
	"else if(l[0]=='-')c='r';else if(l.slice(0,2)=='@@')c='h';var s=document.createElement('span');"
	"if(c)s.className=c;s.textContent=l+(i<lines.length-1?'\\n':'');f.appendChild(s);});"
	"p.textContent='';p.appendChild(f);}\n"
	"document.addEventListener('toggle',function(e){if(e.target.open)colour(e.target);},true);\n"
	"var q=document.getElementById('q'),po=document.getElementById('po');\n"
	"function filter(){var v=q.value.toLowerCase(),only=po.checked,k=0;"
	"document.querySelectorAll('details.c').forEach(function(d){var ok=(!only||d.classList.contains('pick'))&&"
	"(!v||d.querySelector('summary').textContent.toLowerCase().indexOf(v)>=0);d.style.display=ok?'':'none';k+=ok;});"
	"document.getElementById('cnt').textContent=k+' shown';}\n"
	"q.addEventListener('input',filter);po.addEventListener('change',filter);\n"
	"function openHash(){var m=/^#open=([0-9a-fA-F]{4,40})(&noscroll)?$/.exec(location.hash);if(!m)return;"
	"var d=document.querySelector('details[id^=\"c-'+m[1].toLowerCase()+'\"]');if(!d)return;"
	"if(!d.open)d.querySelector('summary').click();colour(d);"
	"if(!m[2]&&d.getBoundingClientRect().top>window.innerHeight*0.6){d.scrollIntoView();window.scrollBy(0,-50);}"
	"document.body.setAttribute('data-opened',d.id.slice(2));}\n"
	"window.addEventListener('hashchange',openHash);openHash();\n"
	"})();\n";

int ss_html_escape(ss_strbuf *sb, const char *s, size_t len)
{
	size_t i, run = 0;
	int rc = 0;

	for (i = 0; i < len && !rc; i++) {
		const char *e = NULL;

		switch (s[i]) {
		case '&': e = "&amp;"; break;
		case '<': e = "&lt;"; break;
		case '>': e = "&gt;"; break;
		case '"': e = "&quot;"; break;
		case '\'': e = "&#39;"; break;
		default: break;
		}
		if (!e)
			continue;
		rc |= ss_strbuf_add(sb, s + run, i - run);
		rc |= ss_strbuf_adds(sb, e);
		run = i + 1;
	}
	rc |= ss_strbuf_add(sb, s + run, len - run);
	return rc ? SS_ENOMEM : 0;
}

static int esc(ss_strbuf *sb, const char *s)
{
	return ss_html_escape(sb, s, strlen(s));
}

static int flush(ss_strbuf *sb, FILE *f, int force)
{
	if (sb->len > (1u << 20) || force) {
		if (fwrite(sb->buf, 1, sb->len, f) != sb->len)
			return ss_error_set("cannot write the report: %s", strerror(errno));
		ss_strbuf_reset(sb);
	}
	return 0;
}

/*
 * Is row w's fate in stable settled: it reached stable, or a labels file
 * (--labels) says it did not.  A 0 from a stable tree or the index (not
 * carried yet) is no negative: a commit of the ranked range is still
 * undecided, and "0.000 of them reached stable" said nothing but alarm.
 */
static int settled(const ss_ranking *r, const ss_rank_row *w)
{
	return w->label > 0 || (w->label == 0 && r->opts.labels);
}

/*
 * The scores and labels of the settled rows, copies of a listed patch
 * left out (they are one commit to the reviewer): *k of them in *score
 * and *label, malloc'd.  0 or SS_ENOMEM.
 */
static int labelled_rows(float **score, uint8_t **label, size_t *k, ss_ranking *r)
{
	size_t n = ss_ranking_count(r), i;

	*k = 0;
	*score = malloc((n ? n : 1) * sizeof(**score));
	*label = malloc(n ? n : 1);
	if (!*score || !*label) {
		free(*score);
		free(*label);
		return SS_ENOMEM;
	}
	for (i = 0; i < n; i++) {
		ss_rank_row w;

		ss_ranking_row(&w, r, i);
		if (!settled(r, &w) || w.copy)
			continue;
		(*score)[*k] = w.score;
		(*label)[(*k)++] = (uint8_t)w.label;
	}
	return 0;
}

/* Precision-recall curve over the labelled rows, best score first, ties
 * taken as a whole; the point at the threshold is marked. */
static int pr_curve(ss_strbuf *sb, ss_ranking *r)
{
	size_t i, k, npos = 0, tp = 0, fp = 0;
	double thr = ss_ranking_threshold(r), tx = -1, ty = -1;
	float *score;
	uint8_t *label;
	ss_metrics mt;
	int rc;
	const int W = 420, H = 300, L = 45, B = 35;

	if ((rc = labelled_rows(&score, &label, &k, r)))
		return rc;
	for (i = 0; i < k; i++)
		npos += label[i];
	if (!k || !npos || npos == k) {
		free(score);
		free(label);
		return ss_strbuf_adds(sb, "<p class=muted>no curve: it needs settled commits of both kinds, "
				      "some that reached stable and some a labels file (--labels) says did not "
				      "(a commit stable has not taken yet is still undecided)</p>\n");
	}
	if ((rc = ss_metrics_compute(&mt, score, label, k, (float)thr)))
		goto free_all;
	rc |= ss_strbuf_addf(sb, "<p>%zu settled commits, %zu positive; average precision %.3f, ROC AUC %.3f; "
			     "at the threshold %.3f: precision %.3f, recall %.3f (%zu picks)</p>\n",
			     k, npos, mt.pr_auc, mt.roc_auc, thr, mt.precision, mt.recall, mt.tp + mt.fp);
	rc |= ss_strbuf_addf(sb, "<svg id='pr' width='%d' height='%d' "
			     "role='img' aria-label='precision-recall curve'>", W + L + 25, H + B + 10);
	rc |= ss_strbuf_addf(sb, "<rect x='%d' y='5' width='%d' height='%d' fill='none' stroke='#999'/>", L, W, H);
	for (i = 0; i <= 4; i++) {
		rc |= ss_strbuf_addf(sb, "<text x='%d' y='%d' text-anchor='end'>%.2f</text>", L - 4,
				     5 + H - (int)(i * H / 4) + 4, i / 4.0);
		rc |= ss_strbuf_addf(sb, "<text x='%d' y='%d' text-anchor='middle'>%.2f</text>",
				     L + (int)(i * W / 4), H + 22, i / 4.0);
	}
	rc |= ss_strbuf_addf(sb, "<text x='%d' y='%d' text-anchor='middle'>recall</text>", L + W / 2, H + B + 5);
	rc |= ss_strbuf_addf(sb, "<text x='12' y='%d' transform='rotate(-90 12 %d)' text-anchor='middle'>precision</text>",
			     5 + H / 2, 5 + H / 2);
	rc |= ss_strbuf_adds(sb, "<polyline fill='none' stroke='#2b6cd4' stroke-width='1.5' points='");
	/* rows are sorted by score: walk them, one point per distinct score */
	for (i = 0; i < k; i++) {
		tp += label[i];
		fp += !label[i];
		if (i + 1 < k && score[i + 1] == score[i])
			continue;
		{
			double rec = (double)tp / (double)npos, prec = (double)tp / (double)(tp + fp);

			rc |= ss_strbuf_addf(sb, "%.1f,%.1f ", L + rec * W, 5 + H - prec * H);
			if (score[i] >= thr) {
				tx = L + rec * W;
				ty = 5 + H - prec * H;
			}
		}
	}
	rc |= ss_strbuf_adds(sb, "'/>");
	if (tx >= 0)
		rc |= ss_strbuf_addf(sb, "<circle cx='%.1f' cy='%.1f' r='4' fill='#d43b2b'><title>threshold %.3f</title></circle>",
				     tx, ty, thr);
	rc |= ss_strbuf_adds(sb, "</svg>\n");
free_all:
	free(score);
	free(label);
	return rc ? SS_ENOMEM : 0;
}

/* How far the scores are probabilities, over the labelled rows: the
 * expected calibration error, the proposed picks' mean score against the
 * fraction of them that reached stable, and the reliability table. */
static int calibration(ss_strbuf *sb, ss_ranking *r)
{
	size_t n = ss_ranking_count(r), i, k, npick = 0, pickpos = 0;
	double picksum = 0;
	ss_reliability rel;
	float *score;
	uint8_t *label;
	int b, rc;

	if ((rc = labelled_rows(&score, &label, &k, r)))
		return rc;
	for (i = 0; i < n; i++) {
		ss_rank_row w;

		ss_ranking_row(&w, r, i);
		if (!settled(r, &w))
			continue;
		if (w.pick) {
			npick++;
			picksum += w.score;
			pickpos += (size_t)w.label;
		}
	}
	for (i = 0, b = 0; i < k; i++)
		b += !label[i];
	if (!k || !b) {
		rc = ss_strbuf_adds(sb, "<p class=muted>no calibration: it needs settled commits, some a "
				    "labels file (--labels) says did not reach stable (a commit stable has not "
				    "taken yet is still undecided)</p>\n");
		goto free_all;
	}
	ss_metrics_reliability(&rel, score, label, k);
	rc |= ss_strbuf_addf(sb, "<p>Scores are probabilities of reaching stable; on the %zu settled commits "
			     "the expected calibration error (10 equal-width bins) is %.3f", k, rel.ece);
	if (npick)
		rc |= ss_strbuf_addf(sb, "; the %zu settled proposed commits score %.3f on average, and %.3f of "
				     "them reached stable", npick, picksum / (double)npick,
				     (double)pickpos / (double)npick);
	rc |= ss_strbuf_adds(sb, ".</p>\n<table class=rel><tr><th>score</th><th>commits</th>"
			     "<th>mean score</th><th>reached stable</th></tr>");
	for (b = 0; b < SS_CALIB_BINS; b++) {
		rc |= ss_strbuf_addf(sb, "<tr><td>%.1f-%.1f</td><td>%zu</td>", (double)b / SS_CALIB_BINS,
				     (double)(b + 1) / SS_CALIB_BINS, rel.count[b]);
		if (rel.count[b])
			rc |= ss_strbuf_addf(sb, "<td>%.3f</td><td>%.3f</td></tr>", rel.mean_score[b],
					     rel.frac_pos[b]);
		else
			rc |= ss_strbuf_adds(sb, "<td>-</td><td>-</td></tr>");
	}
	rc |= ss_strbuf_adds(sb, "</table>\n");
free_all:
	free(score);
	free(label);
	return rc ? SS_ENOMEM : 0;
}

/* The listed rows per verdict band, with the fraction of the labelled ones
 * that reached stable. */
static int bands_table(ss_strbuf *sb, ss_ranking *r)
{
	static const ss_band order[] = { SS_BAND_YES, SS_BAND_LIKELY, SS_BAND_UNSURE, SS_BAND_NO,
					 SS_BAND_WAIT };
	size_t n = ss_ranking_count(r), cnt[SS_BAND_WAIT + 1] = { 0 }, lab[SS_BAND_WAIT + 1] = { 0 };
	size_t pos[SS_BAND_WAIT + 1] = { 0 }, i, k;
	const ss_bands *b = ss_ranking_bands(r);
	int rc = 0;

	for (i = 0; i < n; i++) {
		ss_rank_row w;

		ss_ranking_row(&w, r, i);
		if (!w.shown)
			continue;
		cnt[w.band]++;
		if (settled(r, &w)) {
			lab[w.band]++;
			pos[w.band] += (size_t)w.label;
		}
	}
	rc |= ss_strbuf_adds(sb, "<table class=rel><tr><th>band</th><th>probability</th><th>listed</th>"
			     "<th>settled</th><th>reached stable</th></tr>");
	for (k = 0; k < sizeof(order) / sizeof(order[0]); k++) {
		ss_band v = order[k];

		rc |= ss_strbuf_addf(sb, "<tr><td><span class='v %s'>%s</span></td><td>", ss_band_name(v),
				     ss_band_name(v));
		if (v == SS_BAND_YES && b->yes > 1)
			rc |= ss_strbuf_adds(sb, "none (not calibrated)");
		else if (v == SS_BAND_YES)
			rc |= ss_strbuf_addf(sb, "&ge; %.3f", b->yes);
		else if (v == SS_BAND_LIKELY)
			rc |= ss_strbuf_addf(sb, "%.3f-%.3f", b->likely, b->yes > 1 ? 1.0 : b->yes);
		else if (v == SS_BAND_UNSURE)
			rc |= ss_strbuf_addf(sb, "%.3f-%.3f", b->unsure, b->likely);
		else if (v == SS_BAND_NO)
			rc |= ss_strbuf_addf(sb, "&lt; %.3f", b->unsure);
		else
			rc |= ss_strbuf_addf(sb, "&ge; %.3f, not yet", b->unsure);
		rc |= ss_strbuf_addf(sb, "</td><td>%zu</td><td>%zu</td>", cnt[v], lab[v]);
		if (lab[v])
			rc |= ss_strbuf_addf(sb, "<td>%.3f</td></tr>", (double)pos[v] / (double)lab[v]);
		else
			rc |= ss_strbuf_adds(sb, "<td>-</td></tr>");
	}
	rc |= ss_strbuf_adds(sb, "</table>\n");
	return rc ? SS_ENOMEM : 0;
}

/*
 * Each branch's queue first, as git am applies it (the mbox's,
 * ss_ranking_queue_of): each commit with its score, band, why it is there
 * (a pick, the prerequisite or follow-up of which), its verdict and the
 * maintainer's decisions; its id links to its row of the list.
 */
static int branch_queues(ss_strbuf *sb, ss_ranking *r)
{
	size_t n = ss_ranking_count(r), nq = 0;
	ss_queue_role *roles = calloc(n + 1, sizeof(*roles));
	size_t *queue = calloc(n + 1, sizeof(*queue));
	int rc = 0;

	if (!roles || !queue) {
		rc = SS_ENOMEM;
		goto free_all;
	}
	for (size_t b = 0; b < r->nbranches && !rc; b++) {
		size_t kind[4] = { 0 };

		if ((rc = ss_ranking_queue_of(r, roles, queue, &nq, b)))
			break;
		for (size_t k = 0; k < nq; k++)
			kind[roles[queue[k]].kind]++;
		rc |= ss_strbuf_adds(sb, "<h2>Queue for ");
		rc |= esc(sb, r->branch[b]);
		rc |= ss_strbuf_addf(sb, "</h2>\n<p>%zu commits in the order <code>git am</code> applies "
				     "them: %zu picks, %zu prerequisites, %zu follow-ups.</p>\n", nq,
				     kind[SS_QUEUE_PICK], kind[SS_QUEUE_NEEDED], kind[SS_QUEUE_FOLLOWUP]);
		if (!nq)
			continue;
		rc |= ss_strbuf_adds(sb, "<table class=q><tr><th>#</th><th>score</th><th>band</th><th>commit</th>"
				     "<th>subject</th><th>why</th><th>verdict</th><th>decisions</th></tr>\n");
		for (size_t k = 0; k < nq; k++) {
			const ss_queue_role *q = &roles[queue[k]];
			ss_rank_row w;

			ss_ranking_row(&w, r, queue[k]);
			rc |= ss_strbuf_addf(sb, "<tr><td>%zu</td><td>", k + 1);
			if (w.flags & SS_RANK_EXTRA)
				rc |= ss_strbuf_adds(sb, "-</td><td>-");
			else
				rc |= ss_strbuf_addf(sb, "%.3f</td><td><span class='v %s'>%s</span>", (double)w.score,
						     ss_band_name(w.band), ss_band_name(w.band));
			rc |= ss_strbuf_addf(sb, "</td><td><a href='#open=%.12s'><code>%.12s</code></a></td><td>",
					     w.id, w.id);
			rc |= esc(sb, w.subject);
			rc |= ss_strbuf_adds(sb, "</td><td>");
			if (q->kind == SS_QUEUE_PICK)
				rc |= ss_strbuf_adds(sb, "pick");
			else
				rc |= ss_strbuf_addf(sb, "%s of <code>%.12s</code>",
						     q->kind == SS_QUEUE_NEEDED ? "prerequisite" : "follow-up",
						     q->of < n ? r->rows[q->of].id : "?");
			rc |= ss_strbuf_adds(sb, "</td><td>");
			if (b < w.nverdicts)
				rc |= esc(sb, w.verdicts[b].text);
			rc |= ss_strbuf_adds(sb, "</td><td>");
			rc |= esc(sb, w.review);
			rc |= ss_strbuf_adds(sb, "</td></tr>\n");
		}
		rc |= ss_strbuf_adds(sb, "</table>\n");
	}
free_all:
	free(roles);
	free(queue);
	return rc ? (rc < 0 ? rc : SS_ENOMEM) : 0;
}

static int summary(ss_strbuf *sb, const ss_model *m)
{
	const ss_model_info *in;
	char a[16], b[16];
	int rc = 0;

	if (!m)
		return 0;
	in = ss_model_info_of(m);
	ss_format_date(a, in->first);
	ss_format_date(b, in->last);
	rc |= ss_strbuf_adds(sb, "<table class=sum>");
	rc |= ss_strbuf_addf(sb, "<tr><td>model</td><td>%s (", ss_model_kind_name(ss_model_get_kind(m)));
	rc |= esc(sb, in->params);
	rc |= ss_strbuf_addf(sb, ")</td></tr><tr><td>trained on</td><td>%llu commits (%llu positive), %s..%s, "
			     "stable tags %s</td></tr>", (unsigned long long)in->n,
			     (unsigned long long)in->npos, a, b, in->masked ? "masked" : "not masked");
	rc |= ss_strbuf_adds(sb, "<tr><td>sources</td><td>");
	rc |= esc(sb, in->source);
	rc |= ss_strbuf_adds(sb, "</td></tr><tr><td>labels</td><td>");
	rc |= esc(sb, in->labels);
	rc |= ss_strbuf_addf(sb, "</td></tr><tr><td>validation</td><td>%llu commits: precision %.3f, recall %.3f, "
			     "F1 %.3f, average precision %.3f, ROC AUC %.3f</td></tr>",
			     (unsigned long long)in->nval, in->val_precision, in->val_recall, in->val_f1,
			     in->val_pr_auc, in->val_roc_auc);
	if (ss_model_calibration(m)->method == SS_CALIB_PLATT)
		rc |= ss_strbuf_addf(sb, "<tr><td>calibration</td><td>sigmoid(%.4f logit(raw score) %+.4f), "
				     "fitted on the validation commits</td></tr>", ss_model_calibration(m)->a,
				     ss_model_calibration(m)->b);
	else
		rc |= ss_strbuf_adds(sb, "<tr><td>calibration</td><td>none: scores are the model's own</td></tr>");
	rc |= ss_strbuf_addf(sb, "<tr><td>bands</td><td>yes &ge; %.3f, likely &ge; %.3f, unsure &ge; %.3f "
			     "(chosen on the validation commits)</td></tr>", ss_model_bands(m)->yes,
			     ss_model_bands(m)->likely, ss_model_bands(m)->unsure);
	rc |= ss_strbuf_adds(sb, "</table>\n");
	return rc ? SS_ENOMEM : 0;
}

static int row_html(ss_strbuf *sb, ss_ranking *r, size_t i, size_t rank, int with_diff,
		    int with_prec, const ss_report_options *o)
{
	ss_rank_precedent pr[8];
	ss_rank_row w;
	ss_strbuf t = SS_STRBUF_INIT;
	char date[16];
	float maxc = 0;
	int rc = 0;

	ss_ranking_row(&w, r, i);
	rc |= ss_strbuf_addf(sb, "<details class='c%s' id='c-%s'><summary><span class=n>%zu</span>"
			     "<span class=s>%.3f</span><span class='v %s'>%s</span><code>%.12s</code> ",
			     w.pick ? " pick" : "", w.id, rank, (double)w.score, ss_band_name(w.band),
			     ss_band_name(w.band), w.id);
	rc |= esc(sb, w.subject);
	if (w.flags & SS_RANK_TAGGED) {
		rc |= ss_strbuf_adds(sb, "<span class='f t'>tagged");
		if (*w.stable_hint) {
			rc |= ss_strbuf_addch(sb, ' ');
			rc |= esc(sb, w.stable_hint);
		}
		rc |= ss_strbuf_adds(sb, "</span>");
	}
	if (*w.review) {
		/* the maintainer's decisions, where the eye is: "accepted 21.11" */
		rc |= ss_strbuf_adds(sb, "<span class='f r'>");
		rc |= esc(sb, w.review);
		rc |= ss_strbuf_adds(sb, "</span>");
	}
	if (w.flags & SS_RANK_FIXES)
		rc |= ss_strbuf_adds(sb, "<span class='f x'>Fixes</span>");
	if (w.flags & SS_RANK_BOT) {
		rc |= ss_strbuf_adds(sb, "<span class='f b'>");
		rc |= esc(sb, w.bot);
		rc |= ss_strbuf_adds(sb, "</span>");
	}
	if (w.flags & SS_RANK_IN_STABLE)
		rc |= ss_strbuf_adds(sb, "<span class='f st'>in stable</span>");
	if (w.flags & SS_RANK_TOO_BIG)
		rc |= ss_strbuf_addf(sb, "<span class='f big'>%zu lines</span>", w.lines);
	/* the verdict per stable branch (rank --onto) */
	for (size_t b = 0; b < w.nverdicts; b++) {
		rc |= ss_strbuf_addf(sb, "<span class='f %s'>", w.verdicts[b].propose ? "st" : "v");
		rc |= esc(sb, ss_ranking_branch(r, b));
		rc |= ss_strbuf_adds(sb, ": ");
		rc |= esc(sb, w.verdicts[b].text);
		rc |= ss_strbuf_adds(sb, "</span>");
	}
	rc |= ss_strbuf_adds(sb, "</summary><div class=d><p class=meta>");
	ss_format_date(date, w.author_time);
	rc |= esc(sb, w.author);
	rc |= ss_strbuf_addf(sb, ", %s &middot; <code>%s</code> &middot; %zu lines changed%s</p>\n", date, w.id,
			     w.lines, w.pick ? " &middot; <b>proposed</b>" : "");
	ss_rank_flags_text(&t, &w, "; ");
	if (t.len) {
		rc |= ss_strbuf_adds(sb, "<p class=flags>");
		rc |= esc(sb, t.buf);
		rc |= ss_strbuf_adds(sb, "</p>\n");
	}
	ss_strbuf_release(&t);
	for (size_t b = 0; b < w.nverdicts; b++) {
		rc |= ss_strbuf_adds(sb, "<p class=flags>");
		rc |= esc(sb, ss_ranking_branch(r, b));
		rc |= ss_strbuf_adds(sb, ": ");
		rc |= esc(sb, w.verdicts[b].text);
		if (*w.verdicts[b].detail) {
			rc |= ss_strbuf_adds(sb, " (");
			rc |= esc(sb, w.verdicts[b].detail);
			rc |= ss_strbuf_adds(sb, ")");
		}
		rc |= ss_strbuf_adds(sb, "</p>\n");
	}
	if (w.nreasons) {
		ss_strbuf words = SS_STRBUF_INIT;  /* a reason in words; the short name is its title */

		for (size_t k = 0; k < w.nreasons; k++)
			if (w.reasons[k].contribution > maxc)
				maxc = w.reasons[k].contribution;
		rc |= ss_strbuf_adds(sb, "<table class=why><tr><th align=left>raised the score most</th><th>logit</th><th></th></tr>");
		for (size_t k = 0; k < w.nreasons; k++) {
			float c = w.reasons[k].contribution;

			/* end tags omitted (HTML allows it): 15,000 rows of reasons */
			rc |= ss_strbuf_adds(sb, "<tr><td title=\"");
			rc |= esc(sb, w.reasons[k].feature);
			rc |= ss_strbuf_adds(sb, "\">");
			ss_strbuf_reset(&words);
			rc |= ss_feat_name_words(&words, w.reasons[k].feature);
			rc |= esc(sb, words.buf);
			rc |= ss_strbuf_addf(sb, "<td>%+.3f<td><i style=width:%dpx></i>",
					     (double)c, maxc > 0 && c > 0 ? (int)(120 * c / maxc) : 0);
		}
		rc |= ss_strbuf_adds(sb, "</table>\n");
		ss_strbuf_release(&words);
	}
	if (with_prec) {
		size_t k, n = ss_ranking_precedents(pr, o->precedents < 8 ? o->precedents : 8, r, i);

		if (n)
			rc |= ss_strbuf_adds(sb, "<p>most similar earlier commits:</p><ul class=prec>");
		for (k = 0; k < n; k++) {
			rc |= ss_strbuf_addf(sb, "<li><code>%.12s</code> %.2f ", pr[k].id, (double)pr[k].similarity);
			if (pr[k].label >= 0)
				rc |= ss_strbuf_addf(sb, "<b>%s</b> ", pr[k].label ? "reached stable" : "not in stable");
			else
				rc |= ss_strbuf_addf(sb, "(score %.3f) ", (double)pr[k].score);
			rc |= esc(sb, pr[k].subject);
			rc |= ss_strbuf_adds(sb, "</li>");
		}
		if (n)
			rc |= ss_strbuf_adds(sb, "</ul>\n");
	}
	if (with_diff) {
		rc |= ss_strbuf_adds(sb, "<pre class=msg>");
		rc |= esc(sb, w.message);
		rc |= ss_strbuf_adds(sb, "</pre>\n");
	}
	if (with_diff && *w.diff) {
		rc |= ss_strbuf_adds(sb, "<pre class=diff>");
		rc |= esc(sb, w.diff);
		rc |= ss_strbuf_adds(sb, "</pre>\n");
		if (w.diff_cut)
			rc |= ss_strbuf_addf(sb, "<p class=cut>diff capped: %zu more lines left out "
					     "(stablesel rank --format mbox has it whole)</p>\n", w.diff_cut);
	} else if (!with_diff) {
		rc |= ss_strbuf_addf(sb, "<p class=cut>message and diff left out below rank %zu "
				     "(stablesel report --diffs N)</p>\n", o->diffs);
	}
	rc |= ss_strbuf_adds(sb, "</div></details>\n");
	return rc ? SS_ENOMEM : 0;
}

int ss_report_write(FILE *f, ss_ranking *r, const ss_model *m, const ss_report_options *o)
{
	ss_strbuf sb = SS_STRBUF_INIT;
	size_t i, n = ss_ranking_count(r), shown = 0, picks = 0, held = 0, rank = 0, nprec = 0;
	char now[16];
	int rc = 0;

	for (i = 0; i < n; i++) {
		ss_rank_row w;

		ss_ranking_row(&w, r, i);
		shown += w.shown;
		picks += w.pick;
		held += !w.copy && (w.flags & SS_RANK_HELD) != 0;
	}
	ss_format_date(now, ss_ranking_now(r));
	rc |= ss_strbuf_adds(&sb, "<!DOCTYPE html>\n<html lang=en><head><meta charset='utf-8'>"
			     "<meta name=viewport content='width=device-width'><title>");
	rc |= esc(&sb, o->title);
	rc |= ss_strbuf_addf(&sb, "</title><style>%s</style></head>\n<body>\n<h1>", css);
	rc |= esc(&sb, o->title);
	rc |= ss_strbuf_adds(&sb, "</h1>\n");
	if (o->sources) {
		rc |= ss_strbuf_adds(&sb, "<p>ranked: ");
		rc |= esc(&sb, o->sources);
		rc |= ss_strbuf_adds(&sb, "</p>\n");
	}
	rc |= ss_strbuf_addf(&sb, "<p>%zu commits (newest %s), threshold %.4f: %zu above it, %zu listed, %zu proposed, "
			     "%zu held back by stable rules.</p>\n", n, now, ss_ranking_threshold(r),
			     ss_ranking_picks(r), shown, picks, held);
	/* what a maintainer acts on first: each branch's queue, then the
	 * candidates; the model's metrics below them */
	if (!rc)
		rc = branch_queues(&sb, r);
	rc |= ss_strbuf_addf(&sb, "<h2>Ranked commits</h2>\n<div id=bar><input id=q type=search placeholder='filter: subject, sha, flag' size=40> "
			     "<label><input id=po type=checkbox> proposed only</label> <span id=cnt class=muted>%zu shown</span></div>\n",
			     shown);
	for (i = 0; i < n && !rc; i++) {
		ss_rank_row w;
		int with_prec;

		ss_ranking_row(&w, r, i);
		if (!w.shown)
			continue;
		rank++;
		with_prec = w.pick && o->precedents && nprec < o->precedent_rows;
		nprec += with_prec;
		rc = row_html(&sb, r, i, rank, !o->diffs || rank <= o->diffs, with_prec, o);
		if (!rc)
			rc = flush(&sb, f, 0);
	}
	if (held && !rc) {
		rc |= ss_strbuf_adds(&sb, "<h2>Held back by stable rules</h2>\n<table>");
		for (i = 0; i < n && !rc; i++) {
			ss_rank_row w;

			ss_ranking_row(&w, r, i);
			if (w.copy || !(w.flags & SS_RANK_HELD))
				continue;
			rc |= ss_strbuf_addf(&sb, "<tr><td>%.3f</td><td><code>%.12s</code></td><td>%s</td><td>",
					     (double)w.score, w.id,
					     (w.flags & SS_RANK_NOAUTOSEL) ? "stable+noautosel" : "policy");
			rc |= esc(&sb, w.subject);
			rc |= ss_strbuf_adds(&sb, "</td></tr>\n");
			if (!rc)
				rc = flush(&sb, f, 0);
		}
		rc |= ss_strbuf_adds(&sb, "</table>\n");
	}
	if (!rc) {
		rc |= ss_strbuf_adds(&sb, "<h2>Model</h2>\n");
		rc |= summary(&sb, m);
		rc |= ss_strbuf_adds(&sb, "<h2>Precision and recall</h2>\n");
		rc |= pr_curve(&sb, r);
		rc |= ss_strbuf_adds(&sb, "<h2>Calibration</h2>\n");
		rc |= calibration(&sb, r);
		rc |= ss_strbuf_adds(&sb, "<h2>Verdict bands</h2>\n");
		rc |= bands_table(&sb, r);
	}
	if (!rc)
		rc = ss_strbuf_addf(&sb, "<script>%s</script>\n</body></html>\n", js) ? SS_ENOMEM : 0;
	if (!rc)
		rc = flush(&sb, f, 1);
	ss_strbuf_release(&sb);
	if (rc == SS_ENOMEM)
		ss_error_set("out of memory writing the report");
	return rc;
}
