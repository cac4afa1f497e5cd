/*
 * hist_resolve.c - what a commit fixes, and whether that bug ever shipped.
 *
 * Targets come from Fixes: trailers (with the forms commit.h reads as
 * them: "Fixes <sha>", "Follow-up for: <sha>"; "Fixes: #N" is an issue
 * and no target), from "This reverts commit <sha>", or
 * (asked for, git only) from blame.  Each found target is placed against
 * the releases: exactly from the repository graph when the releases have
 * one; for mail, from the order of the source when it holds the release
 * commit (format-patch output is topological, and DPDK's history nearly
 * linear), and from dates for releases outside the source (older or newer
 * than what was read, where dates cannot mislead much).  The date rule is
 * an approximation: a commit authored before a release but merged after
 * it would count as released.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "history/impl.h"
#include "util/error.h"

#define DAY 86400.0

/* How many matches of a prefix are looked at for the subject check. */
#define MAX_MATCHES 16

static int is_hex(int ch)
{
	return isxdigit(ch);
}

int ss_histidx_parse_fixes(char id[41], const char **subject, size_t *subject_len,
			   const char *value)
{
	const char *p = value, *open, *s, *e;
	size_t len, i;

	*subject = NULL;
	*subject_len = 0;
	id[0] = '\0';
	while (isspace((unsigned char)*p))
		p++;
	if (!strncasecmp(p, "commit ", 7))
		p += 7;
	for (len = 0; is_hex((unsigned char)p[len]); len++)
		;
	if (len < 4 || len > 40 || isalnum((unsigned char)p[len]))
		return SS_EINVALID;
	for (i = 0; i < len; i++)
		id[i] = (char)tolower((unsigned char)p[i]);
	id[len] = '\0';
	p += len;
	open = strchr(p, '(');
	if (!open)
		return 0;
	s = open + 1;
	e = strrchr(s, ')');
	if (!e)
		e = s + strlen(s);  /* a subject cut by the line end */
	if (*s == '"') {
		s++;
		if (e > s && e[-1] == '"')
			e--;
	}
	while (s < e && isspace((unsigned char)*s))
		s++;
	while (e > s && isspace((unsigned char)e[-1]))
		e--;
	if (e > s) {
		*subject = s;
		*subject_len = (size_t)(e - s);
	}
	return 0;
}

/* Next character of a subject for comparison: lower case, runs of
 * white space as one space. */
static const char *norm_next(const char *p, const char *end, int *ch)
{
	if (p >= end) {
		*ch = -1;
		return p;
	}
	if (isspace((unsigned char)*p)) {
		while (p < end && isspace((unsigned char)*p))
			p++;
		*ch = ' ';
		return p;
	}
	*ch = tolower((unsigned char)*p);
	return p + 1;
}

/* Does the quoted subject name this commit?  Case and spacing do not
 * count, and a quote cut short with "..." matches what it starts. */
static int subject_matches(const char *quoted, size_t qlen, const char *subject)
{
	const char *q = quoted, *qend = quoted + qlen, *s = subject, *send = subject + strlen(subject);
	int a, b, cut = 0;

	if (qlen >= 3 && !memcmp(qend - 3, "...", 3)) {
		qend -= 3;
		cut = 1;
	} else if (qlen >= 3 && !memcmp(qend - 3, "\xe2\x80\xa6", 3)) {
		qend -= 3;  /* U+2026 */
		cut = 1;
	}
	while (qend > q && isspace((unsigned char)qend[-1]))
		qend--;
	while (send > s && isspace((unsigned char)send[-1]))
		send--;
	for (;;) {
		q = norm_next(q, qend, &a);
		if (a < 0)
			break;
		s = norm_next(s, send, &b);
		if (a != b)
			return 0;
	}
	if (cut)
		return 1;
	s = norm_next(s, send, &b);
	return b < 0;
}

/* What a release commit's position in the index is, once per resolve. */
struct rel_pos {
	const struct hist_entry *e;  /* NULL when not among the added commits */
	int usable;                  /* may count (past_only: not after the fix) */
};

struct ctx {
	ss_histidx *h;
	const ss_commit *commit;
	const ss_releases *rel;
	struct rel_pos *pos;         /* per release, NULL without releases */
	const struct hist_entry *fix;/* the fix among the added commits (or its
				      * place in a source being added), or NULL */
	int64_t fix_time;
	size_t fix_limit;            /* graph: releases [0, limit) lack the fix */
};

/* From the graph, when it knows the target (or a repository says it is
 * there, so that no release having it means none has it).  0 when the
 * graph cannot tell. */
static int place_by_graph(ss_histidx_target *t, const struct hist_entry *e,
			  const struct ctx *x)
{
	size_t first;
	int rc;

	if (!ss_releases_has_graph(x->rel))
		return 0;
	rc = ss_releases_first_containing(&first, x->rel, e->id);
	if (rc && !e->from_repo && !e->indexed && !hist_repo(x->h))
		return 0;
	t->method = SS_RELEASE_GRAPH;
	for (; !rc && first < x->fix_limit; first++) {
		if (!x->pos[first].usable)
			continue;
		if (!t->released)
			t->first_release = (int)first;
		t->released = 1;
		t->last_release = (int)first;
		t->nreleases++;
	}
	return 1;
}

/* From the order of the mail source that holds a release commit, else
 * from dates. */
static void place_by_order(ss_histidx_target *t, const struct hist_entry *e,
			   const struct ctx *x)
{
	size_t n = ss_releases_count(x->rel), i;
	int ordered = 0;

	for (i = 0; i < n; i++) {
		const ss_release *r = ss_releases_get(x->rel, i);
		const struct hist_entry *re = x->pos[i].e;
		int contains, before;

		if (!x->pos[i].usable)
			continue;
		if (re && e->src != HIST_NO_SOURCE && re->src == e->src) {
			contains = e->seq <= re->seq;
			ordered = 1;
		} else {
			contains = r->time >= e->time;
		}
		if (re && x->fix && re->src == x->fix->src)
			before = re->seq < x->fix->seq;
		else
			before = r->time < x->fix_time;
		if (contains && before) {
			if (!t->released)
				t->first_release = (int)i;
			t->released = 1;
			t->last_release = (int)i;
			t->nreleases++;
		}
	}
	t->method = ordered && x->fix && x->fix->src == e->src ? SS_RELEASE_ORDER : SS_RELEASE_DATE;
}

/* Release facts of one found target. */
static void place(ss_histidx_target *t, const struct hist_entry *e, const struct ctx *x)
{
	t->released = 0;
	t->first_release = -1;
	t->last_release = -1;
	t->nreleases = 0;
	t->shipped_days = -1;
	t->method = SS_RELEASE_NONE;
	if (!ss_releases_count(x->rel))
		return;
	if (!place_by_graph(t, e, x))
		place_by_order(t, e, x);
	if (t->released)
		t->shipped_days = (double)(x->fix_time -
					   ss_releases_get(x->rel, (size_t)t->first_release)->time) / DAY;
}

static ss_histidx_target *new_target(ss_histidx_facts *out, ss_origin_how how, const char *id)
{
	ss_histidx_target *t;
	size_t i;

	for (i = 0; i < out->ntargets; i++)
		if (!strcmp(out->targets[i].written, id))
			return NULL;  /* named twice */
	if (out->ntargets == SS_HISTIDX_MAX_TARGETS) {
		out->ndropped++;
		return NULL;
	}
	t = &out->targets[out->ntargets++];
	memset(t, 0, sizeof(*t));
	t->how = how;
	snprintf(t->written, sizeof(t->written), "%s", id);
	t->first_release = -1;
	t->last_release = -1;
	t->age_days = -1;
	t->shipped_days = -1;
	return t;
}

/* Look a written id up, settle ambiguity with the quoted subject. */
static int find_target(ss_histidx_target *t, const struct ctx *x)
{
	const struct hist_entry *m[MAX_MATCHES], *pick = NULL;
	size_t i, nsubj = 0, len = strlen(t->written);
	int n = hist_lookup(m, MAX_MATCHES, x->h, t->written, len);

	if (n < 0)
		return n;
	t->nmatches = (size_t)n;
	if (n == 1) {
		pick = m[0];
	} else if (n > 1 && t->quoted) {
		for (i = 0; i < (size_t)n && i < MAX_MATCHES; i++)
			if (subject_matches(t->quoted, t->quoted_len, m[i]->subject)) {
				pick = m[i];
				nsubj++;
			}
		if (nsubj != 1)
			pick = NULL;
		t->by_subject = pick != NULL;
	}
	if (!pick) {
		t->ambiguous = n > 1;
		return 0;
	}
	t->found = 1;
	t->confidence = 1;
	t->subject_mismatch = t->quoted && !subject_matches(t->quoted, t->quoted_len, pick->subject);
	hist_entry_view(&t->commit, pick);
	t->age_days = (double)(x->fix_time - pick->time) / DAY;
	place(t, pick, x);
	return 0;
}

/* The subject of 'Revert "subject"', for checking the reverted id. */
static const char *revert_subject(const char *subject, size_t *len)
{
	size_t n;

	if (!subject || strncmp(subject, "Revert \"", 8))
		return NULL;
	n = strlen(subject + 8);
	if (!n || subject[8 + n - 1] != '"')
		return NULL;
	*len = n - 1;
	return *len ? subject + 8 : NULL;
}

static int add_blamed(ss_histidx_facts *out, const struct ctx *x, size_t max)
{
	ss_blame_candidate cand[SS_HISTIDX_MAX_TARGETS];
	size_t n = 0, i;
	int rc;

	if (max > SS_HISTIDX_MAX_TARGETS)
		max = SS_HISTIDX_MAX_TARGETS;
	rc = ss_blame_introducers(cand, max, &n, x->h, x->commit);
	if (rc)
		return rc;
	for (i = 0; i < n; i++) {
		ss_histidx_target *t = new_target(out, SS_ORIGIN_BLAME, cand[i].id);
		const struct hist_entry *e;
		git_oid oid;

		if (!t)
			continue;
		out->blamed = 1;
		e = hist_find_added(x->h, cand[i].id);
		if (!e && (git_oid_fromstr(&oid, cand[i].id) < 0 ||
			   !(e = hist_entry_from_repo(x->h, &oid))))
			return SS_ERROR;
		t->nmatches = 1;
		t->found = 1;
		t->confidence = cand[i].confidence;
		hist_entry_view(&t->commit, e);
		t->age_days = (double)(x->fix_time - e->time) / DAY;
		place(t, e, x);
	}
	return 0;
}

/* The summary: primary target and what any found target says. */
static void summarise(ss_histidx_facts *out, const ss_releases *rel)
{
	size_t i;

	for (i = 0; i < out->ntargets; i++) {
		const ss_histidx_target *t = &out->targets[i];

		out->nambiguous += t->ambiguous;
		out->nmismatch += t->subject_mismatch;
		if (!t->found)
			continue;
		out->nfound++;
		/* blame candidates come most recent first: the first is SZZ's
		 * pick; otherwise the oldest target decides */
		if (out->primary < 0 || (!out->blamed &&
		    t->commit.time < out->targets[out->primary].commit.time))
			out->primary = (int)i;
		if (t->released) {
			out->released_before_fix = 1;
			if (out->first_release < 0 || t->first_release < out->first_release)
				out->first_release = t->first_release;
			if (t->last_release > out->last_release)
				out->last_release = t->last_release;
			if (t->nreleases > out->releases_since)
				out->releases_since = t->nreleases;
			if (t->how == SS_ORIGIN_REVERT)
				out->revert_of_released = 1;
		}
		if (t->commit.has_fixes)
			out->fix_of_fix = 1;
	}
	if (out->primary >= 0) {
		const ss_histidx_target *p = &out->targets[out->primary];

		out->target_found = 1;
		memcpy(out->target, p->commit.id, sizeof(out->target));
		out->age_days = p->age_days;
		out->confidence = p->confidence;
		out->method = p->method;
	}
	if (out->first_release >= 0) {
		const ss_release *r = ss_releases_get(rel, (size_t)out->first_release);

		out->first_release_tag = r->tag;
		out->shipped_days = (double)(out->fix_time - r->time) / DAY;
	}
}

int ss_histidx_resolve(ss_histidx_facts *out, ss_histidx *h, const ss_commit *commit,
		       const ss_releases *releases, const ss_histidx_resolve_options *opts)
{
	static const ss_histidx_resolve_options defaults = SS_HISTIDX_RESOLVE_OPTIONS_INIT;
	struct rel_pos small[64], *pos = small;
	struct hist_entry here;
	char ids[SS_HISTIDX_MAX_TARGETS][41], id[41];
	size_t nrel = ss_releases_count(releases), i, nrev, first;
	const ss_trailer *tr;
	struct ctx x;
	int rc = 0;

	if (!opts)
		opts = &defaults;
	memset(out, 0, sizeof(*out));
	out->primary = -1;
	out->first_release = -1;
	out->last_release = -1;
	out->last_release_before_fix = -1;
	out->age_days = -1;
	out->shipped_days = -1;
	out->fix_time = hist_commit_time(commit);

	memset(&x, 0, sizeof(x));
	x.h = h;
	x.commit = commit;
	x.rel = releases;
	x.fix_time = out->fix_time;
	x.fix = hist_find_added(h, commit->id);
	if (!x.fix && commit->source && *commit->source) {
		/* not added yet (features resolve each commit against the ones
		 * before it): its place in its source still orders releases */
		memset(&here, 0, sizeof(here));
		here.src = hist_source_find(h, commit->source);
		here.seq = (uint32_t)commit->index;
		here.time = x.fix_time;
		if (here.src != HIST_NO_SOURCE)
			x.fix = &here;
	}
	if (nrel > sizeof(small) / sizeof(small[0]) && !(pos = calloc(nrel, sizeof(*pos))))
		return ss_error_code(SS_ENOMEM, "out of memory");
	for (i = 0; i < nrel; i++) {
		const ss_release *r = ss_releases_get(releases, i);

		pos[i].e = *r->sha ? hist_find_added(h, r->sha) : NULL; /* "": date only */
		/* past only: a release counts when it is a commit met before
		 * this one, or its date is not after the fix's */
		pos[i].usable = !opts->past_only || pos[i].e || r->time <= out->fix_time;
	}
	x.pos = pos;
	/* with a graph, the releases that lack the fix are those older than
	 * the first one that has it; a fix no release has is bounded by date */
	x.fix_limit = 0;
	if (ss_releases_has_graph(releases) &&
	    !ss_releases_first_containing(&first, releases, commit->id)) {
		x.fix_limit = first;
	} else {
		while (x.fix_limit < nrel &&
		       ss_releases_get(releases, x.fix_limit)->time < x.fix_time)
			x.fix_limit++;
	}

	/* the releases before the fix, whatever it fixes */
	for (i = 0; i < nrel; i++) {
		const struct hist_entry *re = pos[i].e;
		int before;

		if (!pos[i].usable)
			continue;
		if (ss_releases_has_graph(releases))
			before = i < x.fix_limit;
		else if (re && x.fix && re->src == x.fix->src && re->src != HIST_NO_SOURCE)
			before = re->seq < x.fix->seq;
		else
			before = ss_releases_get(releases, i)->time < x.fix_time;
		if (before) {
			out->releases_before_fix++;
			out->last_release_before_fix = (int)i;
		}
	}

	i = 0;
	while ((tr = ss_commit_trailer(commit, "Fixes", &i))) {
		const char *subject;
		size_t slen;
		ss_histidx_target *t;

		if (ss_histidx_parse_fixes(id, &subject, &slen, tr->value))
			continue;
		out->nfixes_tags++;
		t = new_target(out, SS_ORIGIN_FIXES_TAG, id);
		if (!t)
			continue;
		t->quoted = subject;
		t->quoted_len = slen;
		if ((rc = find_target(t, &x)))
			goto out_free;
	}
	nrev = ss_histidx_revert_ids(ids, SS_HISTIDX_MAX_TARGETS, commit->message);
	for (i = 0; i < nrev; i++) {
		ss_histidx_target *t;

		out->nreverts++;
		t = new_target(out, SS_ORIGIN_REVERT, ids[i]);
		if (!t)
			continue;
		if (i == 0)
			t->quoted = revert_subject(commit->subject, &t->quoted_len);
		if ((rc = find_target(t, &x)))
			goto out_free;
	}
	if (!out->ntargets && opts->blame && hist_repo(h) &&
	    (rc = add_blamed(out, &x, opts->blame_max)))
		goto out_free;
	summarise(out, releases);
out_free:
	if (pos != small)
		free(pos);
	return rc;
}
