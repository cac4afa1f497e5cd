/*
 * git_ident.c - who decides (ident.h): git's committer identity, from the
 * environment or the configuration.
 */
#include <git2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "source/git.h"
#include "source/ident.h"
#include "util/error.h"

/* key of cfg into buf ("" when unset). */
static void config_get(char *buf, size_t size, git_config *cfg, const char *key)
{
	const char *v;

	buf[0] = '\0';
	if (cfg && !git_config_get_string(&v, cfg, key))
		snprintf(buf, size, "%s", v);
}

/* The configuration of the repository of r (NULL: none), else the
 * default one (NULL when neither can be read); a snapshot, freed by the
 * caller. */
static git_config *config_of(ss_repo *r)
{
	git_config *cfg = NULL, *snap = NULL;

	if (r) {
		git_repository_config_snapshot(&snap, ss_repo_git(r));
	} else if (git_config_open_default(&cfg) == 0) {
		git_config_snapshot(&snap, cfg);
		git_config_free(cfg);
	}
	git_error_clear();
	return snap;
}

/* The repository at repo opened as given (NULL when repo is NULL or no
 * repository: the default configuration is read then; the last error
 * stays what it was). */
static ss_repo *open_quiet(const char *repo)
{
	char *last = ss_error_last()[0] ? strdup(ss_error_last()) : NULL;
	ss_repo *r = NULL;

	if (repo && ss_repo_open_as_given(&r, repo)) {
		if (last)
			ss_error_set("%s", last);
		else
			ss_error_clear();
	}
	free(last);
	return r;
}

int ss_repo_config_string(char **out, ss_repo *r, const char *key)
{
	char buf[1024];
	git_config *cfg;

	*out = NULL;
	if (git_libgit2_init() < 0)
		return ss_error_set("cannot initialise libgit2: %s", ss_git_error());
	cfg = config_of(r);
	config_get(buf, sizeof(buf), cfg, key);
	git_config_free(cfg);
	git_libgit2_shutdown();
	if (buf[0] && !(*out = strdup(buf)))
		return SS_ENOMEM;
	return 0;
}

int ss_git_config_string(char **out, const char *repo, const char *key)
{
	ss_repo *r = open_quiet(repo);
	int rc = ss_repo_config_string(out, r, key);

	ss_repo_free(r);
	return rc;
}

int ss_repo_identity(char **out, ss_repo *r)
{
	const char *en = getenv("GIT_COMMITTER_NAME"), *ee = getenv("GIT_COMMITTER_EMAIL");
	char name[256], email[256];
	git_config *cfg;
	size_t len;

	*out = NULL;
	if (git_libgit2_init() < 0)
		return ss_error_set("cannot initialise libgit2: %s", ss_git_error());
	cfg = config_of(r);
	config_get(name, sizeof(name), cfg, "user.name");
	config_get(email, sizeof(email), cfg, "user.email");
	git_config_free(cfg);
	git_libgit2_shutdown();
	if (en && *en)
		snprintf(name, sizeof(name), "%s", en);
	if (ee && *ee)
		snprintf(email, sizeof(email), "%s", ee);
	if (!name[0] || !email[0])
		return ss_error_code(SS_ENOTFOUND, "cannot tell who decides: set 'git config user.name' "
				     "and 'git config user.email' (or GIT_COMMITTER_NAME and _EMAIL)");
	len = strlen(name) + strlen(email) + 4;
	if (!(*out = malloc(len)))
		return SS_ENOMEM;
	snprintf(*out, len, "%s <%s>", name, email);
	return 0;
}

int ss_git_identity(char **out, const char *repo)
{
	ss_repo *r = open_quiet(repo);
	int rc = ss_repo_identity(out, r);

	ss_repo_free(r);
	return rc;
}
