/*
 * ranking.c - rows of a ranking: scoring, reasons, flags, kernel rules,
 * selection and precedents (see rank.h).  Strings live in one growing
 * pool and rows refer to offsets; feature vectors of every commit read
 * (history included) live in two flat arrays for the precedent search.
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "history/histidx.h"
#include "models/patchnet_net.h"
#include "commit/patch.h"
#include "commit/patchid.h"
#include "eval/lopo.h"
#include "rank/rank.h"
#include "rank/rank_impl.h"
#include "util/error.h"
#include "util/grow.h"
#include "util/u64map.h"

static int pool_add(ss_ranking *r, size_t *off, const char *s, size_t len)
{
	if (!len) {
		*off = 0;
		return 0;
	}
	*off = r->pool.len;
	if (ss_strbuf_add(&r->pool, s, len) || ss_strbuf_addch(&r->pool, '\0'))
		return SS_ENOMEM;
	return 0;
}

static int pool_adds(ss_ranking *r, size_t *off, const char *s)
{
	return pool_add(r, off, s ? s : "", s ? strlen(s) : 0);
}

int ss_ranking_new(ss_ranking **out, const ss_model *m, const ss_ranker_options *o)
{
	ss_ranker_options def = SS_RANKER_OPTIONS_INIT;
	ss_ranking *r = calloc(1, sizeof(*r));

	*out = NULL;
	if (!r)
		return SS_ENOMEM;
	r->opts = o ? *o : def;
	if (r->opts.nreasons > SS_RANK_MAX_REASONS)
		r->opts.nreasons = SS_RANK_MAX_REASONS;
	r->m = m;
	r->threshold = r->opts.threshold >= 0 ? r->opts.threshold
			: m ? (double)ss_model_threshold(m) : 0.5;
	if (m)
		r->bands = *ss_model_bands(m);
	else
		ss_bands_from_threshold(&r->bands, (float)r->threshold);
	if (r->opts.threshold >= 0)
		ss_bands_set_likely(&r->bands, r->threshold);
	r->feat = m && r->opts.precedents ? ss_model_featurizer(m) : NULL;
	r->pool = (ss_strbuf)SS_STRBUF_INIT;
	r->sel = (ss_rank_select)SS_RANK_SELECT_INIT;
	ss_svec_init(&r->vec);
	/* offset 0 is the empty string */
	if (ss_strbuf_addch(&r->pool, '\0') || ss_histidx_new(&r->idx) ||
	    !(r->arena = ss_arena_new(1 << 16))) {
		ss_ranking_free(r);
		return SS_ENOMEM;
	}
	*out = r;
	return 0;
}

void ss_ranking_free(ss_ranking *r)
{
	if (!r)
		return;
	free(r->rows);
	free(r->prec);
	free(r->vidx);
	free(r->vval);
	ss_svec_release(&r->vec);
	ss_histidx_free(r->idx);
	ss_strbuf_release(&r->pool);
	ss_arena_free(r->arena);
	for (size_t b = 0; b < r->nbranches; b++)
		free(r->branch[b]);
	free(r->vdata);
	free(r->vids);
	free(r);
}

static int grow_rows(ss_ranking *r)
{
	if (SS_GROW(r->rows, r->n + 1, r->cap))
		return SS_ENOMEM;
	memset(&r->rows[r->n], 0, sizeof(r->rows[r->n]));
	r->rows[r->n].vd = (size_t)-1;
	return 0;
}

/* Remember c as a precedent candidate: id, subject, score, unit vector. */
static int add_precedent(ss_ranking *r, const ss_commit *c, float score, const ss_history *hist,
			 uint64_t patch, size_t *out)
{
	struct ss_rank_prec *p;
	double norm = 0;
	size_t i;
	int rc;

	if (SS_GROW(r->prec, r->nprec + 1, r->pcap))
		return SS_ENOMEM;
	p = &r->prec[r->nprec];
	memcpy(p->id, c->id, sizeof(p->id));
	p->id[40] = '\0';
	p->score = score;
	p->patch = patch;
	p->change = ss_commit_change_key(c);
	p->voff = r->vn;
	p->vlen = 0;
	p->settled = 0;
	if ((rc = pool_adds(r, &p->subject, c->subject)))
		return rc;
	if (r->feat) {
		if ((rc = ss_featurizer_vector(&r->vec, r->feat, c, hist, NULL)))
			return rc;
		if (r->vn + r->vec.n > r->vcap) {
			size_t cap = ss_grow_cap(r->vcap, r->vn + r->vec.n);

			if (ss_grow_to(&r->vidx, cap, sizeof(*r->vidx)) ||
			    ss_grow_to(&r->vval, cap, sizeof(*r->vval)))
				return SS_ENOMEM;
			r->vcap = cap;
		}
		for (i = 0; i < r->vec.n; i++)
			norm += (double)r->vec.val[i] * r->vec.val[i];
		norm = norm > 0 ? 1.0 / sqrt(norm) : 0;
		for (i = 0; i < r->vec.n; i++) {
			r->vidx[r->vn + i] = r->vec.idx[i];
			r->vval[r->vn + i] = (float)(r->vec.val[i] * norm);
		}
		r->vn += r->vec.n;
		p->vlen = r->vec.n;
	}
	*out = r->nprec++;
	return 0;
}

/* Text after '#' on the first line naming a stable address: "5.10+". */
static int stable_hint(ss_ranking *r, size_t *off, const ss_commit *c)
{
	const char *p = c->message;

	*off = 0;
	while (p && (p = strcasestr(p, "stable@"))) {
		const char *bol = p, *eol = strchr(p, '\n'), *hash;

		while (bol > c->message && bol[-1] != '\n')
			bol--;
		if (!eol)
			eol = p + strlen(p);
		if (!strncasecmp(bol, "cc:", 3) && (hash = memchr(p, '#', (size_t)(eol - p)))) {
			for (hash++; hash < eol && isspace((unsigned char)*hash); hash++)
				;
			while (eol > hash && isspace((unsigned char)eol[-1]))
				eol--;
			return pool_add(r, off, hash, (size_t)(eol - hash) > 40 ? 40 : (size_t)(eol - hash));
		}
		p = eol;
	}
	return 0;
}

int64_t ss_rank_hint_wait(const char *hint, int64_t time)
{
	const char *p = hint ? strcasestr(hint, "after") : NULL;
	const int64_t week = 7 * 86400;
	char *end;
	long v;

	if (!p) {
		/* "# wait a week" and the like: a week */
		return hint && strcasestr(hint, "wait") ? time + week : 0;
	}
	for (p += 5; *p == ' ' || *p == '\t'; p++)
		;
	if (*p == '-')
		p++;
	if (!strncasecmp(p, "rc", 2)) {
		v = strtol(p + 2, &end, 10);
		if (end > p + 2 && v > 0 && v < 20)
			return time + v * week;
		return time + week;
	}
	v = strtol(p, &end, 10);
	if (end > p && v > 0 && v < 1000) {
		while (*end == ' ')
			end++;
		if (!strncasecmp(end, "week", 4))
			return time + v * week;
		if (!strncasecmp(end, "day", 3))
			return time + v * 86400;
	}
	return time + week;
}

static const char *find_bot(const ss_commit *c)
{
	static const struct { const char *needle, *name; } bots[] = {
		{ "syzbot", "syzbot" }, { "syzkaller", "syzbot" },
		{ "lkp@intel.com", "kernel test robot" }, { "hulkci@huawei.com", "Hulk Robot" },
		{ "hulk robot", "Hulk Robot" }, { "abaci", "Abaci Robot" },
		{ "coverity", "Coverity" }, { "smatch", "smatch" },
		{ "dan.carpenter", "smatch" }, { "kernelci", "KernelCI" },
	};
	size_t pos = 0, k;
	const ss_trailer *t;

	while ((t = ss_commit_trailer(c, "Reported-by", &pos))) {
		for (k = 0; k < sizeof(bots) / sizeof(bots[0]); k++)
			if (strcasestr(t->value, bots[k].needle))
				return bots[k].name;
		pos++;
	}
	return NULL;
}

/* "shortsha subject" of each Fixes: target, one a line. */
/* The Fixes: targets of c, looked up in the scoring history (which holds
 * the project index when there is one) or else in what the ranking read. */
static int fixes_targets(ss_ranking *r, size_t *off, const ss_commit *c, const ss_history *hist)
{
	ss_histidx_facts facts;
	ss_strbuf sb = SS_STRBUF_INIT;
	size_t i;
	int rc;

	*off = 0;
	if (!ss_commit_trailer(c, "Fixes", NULL))
		return 0;
	if ((rc = ss_histidx_resolve(&facts, hist ? ss_history_index(hist) : r->idx, c, NULL, NULL)))
		return rc;
	for (i = 0; i < facts.ntargets && !rc; i++) {
		const ss_histidx_target *t = &facts.targets[i];

		if (t->how != SS_ORIGIN_FIXES_TAG)
			continue;
		if (t->found)
			rc = ss_strbuf_addf(&sb, "%.12s %s\n", t->commit.id, t->commit.subject);
		else if (t->quoted)
			rc = ss_strbuf_addf(&sb, "%.12s %.*s (not read)\n", t->written,
					    (int)t->quoted_len, t->quoted);
		else
			rc = ss_strbuf_addf(&sb, "%.12s (not read)\n", t->written);
	}
	if (!rc && sb.len)
		rc = pool_add(r, off, sb.buf, sb.len - 1);
	ss_strbuf_release(&sb);
	return rc;
}

static int add_reasons(ss_ranking *r, struct ss_rank_rowdata *w, const ss_contrib *why, size_t nwhy)
{
	size_t i;

	w->reasons = NULL;
	w->nreasons = 0;
	if (!nwhy)
		return 0;
	if (!(w->reasons = ss_arena_calloc(r->arena, nwhy, sizeof(*w->reasons))))
		return SS_ENOMEM;
	for (i = 0; i < nwhy; i++) {
		if (!(w->reasons[i].feature = ss_arena_strdup(r->arena, why[i].name)))
			return SS_ENOMEM;
		/* every output shows three decimals; so do comparisons of them */
		w->reasons[i].contribution = roundf(why[i].contrib * 1000.0f) / 1000.0f;
		w->nreasons++;
	}
	return 0;
}

static int explain(ss_ranking *r, struct ss_rank_rowdata *w, const ss_commit *c,
		   const ss_history *hist)
{
	ss_contrib why[SS_RANK_MAX_REASONS];
	size_t n = 0, i;
	int rc;

	if (!r->m || !r->opts.nreasons)
		return 0;
	if (ss_model_get_kind(r->m) == SS_MODEL_PATCHNET ||
	    ss_model_get_kind(r->m) == SS_MODEL_PATCHNET_FEAT) {
		ss_patchnet_reason pw[SS_RANK_MAX_REASONS];

		if ((rc = ss_patchnet_explain_commit(pw, r->opts.nreasons, &n, r->m, c, hist, 1)))
			return rc;
		for (i = 0; i < n; i++) {
			why[i].index = 0;
			why[i].value = pw[i].share;
			why[i].contrib = pw[i].contrib;
			snprintf(why[i].name, sizeof(why[i].name), "%s%.118s",
				 pw[i].side < 0 ? "word:" :
				 pw[i].side == SS_PATCHNET_FEATURES ? "feature:" : "", pw[i].text);
		}
	} else if ((rc = ss_model_explain(why, r->opts.nreasons, &n, r->m, c, hist, 1))) {
		return rc;
	}
	return add_reasons(r, w, why, n);
}

static int keep_text(ss_ranking *r, struct ss_rank_rowdata *w, const ss_commit *c)
{
	ss_strbuf sb = SS_STRBUF_INIT;
	int rc;

	if ((rc = pool_adds(r, &w->message, c->message)))
		return rc;
	rc = ss_patch_diff(&sb, c, r->opts.keep == SS_RANK_KEEP_DETAILS ? r->opts.diff_cap : 0,
			   &w->diff_cut);
	if (!rc)
		rc = pool_add(r, &w->diff, sb.buf, sb.len);
	ss_strbuf_release(&sb);
	return rc;
}

static int fill_row(ss_ranking *r, struct ss_rank_rowdata *w, const ss_commit *c, float score,
		    uint64_t patch, const ss_history *hist)
{
	const char *rule = NULL, *bot;
	int rc = 0;

	memcpy(w->id, c->id, sizeof(w->id));
	w->id[40] = '\0';
	w->score = score;
	w->patch = patch;
	w->change = ss_commit_change_key(c);
	ss_commit_near_sketch(&w->near, c);
	w->order = r->n;
	w->time = c->committer.time ? c->committer.time : c->author.time;
	w->author_time = c->author.time;
	w->author_tz = c->author.tz;
	w->lines = c->added + c->removed;
	if (ss_commit_was_tagged(c))
		w->flags |= SS_RANK_TAGGED;
	if (c->message && strcasestr(c->message, "stable+noautosel@"))
		w->flags |= SS_RANK_NOAUTOSEL;
	if (w->lines > SS_RANK_MAX_LINES)
		w->flags |= SS_RANK_TOO_BIG;
	if (c->truncated)
		w->flags |= SS_RANK_TRUNCATED;
	for (size_t i = 0; i < c->nfiles; i++)
		if (c->files[i].binary)
			w->flags |= SS_RANK_BINARY;
	if (ss_commit_trailer(c, "Fixes", NULL))
		w->flags |= SS_RANK_FIXES;
	if (ss_policy_check(r->opts.policy, c, &rule) != SS_POLICY_OK) {
		w->flags |= SS_RANK_POLICY;
		rc |= pool_adds(r, &w->policy, rule);
	}
	if ((bot = find_bot(c))) {
		w->flags |= SS_RANK_BOT;
		rc |= pool_adds(r, &w->bot, bot);
	}
	if (r->opts.stable) {
		const char *br = ss_backports_branches(r->opts.stable, c->id);

		if (br) {
			w->flags |= SS_RANK_IN_STABLE;
			rc |= pool_adds(r, &w->branches, br);
		}
	}
	w->label = r->opts.labels ? ss_labels_get(r->opts.labels, c->id)
		   : r->opts.stable ? !!(w->flags & SS_RANK_IN_STABLE) : -1;
	if (rc)
		return SS_ENOMEM;
	if ((rc = pool_adds(r, &w->subject, c->subject)))
		return rc;
	{
		ss_strbuf sb = SS_STRBUF_INIT;

		rc = c->author.email[0] ? ss_strbuf_addf(&sb, "%s <%s>", c->author.name, c->author.email)
				       : ss_strbuf_adds(&sb, c->author.name);
		if (!rc)
			rc = pool_add(r, &w->author, sb.buf, sb.len);
		ss_strbuf_release(&sb);
		if (rc)
			return rc;
	}
	if ((rc = stable_hint(r, &w->hint, c)) || (rc = fixes_targets(r, &w->fixes, c, hist)))
		return rc;
	w->wait_until = w->hint ? ss_rank_hint_wait(r->pool.buf + w->hint, w->time) : 0;
	w->band = ss_bands_classify(&r->bands, score);
	return 0;
}

int ss_ranking_feed(ss_ranking *r, const ss_commit *c, const ss_history *hist, int history_only)
{
	struct ss_rank_rowdata *w;
	uint64_t patch = ss_commit_patch_key(c);
	float score = 0;
	size_t prec = 0;
	int rc;

	if (r->m && (rc = ss_model_score_commit(&score, r->m, c, hist)))
		return rc;
	if ((rc = add_precedent(r, c, score, hist, patch, &prec)))
		return rc;
	r->prec[prec].settled = history_only;
	if (history_only)
		return ss_histidx_add_commit(r->idx, c);
	if ((rc = grow_rows(r)))
		return rc;
	w = &r->rows[r->n];
	w->prec = prec;
	if ((rc = fill_row(r, w, c, score, patch, hist)))
		return rc;
	if ((score >= r->threshold || r->opts.explain_all) && !(w->flags & SS_RANK_NOAUTOSEL) &&
	    (rc = explain(r, w, c, hist)))
		return rc;
	if ((r->opts.keep == SS_RANK_KEEP_DETAILS || r->opts.keep == SS_RANK_KEEP_ALL ||
	     (r->opts.keep == SS_RANK_KEEP_PATCH && score >= r->threshold)) &&
	    (rc = keep_text(r, w, c)))
		return rc;
	w->decision = score >= r->threshold;
	r->picks += w->decision;
	r->n++;
	if (w->time > r->newest)
		r->newest = w->time;
	return ss_histidx_add_commit(r->idx, c);
}

int ss_ranking_add(ss_ranking *r, const ss_commit *c, float score, int decision,
		   const ss_contrib *why, size_t nwhy)
{
	struct ss_rank_rowdata *w;
	int rc;

	if ((rc = grow_rows(r)))
		return rc;
	w = &r->rows[r->n];
	w->prec = (size_t)-1;
	if ((rc = fill_row(r, w, c, score, ss_commit_patch_key(c), NULL)) || (rc = add_reasons(r, w, why, nwhy)))
		return rc;
	if (r->opts.keep != SS_RANK_KEEP_NONE && (rc = keep_text(r, w, c)))
		return rc;
	w->decision = decision;
	r->picks += decision != 0;
	r->n++;
	if (w->time > r->newest)
		r->newest = w->time;
	return ss_histidx_add_commit(r->idx, c);
}

static int cmp_rows(const void *a, const void *b)
{
	const struct ss_rank_rowdata *x = a, *y = b;

	if (x->score != y->score)
		return x->score > y->score ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

void ss_ranking_sort(ss_ranking *r)
{
	if (r->n && !r->sorted)
		qsort(r->rows, r->n, sizeof(*r->rows), cmp_rows);
	r->sorted = 1;
}

struct copy_of {
	size_t rep, row;
};

static int cmp_copy_of(const void *a, const void *b)
{
	const struct copy_of *x = a, *y = b;

	if (x->rep != y->rep)
		return x->rep < y->rep ? -1 : 1;
	return x->row < y->row ? -1 : x->row > y->row;
}

/*
 * One row per patch: in the sorted rows, a row whose patch an earlier
 * (better-scored) row has is a copy; the first row lists the copies' ids.
 * The same patch is an equal patch id, or an equal change key (the same
 * author, subject and changed lines: a copy rebased onto other context
 * lines, which git's patch id tells apart); a copy's keys lead to its
 * first row too, so a chain of copies folds into one row.  A near copy
 * (the same author and subject, the changed lines nearly the same set:
 * commit/patchid.h, ss_near_sketch) folds into the first row of its
 * author key when their sketches agree.  Hash tables from key to first
 * row keep this O(n).  Returns 0 or SS_ENOMEM (then nothing is folded).
 */
static int fold_copies(ss_ranking *r)
{
	ss_u64map first = SS_U64MAP_INIT, first_change = SS_U64MAP_INIT;
	ss_u64map first_near = SS_U64MAP_INIT;
	struct copy_of *copies;
	size_t i, ncopies = 0;
	int rc = 0;

	for (i = 0; i < r->n; i++) {
		r->rows[i].copy = 0;
		r->rows[i].copies = 0;
		r->rows[i].flags &= ~(unsigned)SS_RANK_COPIES;
	}
	if (!(copies = malloc((r->n + 1) * sizeof(*copies))))
		return SS_ENOMEM;
	for (i = 0; i < r->n && rc >= 0; i++) {
		const struct ss_rank_rowdata *w = &r->rows[i];
		size_t rep = i, found;
		int a = 0, b = 0;

		if (w->patch && (a = ss_u64map_get(&first, w->patch, &found)))
			rep = found;
		if (!a && w->change && (b = ss_u64map_get(&first_change, w->change, &found)))
			rep = found;
		if (!a && !b && w->near.author &&
		    ss_u64map_get(&first_near, w->near.author, &found) &&
		    ss_near_agree(&r->rows[found].near, &w->near) >= SS_NEAR_AGREE)
			rep = found;
		/* the keys of this row lead to its first row from now on */
		if ((w->patch && (rc = ss_u64map_find_or_put(&first, w->patch, rep, &found)) < 0) ||
		    (w->change && (rc = ss_u64map_find_or_put(&first_change, w->change, rep, &found)) < 0) ||
		    (w->near.author &&
		     (rc = ss_u64map_find_or_put(&first_near, w->near.author, rep, &found)) < 0))
			break;
		rc = 0;
		if (rep == i)
			continue;
		r->rows[i].copy = 1;
		copies[ncopies].rep = rep;
		copies[ncopies++].row = i;
	}
	ss_u64map_release(&first);
	ss_u64map_release(&first_change);
	ss_u64map_release(&first_near);
	if (rc < 0) {
		free(copies);
		return SS_ENOMEM;
	}
	rc = 0;
	qsort(copies, ncopies, sizeof(*copies), cmp_copy_of);
	for (i = 0; i < ncopies && !rc;) {
		ss_strbuf sb = SS_STRBUF_INIT;
		size_t rep = copies[i].rep;

		for (; i < ncopies && copies[i].rep == rep; i++)
			rc |= ss_strbuf_addf(&sb, "%s%s", sb.len ? " " : "", r->rows[copies[i].row].id);
		if (!rc)
			rc = pool_add(r, &r->rows[rep].copies, sb.buf, sb.len);
		r->rows[rep].flags |= SS_RANK_COPIES;
		ss_strbuf_release(&sb);
	}
	free(copies);
	return rc ? SS_ENOMEM : 0;
}

void ss_ranking_select(ss_ranking *r, const ss_rank_select *s)
{
	size_t i, shown = 0, picks = 0;

	ss_ranking_sort(r);
	if (!s->keep_copies && fold_copies(r)) {
		/* out of memory: every copy stays a row of its own */
		for (i = 0; i < r->n; i++)
			r->rows[i].copy = 0;
	}
	r->sel = *s;
	r->now = s->now ? s->now : r->newest;
	r->selected = 1;
	for (i = 0; i < r->n; i++) {
		struct ss_rank_rowdata *w = &r->rows[i];

		w->flags &= ~(unsigned)(SS_RANK_TOO_YOUNG | SS_RANK_AFTER);
		if (s->min_age_days > 0 && (double)(r->now - w->time) < s->min_age_days * 86400.0)
			w->flags |= SS_RANK_TOO_YOUNG;
		if (w->wait_until && r->now < w->wait_until)
			w->flags |= SS_RANK_AFTER;
		w->band = ss_bands_classify(&r->bands, w->score);
		if ((w->flags & SS_RANK_WAITING) && w->band >= SS_BAND_UNSURE)
			w->band = SS_BAND_WAIT;
		w->shown = w->pick = 0;
		if (w->copy || (w->flags & SS_RANK_HELD))
			continue;
		if (s->untagged_only && (w->flags & SS_RANK_TAGGED))
			continue;
		if (s->min_score >= 0 && w->score < s->min_score)
			continue;
		if (s->top && shown >= s->top)
			continue;
		w->shown = 1;
		shown++;
		if (w->decision && w->band != SS_BAND_WAIT && (!s->budget || picks < s->budget)) {
			w->pick = 1;
			picks++;
		}
	}
}

size_t ss_ranking_count(const ss_ranking *r)
{
	return r->n;
}

size_t ss_ranking_picks(const ss_ranking *r)
{
	return r->picks;
}

float ss_ranking_score(const ss_ranking *r, size_t i)
{
	return r->rows[i].score;
}

const char *ss_ranking_id(const ss_ranking *r, size_t i)
{
	return r->rows[i].id;
}

double ss_ranking_threshold(const ss_ranking *r)
{
	return r->threshold;
}

static int cmp_desc(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;

	return (x < y) - (x > y);
}

int ss_ranking_pick_share(ss_ranking *r, float share, size_t *picked, double *t)
{
	float *s = malloc((r->n ? r->n : 1) * sizeof(*s));
	size_t i, n = 0, k;

	*picked = 0;
	*t = r->threshold;
	if (!s)
		return SS_ENOMEM;
	for (i = 0; i < r->n; i++)
		if (!(r->rows[i].flags & SS_RANK_EXTRA))
			s[n++] = r->rows[i].score;
	if ((k = ss_lopo_share_count(share, n))) {
		qsort(s, n, sizeof(*s), cmp_desc);
		*t = s[k - 1];
		ss_ranking_set_threshold(r, *t);
		*picked = r->picks;
	}
	free(s);
	return 0;
}

void ss_ranking_set_threshold(ss_ranking *r, double t)
{
	r->threshold = t;
	ss_bands_set_likely(&r->bands, t);
	r->picks = 0;
	for (size_t i = 0; i < r->n; i++) {
		struct ss_rank_rowdata *w = &r->rows[i];

		if (w->flags & SS_RANK_EXTRA)
			continue;
		w->decision = w->score >= t;
		r->picks += w->decision;
	}
}

const ss_bands *ss_ranking_bands(const ss_ranking *r)
{
	return &r->bands;
}

void ss_ranking_band_counts(size_t *n, const ss_ranking *r)
{
	size_t i;

	for (i = 0; i <= SS_BAND_WAIT; i++)
		n[i] = 0;
	for (i = 0; i < r->n; i++)
		if (!r->selected || r->rows[i].shown)
			n[r->rows[i].band]++;
}

int64_t ss_ranking_now(const ss_ranking *r)
{
	return r->selected ? r->now : r->newest;
}

const ss_rank_select *ss_ranking_selection(const ss_ranking *r)
{
	return &r->sel;
}

void ss_ranking_row(ss_rank_row *out, const ss_ranking *r, size_t i)
{
	const struct ss_rank_rowdata *w = &r->rows[i];
	const char *pool = r->pool.buf;

	out->id = w->id;
	out->subject = pool + w->subject;
	out->author = pool + w->author;
	out->score = w->score;
	out->band = w->band;
	out->wait_until = w->wait_until;
	out->pick = r->selected ? w->pick : w->decision;
	out->shown = r->selected ? w->shown : 1;
	out->flags = w->flags;
	out->order = w->order;
	out->time = w->time;
	out->author_time = w->author_time;
	out->author_tz = w->author_tz;
	out->lines = w->lines;
	out->label = w->label;
	out->stable_hint = pool + w->hint;
	out->fixes = pool + w->fixes;
	out->bot = pool + w->bot;
	out->branches = pool + w->branches;
	out->policy = pool + w->policy;
	out->copies = pool + w->copies;
	out->copy = w->copy;
	out->reasons = w->reasons;
	out->nreasons = w->nreasons;
	out->message = pool + w->message;
	out->diff = pool + w->diff;
	out->diff_cut = w->diff_cut;
	out->review = pool + w->review;
	out->nverdicts = 0;
	if (w->vd != (size_t)-1) {
		const struct ss_rank_vdata *v = &r->vdata[w->vd];

		out->nverdicts = r->nbranches;
		for (size_t b = 0; b < r->nbranches; b++)
			out->verdicts[b] = (ss_verdict_data){
				.word = v->word[b],
				.propose = (v->propose >> b) & 1,
				.needs = r->vids + v->needs[b],
				.nneeds = v->nneeds[b],
				.followups = r->vids + v->follow[b],
				.nfollowups = v->nfollow[b],
				.reverted_by = pool + v->reverted[b],
				.series_n = v->series_n[b],
				.series_total = v->series_total[b],
				.series_shown = (v->series_shown >> b) & 1,
				.detail = pool + v->detail[b],
				.text = pool + v->text[b],
			};
	}
}

int ss_ranking_set_branches(ss_ranking *r, const char *const *names, size_t n)
{
	if (n > SS_RANK_MAX_BRANCHES)
		return ss_error_code(SS_EINVALID, "at most %d stable branches, not %zu",
				     SS_RANK_MAX_BRANCHES, n);
	for (size_t b = 0; b < r->nbranches; b++)
		free(r->branch[b]);
	r->nbranches = 0;
	for (size_t b = 0; b < n; b++) {
		if (!(r->branch[b] = strdup(names[b])))
			return SS_ENOMEM;
		r->nbranches++;
	}
	return 0;
}

size_t ss_ranking_branch_count(const ss_ranking *r)
{
	return r->nbranches;
}

const char *ss_ranking_branch(const ss_ranking *r, size_t b)
{
	return b < r->nbranches ? r->branch[b] : "";
}

/* Copy ids[0..n) into the ranking's vids: *off is where they start. */
static int vids_add(ss_ranking *r, size_t *off, const ss_verdict_id *ids, size_t n)
{
	if (SS_GROW(r->vids, r->nvids + n + 1, r->vidcap))
		return SS_ENOMEM;
	*off = r->nvids;
	if (n)
		memcpy(r->vids + r->nvids, ids, n * sizeof(*ids));
	r->nvids += n;
	return 0;
}

int ss_ranking_set_verdict(ss_ranking *r, size_t i, size_t b, const ss_verdict_data *v)
{
	struct ss_rank_rowdata *w;
	struct ss_rank_vdata *d;
	char text[SS_VERDICT_TEXT_MAX];
	int rc = 0;

	if (i >= r->n || b >= r->nbranches)
		return ss_error_code(SS_EINVALID, "no row %zu or branch %zu for a verdict", i, b);
	w = &r->rows[i];
	if (w->vd == (size_t)-1) {
		if (SS_GROW(r->vdata, r->nvd + 1, r->vdcap))
			return SS_ENOMEM;
		memset(&r->vdata[r->nvd], 0, sizeof(r->vdata[r->nvd]));
		w->vd = r->nvd++;
	}
	d = &r->vdata[w->vd];
	ss_verdict_data_text(text, sizeof(text), v);
	d->word[b] = v->word;
	rc |= pool_adds(r, &d->text[b], text);
	rc |= pool_adds(r, &d->detail[b], v->detail);
	rc |= pool_adds(r, &d->reverted[b], v->reverted_by);
	rc |= vids_add(r, &d->needs[b], v->needs, v->nneeds);
	d->nneeds[b] = rc ? 0 : v->nneeds;
	rc |= vids_add(r, &d->follow[b], v->followups, v->nfollowups);
	d->nfollow[b] = rc ? 0 : v->nfollowups;
	d->series_n[b] = v->series_n;
	d->series_total[b] = v->series_total;
	d->series_shown = (d->series_shown & ~(1u << b)) | ((unsigned)(v->series_shown != 0) << b);
	d->propose = (d->propose & ~(1u << b)) | ((unsigned)(v->propose != 0) << b);
	return rc ? SS_ENOMEM : 0;
}

void ss_ranking_restrict(ss_ranking *r, size_t i, int pick, int shown)
{
	if (i >= r->n)
		return;
	if (!pick || !shown)
		r->rows[i].pick = 0;
	if (!shown)
		r->rows[i].shown = 0;
}

int ss_ranking_add_extra(ss_ranking *r, const ss_commit *c)
{
	struct ss_rank_rowdata *w;
	int rc;

	if (ss_ranking_find(r, c->id) != (size_t)-1)
		return 0;
	if ((rc = grow_rows(r)))
		return rc;
	w = &r->rows[r->n];
	w->prec = (size_t)-1;
	if ((rc = fill_row(r, w, c, 0.0f, ss_commit_patch_key(c), NULL)) || (rc = keep_text(r, w, c)))
		return rc;
	w->flags |= SS_RANK_EXTRA;
	r->n++;
	return 0;
}

size_t ss_ranking_find(const ss_ranking *r, const char *id)
{
	for (size_t i = 0; i < r->n; i++)
		if (!strcmp(r->rows[i].id, id))
			return i;
	return (size_t)-1;
}

/*
 * The precedents a model remembers (ss_model_neighbours(): the settled
 * commits it learnt from, nearest in its neighbour space), their fate
 * as the stable tree or the labels know it now, else as it was when the
 * model learnt; one per subject.  0 when the model remembers none.
 */
/* A precedent's fate as the ranking knows it now: 1 reached stable, 0
 * not, -1 unknown (neither a stable tree nor labels; labels that do not
 * list id); *br its stable branches ("" none or unknown). */
static int known_fate(const ss_ranking *r, const char *id, const char **br)
{
	int label = -1;

	*br = "";
	if (r->opts.stable) {
		const char *b = ss_backports_branches(r->opts.stable, id);

		*br = b ? b : "";
		label = b != NULL;
	}
	if (r->opts.labels)
		label = ss_labels_get(r->opts.labels, id);
	return label;
}

/* Whether out[0..n) has a precedent of this subject already: the same
 * change merged twice (tip mails per branch) is one precedent. */
static int subject_listed(const ss_rank_precedent *out, size_t n, const char *subject)
{
	for (size_t j = 0; j < n; j++)
		if (!strcmp(out[j].subject, subject))
			return 1;
	return 0;
}

static size_t model_precedents(ss_rank_precedent *out, size_t max, const ss_ranking *r,
			       const struct ss_rank_prec *q)
{
	ss_model_neighbour nb[SS_NEAR_K_MAX];
	ss_svec x;
	size_t i, got, n = 0;

	x.idx = r->vidx + q->voff;
	x.val = r->vval + q->voff;
	x.n = x.cap = q->vlen;
	got = ss_model_neighbours(nb, max * 3 < SS_NEAR_K_MAX ? max * 3 : SS_NEAR_K_MAX, r->m, &x);
	for (i = 0; i < got && n < max; i++) {
		const char *br;
		int label;

		if (!nb[i].id[0] || (nb[i].subject[0] && subject_listed(out, n, nb[i].subject)))
			continue;
		/* not known now: as it was when the model learnt */
		if ((label = known_fate(r, nb[i].id, &br)) < 0)
			label = nb[i].label;
		out[n].id = nb[i].id;
		out[n].subject = nb[i].subject;
		out[n].score = nb[i].score;
		out[n].similarity = nb[i].similarity;
		out[n].label = label;
		out[n].branches = br;
		n++;
	}
	return n;
}

size_t ss_ranking_precedents(ss_rank_precedent *out, size_t max, const ss_ranking *r, size_t i)
{
	const struct ss_rank_rowdata *w = &r->rows[i];
	const struct ss_rank_prec *q;
	size_t k, j, pos, n = 0;
	float *dense;

	if (!r->feat || w->prec == (size_t)-1 || !max || w->prec >= r->nprec)
		return 0;
	q = &r->prec[w->prec];
	if (!q->vlen)
		return 0;
	if ((n = model_precedents(out, max, r, q)))
		return n;
	/* the query as a dense vector: each candidate costs its own length */
	dense = calloc(ss_featurizer_dim(r->feat), sizeof(*dense));
	if (!dense)
		return 0;
	for (j = 0; j < q->vlen; j++)
		dense[r->vidx[q->voff + j]] = r->vval[q->voff + j];
	for (k = 0; k < w->prec; k++) {
		const struct ss_rank_prec *p = &r->prec[k];
		const char *br;
		float dot = 0;
		int label;

		/* evidence is a commit whose fate is known: settled history,
		 * never a sibling of the batch still waiting for its own */
		if (!p->settled)
			continue;
		for (j = 0; j < p->vlen; j++)
			dot += dense[r->vidx[p->voff + j]] * r->vval[p->voff + j];
		if (dot <= 0 || (n == max && dot <= out[n - 1].similarity))
			continue;
		/* a copy of the same patch says nothing new about it */
		if ((w->patch && p->patch == w->patch) || (w->change && p->change == w->change))
			continue;
		label = known_fate(r, p->id, &br);
		if (r->opts.labels && label < 0)
			continue;  /* labelled data, but not this one: its fate is not known */
		if (subject_listed(out, n, r->pool.buf + p->subject))
			continue;
		pos = n < max ? n++ : max - 1;
		while (pos > 0 && out[pos - 1].similarity < dot) {
			out[pos] = out[pos - 1];
			pos--;
		}
		out[pos].id = p->id;
		out[pos].subject = r->pool.buf + p->subject;
		out[pos].score = p->score;
		out[pos].similarity = dot;
		out[pos].label = label;
		out[pos].branches = br;
	}
	free(dense);
	return n;
}
