/*
 * policy.c - subsystem rules for stable selection (see policy.h).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rank/policy.h"
#include "util/error.h"
#include "util/grow.h"
#include "util/strbuf.h"

struct rule {
	ss_policy_verdict verdict;
	char *prefix;
	char *text;
};

struct ss_policy {
	struct rule *rules;
	size_t n, cap;
};

void ss_policy_free(ss_policy *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->n; i++) {
		free(p->rules[i].prefix);
		free(p->rules[i].text);
	}
	free(p->rules);
	free(p);
}

static int add_rule(ss_policy *p, ss_policy_verdict v, const char *prefix, size_t len,
		    const char *kw)
{
	size_t tl = strlen(kw) + 1 + len + 1;
	struct rule *r;

	if (SS_GROW(p->rules, p->n + 1, p->cap))
		return SS_ENOMEM;
	r = &p->rules[p->n];
	r->verdict = v;
	r->prefix = strndup(prefix, len);
	r->text = malloc(tl);
	if (!r->prefix || !r->text) {
		free(r->prefix);
		free(r->text);
		return SS_ENOMEM;
	}
	snprintf(r->text, tl, "%s %.*s", kw, (int)len, prefix);
	p->n++;
	return 0;
}

int ss_policy_parse(ss_policy **out, const char *text, const char *name)
{
	ss_policy *p = calloc(1, sizeof(*p));
	const char *line = text;
	size_t lineno = 0;
	int rc = 0;

	*out = NULL;
	if (!p)
		return SS_ENOMEM;
	while (*line && !rc) {
		const char *end = strchr(line, '\n'), *s, *e, *w;
		size_t len;

		if (!end)
			end = line + strlen(line);
		lineno++;
		for (s = line; s < end && isspace((unsigned char)*s); s++)
			;
		for (e = s; e < end && *e != '#'; e++)
			;
		while (e > s && isspace((unsigned char)e[-1]))
			e--;
		line = *end ? end + 1 : end;
		if (s == e)
			continue;
		for (w = s; w < e && !isspace((unsigned char)*w); w++)
			;
		len = (size_t)(w - s);
		while (w < e && isspace((unsigned char)*w))
			w++;
		if (w == e) {
			rc = ss_error_code(SS_EINVALID, "%s:%zu: a rule is \"exclude PREFIX\" or \"fixes-only PREFIX\"",
					   name, lineno);
		} else if (len == 7 && !strncmp(s, "exclude", 7)) {
			rc = add_rule(p, SS_POLICY_EXCLUDED, w, (size_t)(e - w), "exclude");
		} else if (len == 10 && !strncmp(s, "fixes-only", 10)) {
			rc = add_rule(p, SS_POLICY_NEEDS_FIXES, w, (size_t)(e - w), "fixes-only");
		} else {
			rc = ss_error_code(SS_EINVALID, "%s:%zu: unknown policy rule '%.*s'", name, lineno,
					   (int)len, s);
		}
	}
	if (rc) {
		ss_policy_free(p);
		return rc;
	}
	*out = p;
	return 0;
}

int ss_policy_load(ss_policy **out, const char *path)
{
	ss_strbuf sb = SS_STRBUF_INIT;
	char buf[4096];
	FILE *f = fopen(path, "r");
	size_t n;
	int rc = 0;

	*out = NULL;
	if (!f)
		return ss_error_code(SS_ENOTFOUND, "cannot open policy '%s': %s", path, strerror(errno));
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0 && !rc)
		rc = ss_strbuf_add(&sb, buf, n);
	if (!rc && ferror(f))
		rc = ss_error_set("cannot read policy '%s': %s", path, strerror(errno));
	fclose(f);
	if (!rc)
		rc = ss_policy_parse(out, sb.buf, path);
	ss_strbuf_release(&sb);
	return rc;
}

static int matches(const struct rule *r, const ss_commit *c)
{
	size_t i, n = strlen(r->prefix);

	if (c->subject && !strncasecmp(c->subject, r->prefix, n))
		return 1;
	for (i = 0; i < c->nfiles; i++) {
		const ss_file *f = &c->files[i];

		if ((f->new_path && !strncmp(f->new_path, r->prefix, n)) ||
		    (f->old_path && !strncmp(f->old_path, r->prefix, n)))
			return 1;
	}
	return 0;
}

ss_policy_verdict ss_policy_check(const ss_policy *p, const ss_commit *c, const char **rule)
{
	size_t i;

	if (rule)
		*rule = NULL;
	if (!p)
		return SS_POLICY_OK;
	for (i = 0; i < p->n; i++) {
		const struct rule *r = &p->rules[i];

		if (!matches(r, c))
			continue;
		if (r->verdict == SS_POLICY_NEEDS_FIXES && ss_commit_trailer(c, "Fixes", NULL))
			continue;
		if (rule)
			*rule = r->text;
		return r->verdict;
	}
	return SS_POLICY_OK;
}
