/*
 * review_loop.c - the interactive review's logic (review_loop.h): a small
 * state machine over the candidates, lines in, screen text out
 * ("stablesel review", cmd/review.c, holds the terminal).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rank/review_loop.h"
#include "util/error.h"

enum ask { ASK_KEY, ASK_NOTE, ASK_UNTIL };

/* What undo takes back: a candidate left, decided or skipped. */
struct step {
	size_t item;
	int decided;
};

struct ss_review {
	const ss_review_item *items;
	size_t n, cur;
	const char *what;
	ss_review_ops ops;
	void *ud;
	enum ask ask;
	int over;
	struct step *steps;
	size_t nsteps;
	size_t counts[SS_REVIEW_NCOUNTS];
	ss_strbuf screen, out;
};

static const char help_text[] =
	"y - accept this commit for %s\n"
	"n - reject it (asks why)\n"
	"f - it does not apply as it is: needs a manual backport (recorded as failed;\n"
	"    review --failed-mail writes the mail to its author)\n"
	"d - defer it (asks until when: a date YYYY-MM-DD or a release)\n"
	"s - skip it for now (no decision)\n"
	"p - show its diff\n"
	"e - explain: its message and the features that raised its score\n"
	"u - undo the last answer\n"
	"q - quit (every decision made so far is kept)\n"
	"? - this help\n";

void ss_review_diffstat(ss_strbuf *out, const char *diff)
{
	size_t files = 0, add = 0, del = 0, fa = 0, fd = 0;
	char name[512] = "";
	const char *p = diff ? diff : "";

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		if (len > 11 && !strncmp(p, "diff --git ", 11)) {
			const char *b = NULL;

			if (files)
				ss_strbuf_addf(out, " %s | +%zu -%zu\n", name, fa, fd);
			/* "diff --git a/X b/X": the b/ side */
			for (size_t i = len; i > 11; i--)
				if (p[i - 1] == ' ' && i + 1 < len && p[i] == 'b' && p[i + 1] == '/') {
					b = p + i + 2;
					break;
				}
			snprintf(name, sizeof(name), "%.*s", b ? (int)(p + len - b) : (int)(len - 11),
				 b ? b : p + 11);
			files++;
			fa = fd = 0;
		} else if (len && p[0] == '+' && strncmp(p, "+++ ", 4)) {
			add++;
			fa++;
		} else if (len && p[0] == '-' && strncmp(p, "--- ", 4)) {
			del++;
			fd++;
		}
		p += len + (nl != NULL);
	}
	if (files)
		ss_strbuf_addf(out, " %s | +%zu -%zu\n", name, fa, fd);
	ss_strbuf_addf(out, " %zu file%s changed, %zu insertion%s(+), %zu deletion%s(-)\n", files,
		       files == 1 ? "" : "s", add, add == 1 ? "" : "s", del, del == 1 ? "" : "s");
}

static void show_item(ss_review *rv)
{
	const ss_review_item *it = &rv->items[rv->cur];
	ss_strbuf *s = &rv->screen;

	/* a subject or a name from a commit must not drive the terminal */
	ss_strbuf_addf(s, "\n[%zu/%zu] %.12s ", rv->cur + 1, rv->n, it->id);
	ss_strbuf_add_escaped(s, it->subject);
	ss_strbuf_adds(s, "\n  ");
	ss_strbuf_add_escaped(s, it->author);
	ss_strbuf_addf(s, ", %s\n", it->date);
	ss_strbuf_addf(s, "  score %.3f, band %s (the model's)\n", it->score, it->band);
	if (*it->verdicts) {
		const char *p = it->verdicts;

		while (*p) {
			size_t len = strcspn(p, "\n");

			ss_strbuf_addf(s, "  %.*s\n", (int)len, p);
			p += len + (p[len] == '\n');
		}
	}
	if (*it->flags)
		ss_strbuf_addf(s, "  why: %s\n", it->flags);
	ss_review_diffstat(s, it->diff);
	if (it->conflict && *it->conflict)
		ss_strbuf_addf(s, "does not apply as it is: %s (f: needs a manual backport)\n",
			       it->conflict);
}

static void prompt(ss_review *rv)
{
	switch (rv->ask) {
	case ASK_NOTE:
		ss_strbuf_addf(&rv->screen, "why reject it? ");
		break;
	case ASK_UNTIL:
		ss_strbuf_addf(&rv->screen, "defer until (YYYY-MM-DD or a release, empty: none)? ");
		break;
	default:
		ss_strbuf_addf(&rv->screen, "Accept for %s [y,n,f,d,s,p,e,u,q,?]? ", rv->what);
	}
}

/* Go to the next candidate, or end. */
static void advance(ss_review *rv, int decided)
{
	rv->steps[rv->nsteps++] = (struct step){ rv->cur, decided };
	rv->cur++;
	rv->ask = ASK_KEY;
	if (rv->cur >= rv->n) {
		rv->over = 1;
		return;
	}
	show_item(rv);
}

static void decide(ss_review *rv, ss_decision_state state, const char *note, const char *until,
		   int count)
{
	if (rv->ops.decide(&rv->items[rv->cur], state, note, until, rv->ud)) {
		ss_strbuf_addf(&rv->screen, "error: %s\n", ss_error_last());
		rv->ask = ASK_KEY;
		return;
	}
	rv->counts[count]++;
	advance(rv, 1 + count);
}

int ss_review_new(ss_review **out, const ss_review_item *items, size_t n, const char *what,
		  const ss_review_ops *ops, void *ud)
{
	ss_review *rv = calloc(1, sizeof(*rv));

	*out = NULL;
	if (!rv || !(rv->steps = calloc(n + 1, sizeof(*rv->steps)))) {
		free(rv);
		return SS_ENOMEM;
	}
	rv->items = items;
	rv->n = n;
	rv->what = what;
	rv->ops = *ops;
	rv->ud = ud;
	rv->screen = (ss_strbuf)SS_STRBUF_INIT;
	rv->out = (ss_strbuf)SS_STRBUF_INIT;
	if (!n) {
		ss_strbuf_addf(&rv->screen, "no candidate to review\n");
		rv->over = 1;
	} else {
		show_item(rv);
		prompt(rv);
	}
	*out = rv;
	return 0;
}

void ss_review_free(ss_review *rv)
{
	if (!rv)
		return;
	ss_strbuf_release(&rv->screen);
	ss_strbuf_release(&rv->out);
	free(rv->steps);
	free(rv);
}

const char *ss_review_screen(ss_review *rv)
{
	ss_strbuf_reset(&rv->out);
	ss_strbuf_add(&rv->out, rv->screen.buf ? rv->screen.buf : "", rv->screen.len);
	ss_strbuf_reset(&rv->screen);
	return rv->out.buf ? rv->out.buf : "";
}

static void undo(ss_review *rv)
{
	struct step st;

	if (!rv->nsteps) {
		ss_strbuf_addf(&rv->screen, "nothing to undo\n");
		return;
	}
	st = rv->steps[rv->nsteps - 1];
	if (st.decided && rv->ops.undo(&rv->items[st.item], rv->ud)) {
		ss_strbuf_addf(&rv->screen, "error: %s\n", ss_error_last());
		return;
	}
	rv->nsteps--;
	rv->counts[st.decided ? st.decided - 1 : 3]--;
	rv->cur = st.item;
	ss_strbuf_addf(&rv->screen, "undone: %.12s is undecided again\n", rv->items[st.item].id);
	show_item(rv);
}

int ss_review_input(ss_review *rv, const char *line)
{
	if (rv->over)
		return 1;
	if (!line) {
		ss_strbuf_addf(&rv->screen, "\n");
		rv->over = 1;
		return 1;
	}
	if (rv->ask == ASK_NOTE) {
		decide(rv, SS_DECISION_REJECTED, line, "", 1);
	} else if (rv->ask == ASK_UNTIL) {
		decide(rv, SS_DECISION_DEFERRED, "", line, 2);
	} else {
		const ss_review_item *it = &rv->items[rv->cur];

		switch (line[0] && !line[1] ? line[0] : 0) {
		case 'y':
			/* an accepted commit the queue cannot carry would only
			 * be said missing from it later */
			if (it->manual_only)
				ss_strbuf_addf(&rv->screen, "it applies to no branch as it is: f records "
					       "that it needs a manual backport, n rejects it\n");
			else
				decide(rv, SS_DECISION_ACCEPTED, "", "", 0);
			break;
		case 'n':
			rv->ask = ASK_NOTE;
			break;
		case 'f':
			decide(rv, SS_DECISION_FAILED, it->conflict ? it->conflict : "", "", 4);
			break;
		case 'd':
			rv->ask = ASK_UNTIL;
			break;
		case 's':
			rv->counts[3]++;
			advance(rv, 0);
			break;
		case 'p':
			ss_strbuf_addf(&rv->screen, "%s%s", it->diff,
				       *it->diff && it->diff[strlen(it->diff) - 1] != '\n' ? "\n" : "");
			break;
		case 'e':
			ss_strbuf_addf(&rv->screen, "%s\n%s", it->message, it->reasons);
			break;
		case 'u':
			undo(rv);
			break;
		case 'q':
			rv->over = 1;
			break;
		case '?':
			ss_strbuf_addf(&rv->screen, help_text, rv->what);
			break;
		default:
			ss_strbuf_addf(&rv->screen, "unknown answer '%.20s' (? for help)\n", line);
		}
	}
	if (rv->over) {
		ss_strbuf_addf(&rv->screen, "%zu accepted, %zu rejected, %zu deferred, %zu skipped, "
			       "%zu for a manual backport\n", rv->counts[0], rv->counts[1],
			       rv->counts[2], rv->counts[3], rv->counts[4]);
		return 1;
	}
	prompt(rv);
	return 0;
}

void ss_review_counts(const ss_review *rv, size_t out[SS_REVIEW_NCOUNTS])
{
	memcpy(out, rv->counts, sizeof(rv->counts));
}
