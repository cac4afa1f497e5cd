/*
 * git_error.c - libgit2's last error as text, for the messages of every
 * module that calls libgit2 (kept out of util/ so that the ground floor
 * does not link libgit2).
 */
#include <git2.h>

#include "source/git.h"

const char *ss_git_error(void)
{
	const git_error *e = git_error_last();

	return e && e->message ? e->message : "unknown libgit2 error";
}
