/*
 * source.c - pick the kind of source for a spec, and mask once.
 *
 * Masking of stable tags happens here, right after a commit is parsed and
 * before anyone else sees it, for every kind of source.
 */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "source/impl.h"
#include "util/error.h"



struct ss_source {
	ss_source_ops ops;
	void *impl;
	ss_source_options opts;
	ss_source_stats stats;
};

int ss_source_is_repository(const char *spec)
{
	struct stat st;

	if (!strncmp(spec, "git:", 4))
		return 1;
	return strcmp(spec, "-") && !stat(spec, &st) && S_ISDIR(st.st_mode);
}

int ss_source_open(ss_source **out, const char *spec, const ss_source_options *opts)
{
	static const ss_source_options defaults = SS_SOURCE_OPTIONS_INIT;
	ss_source *s;
	int rc;

	*out = NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return ss_error_code(SS_ENOMEM, "out of memory");
	s->opts = opts ? *opts : defaults;
	if (!spec)
		spec = s->opts.repo;
	if (!spec) {
		free(s);
		return ss_error_code(SS_EINVALID, "no source given");
	}
	/* --repo PATH is a repository even when it does not exist, so that
	 * the error says "cannot open repository" */
	if (ss_source_is_repository(spec) || (s->opts.repo && !strcmp(spec, s->opts.repo)))
		rc = ss_git_open(&s->impl, &s->ops, strncmp(spec, "git:", 4) ? spec : spec + 4,
				 &s->opts, &s->stats);
	else
		rc = ss_mbox_open(&s->impl, &s->ops, spec, &s->opts, &s->stats);
	if (rc) {
		free(s);
		return rc;
	}
	*out = s;
	return 0;
}

int ss_source_next(ss_commit **out, ss_source *s)
{
	ss_commit *c;
	int rc;

	*out = NULL;
	for (;;) {
		if ((rc = s->ops.next(&c, s->impl)))
			return rc;
		if (!s->opts.until || c->committer.time <= s->opts.until)
			break;
		s->stats.later++;
		ss_commit_free(c);
	}
	if (s->opts.mask_stable_tags) {
		rc = ss_commit_mask_stable(c);
		if (rc) {
			ss_commit_free(c);
			return rc;
		}
		s->stats.masked += c->masked != 0;
	}
	s->stats.truncated += c->truncated != 0;
	c->index = s->stats.commits++;
	*out = c;
	return 0;
}

struct git_repository *ss_source_git_repo(ss_source *s)
{
	return s && s->ops.repo ? s->ops.repo(s->impl) : NULL;
}

const ss_source_stats *ss_source_stats_get(const ss_source *s)
{
	return &s->stats;
}

int ss_source_each(ss_source *src, ss_source_commit_fn fn, ss_source_skip_fn skip, void *ud)
{
	ss_commit *c;
	int rc;

	for (;;) {
		rc = ss_source_next(&c, src);
		if (rc == SS_ITEROVER)
			return 0;
		if (rc == SS_ESKIP) {
			if (skip && (rc = skip(ud)))
				return rc;
			continue;
		}
		if (rc || (rc = fn(c, ud)))
			return rc;
	}
}

void ss_source_free(ss_source *s)
{
	if (!s)
		return;
	if (s->impl)
		s->ops.free(s->impl);
	free(s);
}

int ss_source_read_alone(ss_commit **out, const char *repo, const char *id)
{
	ss_source_options so = SS_SOURCE_OPTIONS_INIT;
	char parent[48];
	const char *revs[2] = { id, parent };
	ss_source *src;
	ss_commit *c;
	int rc;

	*out = NULL;
	snprintf(parent, sizeof(parent), "^%s^", id);
	so.repo = repo;
	so.revs = revs;
	so.nrevs = 2;
	if (ss_source_open(&src, repo, &so)) {
		/* a root commit has no parent to hide */
		so.nrevs = 1;
		if ((rc = ss_source_open(&src, repo, &so)))
			return rc;
		ss_error_clear();
	}
	while (!*out && (rc = ss_source_next(&c, src)) != SS_ITEROVER) {
		if (rc == SS_ESKIP)
			continue;
		if (rc)
			break;
		if (!strcmp(c->id, id))
			*out = c;
		else
			ss_commit_free(c);
	}
	ss_source_free(src);
	return *out || rc == SS_ITEROVER ? 0 : rc;
}
