/*
 * decisions_open.c - the index opened for the review decisions, the
 * branches and commits they name, and the decisions applied to a
 * ranking's --onto branches (decisions_open.h).  Moved from the front
 * end's side, cli/decisions_cli.c, which dies on what these return.
 */
#include "run/decisions_open.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "run/replay_cut.h"
#include "source/git.h"
#include "util/error.h"
#include "util/hexid.h"

int ss_run_decisions_open(ss_index **out, char **path, const char *db, const char *repo,
			  int write, ss_run *run)
{
	ss_run *own = NULL;
	ss_index *ix = NULL;
	ss_repo *rh;
	int rc;

	*out = NULL;
	*path = NULL;
	/* one open of the repository for its index's path and the check
	 * (none with --db and no --repo) */
	if (!run && (rc = ss_run_new(&own)))
		return rc;
	rh = !db || repo ? ss_run_repo(run ? run : own, repo ? repo : ".") : NULL;
	if (db ? !(*path = strdup(db))
	       : rh ? ss_index_default_path_repo(path, rh)
		    : ss_index_default_path(path, repo ? repo : ".")) {
		rc = db ? ss_error_code(SS_ENOMEM, "out of memory") : SS_ERROR;
		goto free_run;
	}
	if ((rc = ss_index_open(&ix, *path, write ? SS_INDEX_WRITE : SS_INDEX_READ)))
		goto free_run;
	if (write) {
		int empty = 0;

		/* a file just made, or a build that never finished, holds no
		 * commits to decide on */
		if (ss_index_is_empty(ix, &empty) || empty) {
			rc = ss_error_code(SS_ERROR, "index '%s' holds no commits: run 'stablesel "
					   "index' first", *path);
			goto free_index;
		}
	}
	if (repo &&
	    (rc = rh ? ss_index_check_repository_repo(ix, rh) : ss_index_check_repository(ix, repo)))
		goto free_index;
	*out = ix;
	ss_run_free(own);
	return 0;
free_index:
	ss_index_free(ix);
free_run:
	ss_run_free(own);
	return rc < 0 ? rc : SS_ERROR;
}

int ss_run_decision_identity(char *out, size_t size, ss_index *ix, const char *repo,
			     const char *name)
{
	int rc = ss_index_branch_identity(out, size, ix, name, NULL);
	char id[41];

	/* a tag or a commit the index does not hold: the repository's (the
	 * index's message kept when that is no branch either) */
	if (rc == SS_ENOTFOUND && repo) {
		char *msg = strdup(ss_error_last());

		if (!ss_git_resolve(id, repo, name))
			rc = ss_index_branch_identity(out, size, ix, name, id);
		if (rc == SS_ENOTFOUND && msg)
			ss_error_set("%s", msg);
		free(msg);
	}
	return rc;
}

/* name into out[*n] unless it is there already (two spellings of one
 * branch decide once). */
static int add_branch(char **out, size_t *n, const char *name)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp(out[i], name))
			return 0;
	if (!(out[*n] = strdup(name)))
		return ss_error_code(SS_ENOMEM, "out of memory");
	++*n;
	return 0;
}

int ss_run_decision_branches(char **out, size_t *count, size_t max, ss_index *ix,
			     const char *path, const char *repo, const char *const *named, size_t n,
			     const ss_run_report *rp)
{
	char *found[SS_RANK_MAX_BRANCHES], name[256];
	size_t more = 0, nf = 0, kept = 0, i;
	int rc = 0;

	*count = 0;
	if (n) {
		for (i = 0; i < n && kept < max; i++)
			if ((rc = ss_run_decision_identity(name, sizeof(name), ix, repo, named[i])) ||
			    (rc = add_branch(out, &kept, name)))
				break;
		*count = kept;
		return rc;
	}
	if ((rc = ss_run_index_branches(found, &nf, max < SS_RANK_MAX_BRANCHES ? max
					: SS_RANK_MAX_BRANCHES, &more, ix, path)))
		return rc;
	if (!nf)
		return ss_error_code(SS_ERROR, "index '%s' knows no live stable branch: name one "
				     "with --branch", path);
	if (more)
		ss_run_say(rp, SS_RUN_WARNING, "%zu more stable branches than %zu: name them with "
			   "--branch", more, max);
	for (i = 0; i < nf; i++) {
		if (!rc && !(rc = ss_run_decision_identity(name, sizeof(name), ix, NULL, found[i])))
			rc = add_branch(out, &kept, name);
		free(found[i]);
	}
	*count = kept;
	return rc;
}

int ss_run_decision_commit(char out[41], ss_index *ix, const char *repo, const char *arg)
{
	int rc = ss_hexid_is_prefix(arg) ? ss_index_resolve(out, ix, arg) : SS_ENOTFOUND;

	if (!rc)
		return 0;
	if (rc == SS_ENOTFOUND && repo && !ss_git_resolve(out, repo, arg))
		return 0;
	if (rc == SS_ENOTFOUND)
		return ss_error_code(SS_ENOTFOUND, "unknown commit '%s': not in the index%s", arg,
				     repo ? " nor in the repository" : "");
	return rc;
}

/* Whether the index records commit on branch (a decision's name). */
static int carries(ss_index *ix, const char *commit, const char *branch)
{
	ss_index_place p;
	int yes = 0;

	if (ss_index_where(&p, ix, commit))
		return 0;
	for (size_t i = 0; i < p.ncarriers && !yes; i++)
		yes = !strcmp(p.carriers[i].branch, branch) ||
		      !strcmp(ss_git_branch_local(p.carriers[i].branch), branch);
	ss_index_place_release(&p);
	return yes;
}

int ss_run_decision_mark_commit(size_t *done, ss_index *ix, const char commit[41],
				char *const *branches, size_t nb, const ss_run_decision_mark *m,
				const ss_run_report *rp)
{
	ss_decision d;
	int rc;

	*done = 0;
	memset(&d, 0, sizeof(d));
	memcpy(d.commit, commit, 41);
	for (size_t b = 0; b < nb; b++) {
		int removed = 0;

		/* without --branch, a branch that has the commit already is
		 * none to decide for */
		if (m->skip_carried && m->state != SS_DECISION_NONE &&
		    carries(ix, d.commit, branches[b])) {
			ss_run_say(rp, SS_RUN_WARNING, "%.12s: skipped on %s, which carries it already",
				   d.commit, branches[b]);
			continue;
		}
		if (m->state == SS_DECISION_NONE) {
			rc = ss_index_decision_reset(ix, d.commit, branches[b], &removed);
		} else {
			d.branch = branches[b];
			d.state = m->state;
			d.until = m->until;
			d.who = m->who;
			d.note = m->note;
			d.time = (int64_t)time(NULL);
			rc = ss_index_decision_set(ix, &d);
		}
		if (rc)
			return rc;
		*done += m->state != SS_DECISION_NONE || removed;
	}
	return 0;
}

/* The branches the decisions are applied for into names, *nb how many
 * (see ss_run_decisions_apply_onto()), and the clock of a replay into
 * *now. */
static int onto_names(char **names, size_t *nb, int64_t *now, ss_index *ix, const char *path,
		      const ss_run_decisions_onto *on)
{
	size_t more = 0, n = 0;
	char name[256];
	int rc;

	if (!on->nonto) {
		/* the index's refs under their identity ("origin/21.11" is
		 * "21.11") */
		if ((rc = ss_run_index_branches(names, nb, SS_RANK_MAX_BRANCHES, &more, ix, path)))
			return rc;
		for (size_t b = 0; b < *nb; b++) {
			if ((rc = ss_run_decision_identity(name, sizeof(name), ix, NULL, names[b])))
				return rc;
			free(names[b]);
			if (!(names[b] = strdup(name)))
				return ss_error_code(SS_ENOMEM, "out of memory");
		}
		return 0;
	}
	/* the branch identities the branches were opened with */
	for (n = 0; n < on->nonto; n++) {
		if (!(names[n] = strdup(on->ident[n] ? on->ident[n] : ss_run_branches_name(on->br, n)))) {
			*nb = n;
			return ss_error_code(SS_ENOMEM, "out of memory");
		}
	}
	*nb = n;
	/* a replay (an --onto set back) judges deferrals by its own clock,
	 * not today's */
	if (on->onto_repo) {
		int64_t clock;

		if ((rc = ss_run_replay_clock(&clock, ix, path, on->onto_repo,
					      ss_run_repo(on->run, on->onto_repo), on->onto,
					      on->nonto)))
			return rc;
		if (clock)
			*now = clock;
	}
	return 0;
}

int ss_run_decisions_apply_onto(ss_ranking *r, ss_index *ix, const char *path,
				const ss_run_decisions_onto *on, ss_run_decisions_options *o)
{
	char *names[SS_RANK_MAX_BRANCHES];
	size_t nb = 0;
	int any = 0, rc;

	/* no decision at all: nothing to look up for each row */
	if (ss_index_decisions_any(ix, NULL, &any))
		return ss_run_fail(SS_ERROR, "cannot read the decisions of '%s'", path);
	if (!any)
		return 0;
	if (!(rc = onto_names(names, &nb, &o->now, ix, path, on))) {
		o->branches = names;
		o->nbranches = nb;
		if (on->as_of)  /* deferrals judged by the clock of then */
			o->now = on->as_of;
		rc = ss_run_decisions_apply(r, ix, path, o);
		o->branches = NULL;
		o->nbranches = 0;
	}
	for (size_t b = 0; b < nb; b++)
		free(names[b]);
	return rc;
}
