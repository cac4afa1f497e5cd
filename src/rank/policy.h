/*
 * policy.h - a subsystem's stable rules: parts of the tree excluded from
 * automatic selection, or limited to commits that carry Fixes:.
 *
 * File format: one rule a line, "#" starts a comment, blank lines skipped:
 *   exclude PREFIX       never propose a commit the rule matches
 *   fixes-only PREFIX    propose a matching commit only with a Fixes: trailer
 * A rule matches a commit when PREFIX is the start of one of the paths it
 * touches ("fs/xfs/") or of its subject, in any case ("xfs:"); PREFIX is
 * the rest of the line, trimmed, and may hold spaces.  The first
 * rule that holds a commit back wins.
 */
#ifndef SS_RANK_POLICY_H
#define SS_RANK_POLICY_H

#include "commit/commit.h"

typedef struct ss_policy ss_policy;

typedef enum {
	SS_POLICY_OK = 0,
	SS_POLICY_EXCLUDED = 1,   /* an exclude rule matched */
	SS_POLICY_NEEDS_FIXES = 2 /* a fixes-only rule matched and no Fixes: */
} ss_policy_verdict;

/* Read a policy file; malformed lines are errors naming file and line. */
int ss_policy_load(ss_policy **out, const char *path);
/* Same from text (name is used in messages). */
int ss_policy_parse(ss_policy **out, const char *text, const char *name);
void ss_policy_free(ss_policy *p); /* NULL is a no-op */

/* The verdict for c; *rule (may be NULL) gets the matching rule's text
 * ("exclude fs/xfs/"), owned by p.  p NULL: always SS_POLICY_OK. */
ss_policy_verdict ss_policy_check(const ss_policy *p, const ss_commit *c, const char **rule);

#endif
