/*
 * review_mail.c - "stablesel review --failed-mail -o DIR": for each
 * accepted pick marked failed on a branch, one mail to its author, ready
 * for git send-email, in the manner of the kernel's "FAILED: patch ...
 * failed to apply to X-stable tree" (review_share.h): what failed (the
 * file and hunk, checked again now with check/check.h), the prerequisites
 * found (the commits not in the branch that last touched the lines the
 * hunk expects), and the commands that try the backport.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check/check.h"
#include "cli.h"
#include "decisions.h"
#include "review_share.h"
#include "source/ident.h"
#include "util/atomic.h"
#include "util/error.h"
#include "util/strbuf.h"

struct failed {
	char commit[41];
	char *branch;
};

struct failed_list {
	struct failed *f;
	size_t n;
	const char *const *named;
	size_t nnamed;
};

static int collect(const ss_decision *d, void *ud)
{
	struct failed_list *l = ud;
	size_t i;

	if (d->state != SS_DECISION_FAILED)
		return 0;
	for (i = 0; i < l->nnamed && strcmp(l->named[i], d->branch); i++)
		;
	if (l->nnamed && i == l->nnamed)
		return 0;
	if (!(l->f = realloc(l->f, (l->n + 1) * sizeof(*l->f))) ||
	    !(l->f[l->n].branch = strdup(d->branch)))
		die("out of memory");
	memcpy(l->f[l->n].commit, d->commit, 41);
	l->n++;
	return 0;
}

/* A file name part: the branch's '/' and anything odd as '-'. */
static void safe_name(char *out, size_t size, const char *s)
{
	size_t i;

	for (i = 0; s[i] && i + 1 < size; i++)
		out[i] = (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
			 (s[i] >= '0' && s[i] <= '9') || s[i] == '.' || s[i] == '_' ? s[i] : '-';
	out[i] = '\0';
}

/* What failed, in words. */
static void what_failed(ss_strbuf *sb, const ss_check_result *res, const char *branch)
{
	switch (res->apply) {
	case SS_APPLY_CONFLICT:
		ss_strbuf_addf(sb, "it conflicts in %s, hunk %d", res->path, res->hunk);
		break;
	case SS_APPLY_MISSING:
		ss_strbuf_addf(sb, "it changes %s, which %s does not have", res->path, branch);
		break;
	case SS_APPLY_EXISTS:
		ss_strbuf_addf(sb, "it adds %s, which %s has already", res->path, branch);
		break;
	case SS_APPLY_CLEAN:
		ss_strbuf_addf(sb, "it applies to %s now (it was marked failed: check the "
			       "branch's build and tests)", branch);
		break;
	default:
		ss_strbuf_addf(sb, "whether it applies is not known (binary or no diff)");
	}
}

static void write_mail(FILE *f, ss_check *ck, const ss_commit *c, const ss_check_result *res,
		       const char *branch, const char *from, const char *cc)
{
	ss_strbuf why = SS_STRBUF_INIT;
	char date[64];
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(date, sizeof(date), "%a, %d %b %Y %H:%M:%S +0000", &tm);
	what_failed(&why, res, branch);
	fprintf(f, "From %s Mon Sep 17 00:00:00 2001\n", c->id);
	fprintf(f, "From: %s\n", from);
	fprintf(f, "To: %s <%s>\n", c->author.name, c->author.email);
	if (cc && *cc)
		fprintf(f, "Cc: %s\n", cc);
	fprintf(f, "Subject: FAILED: patch \"%s\" failed to apply to %s stable tree\n", c->subject,
		branch);
	fprintf(f, "Date: %s\n", date);
	fprintf(f, "Content-Type: text/plain; charset=UTF-8\n\n");
	fprintf(f, "The patch below does not apply to the %s stable tree: %s.\n\n", branch, why.buf);
	fprintf(f, "If you want it in %s, please send a backport of it, with the original\n"
		   "commit id in its message, to the address this mail came from%s.\n\n",
		branch, cc && *cc ? " and the Cc" : "");
	if (res->nneeds) {
		fprintf(f, "Prerequisites found (not in %s; they last touched the lines the\n"
			   "conflicting hunk expects), most recent first:\n\n", branch);
		for (int k = 0; k < res->nneeds; k++) {
			ss_commit *p = NULL;

			if (!ss_check_read_commit(&p, ck, res->needs[k]) && p)
				fprintf(f, "  %.12s (\"%s\")\n", p->id, p->subject);
			else
				fprintf(f, "  %.12s\n", res->needs[k]);
			ss_commit_free(p);
		}
		fprintf(f, "\n");
	} else {
		fprintf(f, "No prerequisite was found.\n\n");
	}
	fprintf(f, "To reproduce the failure, in a clone holding the mainline and %s:\n\n", branch);
	fprintf(f, "git checkout -b failed-%.12s %s\n", c->id, ss_check_branch_id(ck));
	fprintf(f, "git cherry-pick -x %s\n\n", c->id);
	if (res->nneeds) {
		fprintf(f, "To try it with the prerequisites (oldest first):\n\n");
		fprintf(f, "git cherry-pick --abort\n");
		fprintf(f, "git cherry-pick -x");
		for (int k = res->nneeds - 1; k >= 0; k--)
			fprintf(f, " %s", res->needs[k]);
		fprintf(f, " %s\n\n", c->id);
	}
	fprintf(f, "------------------ original commit -----------------\n\n");
	fprintf(f, "commit %s\nAuthor: %s <%s>\n\n", c->id, c->author.name, c->author.email);
	for (const char *p = c->message; *p;) {
		size_t len = strcspn(p, "\n");

		fprintf(f, "    %.*s\n", (int)len, p);
		p += len + (p[len] == '\n');
	}
	ss_strbuf_release(&why);
}

int review_failed_mail(const char *dir, const char *cc, const char *const *named, size_t nnamed,
		       const char *db, const char *repo)
{
	struct failed_list l = { NULL, 0, named, nnamed };
	char *path = NULL, *from = NULL, *ccc = NULL;
	const char *r = repo ? repo : ".";
	ss_index *ix = cli_decisions_open(db, repo, 0, &path);
	size_t written = 0;

	if (ss_git_identity(&from, r))
		die("%s", ss_error_last());
	if (!cc && ss_git_config_string(&ccc, r, "stablesel.failedCc"))
		die("%s", ss_error_last());
	if (ss_index_for_each_decision(ix, NULL, collect, &l))
		die("%s", ss_error_last());
	for (size_t i = 0; i < l.n; i++) {
		ss_check_options co = SS_CHECK_OPTIONS_INIT;
		ss_check_result res;
		ss_carried *carried;
		ss_commit *c = NULL;
		ss_check *ck;
		ss_atomic *out;
		char file[4400], bname[200];

		co.rev = l.f[i].branch;
		co.prereqs = 1;
		if (ss_check_open(&ck, r, &co)) {
			error("%s", ss_error_last());
			continue;
		}
		carried = cli_carried_load(ix, path, r, ck, NULL, l.f[i].branch, NULL);
		ss_check_set_carried(ck, carried);
		if (ss_check_read_commit(&c, ck, l.f[i].commit)) {
			error("failed pick %.12s on %s: %s", l.f[i].commit, l.f[i].branch, ss_error_last());
		} else if (ss_check_commit(&res, ck, c)) {
			error("cannot check %.12s on %s: %s", c->id, l.f[i].branch, ss_error_last());
		} else {
			safe_name(bname, sizeof(bname), l.f[i].branch);
			snprintf(file, sizeof(file), "%s/failed-%s-%.12s.eml", dir, bname, c->id);
			out = cli_output_open(file);
			write_mail(ss_atomic_file(out), ck, c, &res, l.f[i].branch, from, cc ? cc : ccc);
			cli_output_commit(out, SIZE_MAX, "mails");
			written++;
		}
		ss_commit_free(c);
		ss_check_free(ck);
		ss_carried_free(carried);
		free(l.f[i].branch);
	}
	note("%zu mails for failed picks written to '%s'%s", written, dir,
	     written ? " (send them with git send-email)" : "");
	free(l.f);
	free(from);
	free(ccc);
	ss_index_free(ix);
	free(path);
	return ss_had_error ? SS_EXIT_BADINPUT : 0;
}
