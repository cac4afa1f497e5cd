/*
 * failed_mail.c - the mails for accepted picks marked failed on a branch
 * (failed_mail.h; "stablesel review --failed-mail --mail-dir DIR", whose
 * command side, cmd/review_mail.c, says how many were written), in the
 * manner of the kernel's "FAILED: patch ... failed to apply to X-stable
 * tree": what failed (the file and hunk, checked again now with
 * check/check.h), the prerequisites found (the commits not in the branch
 * that last touched the lines the hunk expects), and the commands that
 * try the backport; every mail written into its file of a folder.
 */
#include "run/failed_mail.h"

#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "run/branches.h"
#include "run/decisions_open.h"
#include "source/ident.h"
#include "util/atomic.h"
#include "source/mail_header.h"
#include "util/error.h"
#include "util/strbuf.h"

static int collect(const ss_decision *d, void *ud)
{
	ss_run_failed_list *l = ud;
	size_t i;

	if (d->state != SS_DECISION_FAILED)
		return 0;
	for (i = 0; i < l->nnamed && strcmp(l->named[i], d->branch); i++)
		;
	if (l->nnamed && i == l->nnamed)
		return 0;
	if (!(l->f = realloc(l->f, (l->n + 1) * sizeof(*l->f))) ||
	    !(l->f[l->n].branch = strdup(d->branch)))
		return ss_error_code(SS_ENOMEM, "out of memory");
	memcpy(l->f[l->n].commit, d->commit, 41);
	l->n++;
	return 0;
}

int ss_run_failed_picks(ss_run_failed_list *l, ss_index *ix, const char *const *named,
			size_t nnamed)
{
	memset(l, 0, sizeof(*l));
	l->named = named;
	l->nnamed = nnamed;
	return ss_index_for_each_decision(ix, NULL, collect, l);
}

void ss_run_failed_list_release(ss_run_failed_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->f[i].branch);
	free(l->f);
	l->f = NULL;
	l->n = 0;
}

/* A file name part: the branch's '/' and anything odd as '-'; whether
 * anything was changed. */
static int safe_name(char *out, size_t size, const char *s)
{
	size_t i;
	int changed = 0;

	for (i = 0; s[i] && i + 1 < size; i++) {
		out[i] = (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
			 (s[i] >= '0' && s[i] <= '9') || s[i] == '.' || s[i] == '_' ? s[i] : '-';
		changed |= out[i] != s[i];
	}
	out[i] = '\0';
	return changed || s[i];
}

/* FNV-1a: a short, stable tag of a branch name for its file name. */
static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
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

/* From: git's identity "Name <email>" is one mailbox whatever the name
 * holds (a comma, an '@'); anything else an address list. */
static int mail_from(ss_strbuf *sb, const char *from)
{
	const char *lt = strrchr(from, '<');
	size_t len = strlen(from);
	char *name, *email;
	int rc;

	if (!lt || len < 2 || from[len - 1] != '>')
		return ss_mail_header_addresses(sb, "From", from);
	name = strndup(from, (size_t)(lt - from));
	email = strndup(lt + 1, (size_t)(from + len - 1 - (lt + 1)));
	if (!name || !email) {
		free(name);
		free(email);
		return ss_error_code(SS_ENOMEM, "out of memory");
	}
	for (size_t n = strlen(name); n && (name[n - 1] == ' ' || name[n - 1] == '\t'); n--)
		name[n - 1] = '\0';
	rc = ss_mail_header_mailbox(sb, "From", name, email);
	free(name);
	free(email);
	return rc;
}

/* The mail's header, the blank line after it included, into sb. */
static int mail_header(ss_strbuf *sb, const ss_commit *c, const char *branch, const char *from,
		       const char *cc)
{
	ss_strbuf subject = SS_STRBUF_INIT;
	char date[64];
	time_t now = time(NULL);
	struct tm tm;
	int rc;

	gmtime_r(&now, &tm);
	strftime(date, sizeof(date), "%a, %d %b %Y %H:%M:%S +0000", &tm);
	if (ss_strbuf_addf(&subject, "FAILED: patch \"%s\" failed to apply to %s stable tree",
			   c->subject, branch))
		return ss_error_code(SS_ENOMEM, "out of memory");
	if (!(rc = ss_strbuf_addf(sb, "From %s Mon Sep 17 00:00:00 2001\n", c->id)
			   ? ss_error_code(SS_ENOMEM, "out of memory") : 0) &&
	    !(rc = mail_from(sb, from)) &&
	    !(rc = ss_mail_header_mailbox(sb, "To", c->author.name, c->author.email)) &&
	    !(rc = cc && *cc ? ss_mail_header_addresses(sb, "Cc", cc) : 0) &&
	    !(rc = ss_mail_header_text(sb, "Subject", subject.buf)) &&
	    ss_strbuf_addf(sb, "Date: %s\nMIME-Version: 1.0\nContent-Type: text/plain; charset=UTF-8\n"
			   "Content-Transfer-Encoding: 8bit\n\n", date))
		rc = ss_error_code(SS_ENOMEM, "out of memory");
	ss_strbuf_release(&subject);
	return rc;
}

int ss_run_failed_mail_write(FILE *f, ss_check *ck, const ss_commit *c, const ss_check_result *res,
			     const char *branch, const char *from, const char *cc)
{
	ss_strbuf why = SS_STRBUF_INIT, head = SS_STRBUF_INIT;
	int rc;

	if ((rc = mail_header(&head, c, branch, from, cc))) {
		ss_strbuf_release(&head);
		return rc;
	}
	fputs(head.buf, f);
	ss_strbuf_release(&head);
	what_failed(&why, res, branch);
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
	return 0;
}

void ss_run_failed_mail_file(char *out, size_t size, const char *dir, const char *branch,
			     const char *commit)
{
	char bname[200];

	/* a name changed to be safe gets its hash after a '+', which no
	 * unchanged name holds: "a/b" and "a-b" are two files */
	if (safe_name(bname, sizeof(bname), branch))
		snprintf(out, size, "%s/failed-%s+%08x-%.12s.eml", dir, bname, name_hash(branch),
			 commit);
	else
		snprintf(out, size, "%s/failed-%s-%.12s.eml", dir, bname, commit);
}

int ss_run_failed_mail_check(ss_run_failed_check *m, ss_index *ix, const char *path,
			     const char *repo, const ss_run_failed_pick *p, const ss_run_report *rp)
{
	ss_check_options co = SS_CHECK_OPTIONS_INIT;
	char why[1024];
	int rc;

	memset(m, 0, sizeof(*m));
	for (const char *s = p->branch; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return ss_error_code(SS_ESKIP, "failed pick %.12s: its branch name holds a "
					     "control character (a line break?): no mail is written "
					     "for it", p->commit);
	co.rev = p->branch;
	co.prereqs = 1;
	if (ss_check_open(&m->ck, repo, &co))
		return SS_ESKIP;  /* its message names the branch */
	if ((rc = ss_run_carried_load(&m->carried, NULL, ix, path, repo, m->ck, NULL, p->branch, rp)))
		return rc == SS_ESKIP ? SS_ERROR : rc;
	ss_check_set_carried(m->ck, m->carried);
	if (ss_check_read_commit(&m->c, m->ck, p->commit)) {
		snprintf(why, sizeof(why), "%s", ss_error_last());
		return ss_error_code(SS_ESKIP, "failed pick %.12s on %s: %s", p->commit, p->branch,
				     why);
	}
	if (ss_check_commit(&m->res, m->ck, m->c)) {
		snprintf(why, sizeof(why), "%s", ss_error_last());
		return ss_error_code(SS_ESKIP, "cannot check %.12s on %s: %s", m->c->id, p->branch,
				     why);
	}
	return 0;
}

void ss_run_failed_check_release(ss_run_failed_check *m)
{
	ss_commit_free(m->c);
	ss_check_free(m->ck);
	ss_carried_free(m->carried);
	memset(m, 0, sizeof(*m));
}

/* The file of a mail written but once: a name made twice (two branch
 * names of one hash) is never written over. */
static int name_once(char ***names, size_t *n, const char *file)
{
	char **grown;

	for (size_t k = 0; k < *n; k++)
		if (!strcmp((*names)[k], file))
			return ss_error_code(SS_EINVALID, "two failed mails would be written to '%s'",
					     file);
	if (!(grown = realloc(*names, (*n + 1) * sizeof(*grown))))
		return ss_error_code(SS_ENOMEM, "out of memory");
	*names = grown;
	if (!(grown[*n] = strdup(file)))
		return ss_error_code(SS_ENOMEM, "out of memory");
	(*n)++;
	return 0;
}

/* One mail written into its file, committed whole. */
static int write_one(const char *file, const ss_run_failed_check *m, const char *branch,
		     const char *from, const char *cc, const ss_run_report *rp)
{
	ss_atomic_info info;
	ss_atomic *out;
	char *target;
	int rc;

	if ((rc = ss_atomic_open(&out, file)))
		return rc;
	if ((rc = ss_run_failed_mail_write(ss_atomic_file(out), m->ck, m->c, &m->res, branch, from,
					   cc))) {
		ss_atomic_abort(out);
		return rc;
	}
	/* the name outlives the commit, which frees info's */
	ss_atomic_get_info(&info, out);
	target = info.replaces && info.links > 1 ? strdup(info.target) : NULL;
	if ((rc = ss_atomic_commit(out))) {
		free(target);
		return rc;
	}
	if (target)
		ss_run_say(rp, SS_RUN_WARNING, "'%s' had %lu hard links: replaced by a new file, "
			   "its other names keep the old content", target, info.links);
	free(target);
	return 0;
}

int ss_run_failed_mails_write(size_t *written, const ss_run_failed_mails_options *o,
			      const ss_run_report *rp)
{
	ss_run_failed_list l;
	char *path = NULL, *from = NULL, *ccc = NULL, **names = NULL;
	const char *r = o->repo ? o->repo : ".";
	ss_index *ix = NULL;
	size_t nnames = 0;
	int rc;

	*written = 0;
	/* the folder first, made when missing */
	if ((rc = ss_atomic_make_dirs(o->dir)))
		return rc;
	if ((rc = ss_run_decisions_open(&ix, &path, o->db, o->repo, 0, NULL)))
		goto free_index;
	if ((rc = ss_git_identity(&from, r)) ||
	    (!o->cc && (rc = ss_git_config_string(&ccc, r, "stablesel.failedCc"))))
		goto free_index;
	if ((rc = ss_run_failed_picks(&l, ix, o->named, o->nnamed)))
		goto free_index;
	for (size_t i = 0; i < l.n && !rc; i++) {
		ss_run_failed_check m;
		char file[4400];

		rc = ss_run_failed_mail_check(&m, ix, path, r, &l.f[i], rp);
		if (rc == SS_ESKIP) {
			ss_run_say(rp, SS_RUN_ERROR, "%s", ss_error_last());
			rc = 0;
		} else if (!rc) {
			ss_run_failed_mail_file(file, sizeof(file), o->dir, l.f[i].branch, m.c->id);
			if (!(rc = name_once(&names, &nnames, file)) &&
			    !(rc = write_one(file, &m, l.f[i].branch, from, o->cc ? o->cc : ccc, rp)))
				(*written)++;
		}
		ss_run_failed_check_release(&m);
	}
	ss_run_failed_list_release(&l);
free_index:
	for (size_t k = 0; k < nnames; k++)
		free(names[k]);
	free(names);
	free(from);
	free(ccc);
	ss_index_free(ix);
	free(path);
	return rc;
}
