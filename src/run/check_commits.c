/*
 * check_commits.c - "check" through a run (check_commits.h): the branch
 * opened on the run's repository, what it carries read for --prereqs
 * (the index borrowed from the run), each commit of the sources checked
 * and counted.
 */
#include <stdlib.h>

#include "run/branches.h"
#include "run/check_commits.h"
#include "run/commits.h"
#include "util/error.h"

struct ss_run_check {
	const ss_run_check_options *o;
	ss_check *ck;
	ss_carried *carried;
};

/* What the branch carries, from the index when it is up to date. */
static int load_carried(ss_run_check *rc)
{
	const ss_run_check_options *o = rc->o;
	ss_index *ix = NULL;
	char *path = NULL;
	int err;

	if (!o->no_index &&
	    (err = ss_run_index_read(&ix, &path, o->run, o->db, o->onto_repo, 0, o->rp)))
		return err;
	err = ss_run_carried_load(&rc->carried, NULL, ix, path, o->onto_repo, rc->ck, o->upstream,
				  o->co.rev, o->rp);
	if (!err)
		ss_check_set_carried(rc->ck, rc->carried);
	ss_index_free(ix);
	free(path);
	return err;
}

int ss_run_check_new(ss_run_check **out, const ss_run_check_options *o)
{
	ss_check_options co = o->co;
	ss_run_check *rc;
	const char *amb;
	int err;

	*out = NULL;
	if (!(rc = calloc(1, sizeof(*rc))))
		return ss_error_code(SS_ENOMEM, "out of memory");
	rc->o = o;
	co.repo = ss_run_repo(o->run, o->onto_repo);
	if ((err = ss_check_open(&rc->ck, o->onto_repo, &co)))
		goto fail;
	/* whole: it names every candidate */
	if ((amb = ss_check_ambiguity(rc->ck)) && o->rp && o->rp->say)
		o->rp->say(SS_RUN_WARNING, amb, o->rp->ud);
	/* no blame for what the branch carries under another id */
	if (co.prereqs && (err = load_carried(rc)))
		goto fail;
	*out = rc;
	return 0;
fail:
	ss_run_check_free(rc);
	return err;
}

void ss_run_check_free(ss_run_check *rc)
{
	if (!rc)
		return;
	ss_check_free(rc->ck);
	ss_carried_free(rc->carried);
	free(rc);
}

const ss_check *ss_run_check_branch(const ss_run_check *rc)
{
	return rc->ck;
}

struct checking {
	ss_run_check *rc;
	ss_run_check_counts *n;
	ss_run_check_fn fn;
	void *ud;
};

static int check_one(ss_commit *c, void *data)
{
	struct checking *k = data;
	ss_check_result res;
	int stop;

	if (ss_check_commit(&res, k->rc->ck, c)) {
		ss_run_say(k->rc->o->rp, SS_RUN_ERROR, "cannot check commit %s: %s", c->id,
			   ss_error_last());
		ss_commit_free(c);
		return 0;
	}
	k->n->apply[res.apply]++;
	k->n->in_branch += res.in_branch;
	k->n->carried += res.carried_as[0] != 0;
	k->n->bug_absent += res.bug_in_branch == 0;
	stop = k->fn(c, &res, k->ud);
	ss_commit_free(c);
	return stop;
}

int ss_run_check_commits(ss_run_check *rc, ss_run_check_counts *counts, const char *repo,
			 const char *const *specs, size_t nspecs, const ss_source_options *opts,
			 ss_run_check_fn fn, void *ud)
{
	struct checking k = { rc, counts, fn, ud };
	size_t n;
	int err;

	err = ss_run_read_sources(&n, repo, specs, nspecs, opts, check_one, &k, NULL, rc->o->rp);
	counts->total += n;
	return err;
}
