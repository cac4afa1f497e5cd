/*
 * ident.h - who is at the keyboard, as git would sign a commit: the
 * review decisions (index/index_decisions.h) record it.
 */
#ifndef SS_IDENT_H
#define SS_IDENT_H

#include "source/git_repo.h"  /* ss_repo */

/*
 * "Name <email>" into *out (malloc'd): GIT_COMMITTER_NAME and
 * GIT_COMMITTER_EMAIL when set, else user.name and user.email of the
 * repository at repo (its config, then the global and system ones; repo
 * NULL or no repository: those alone).  SS_ENOTFOUND, saying what to set,
 * when either is missing.
 */
int ss_git_identity(char **out, const char *repo);
/* The same with the configuration of the repository of the handle r
 * (NULL: the global and system ones alone). */
int ss_repo_identity(char **out, ss_repo *r);

/* The string value of git config key in the repository at repo (its
 * config, then the global and system ones) into *out (malloc'd; NULL
 * when unset).  0 or SS_ENOMEM. */
int ss_git_config_string(char **out, const char *repo, const char *key);
/* The same in the repository of the handle r (NULL: the global and system
 * configuration alone). */
int ss_repo_config_string(char **out, ss_repo *r, const char *key);

#endif
