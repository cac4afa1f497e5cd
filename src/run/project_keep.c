/*
 * project_keep.c - where the project model is kept and whether a kept
 * one's training lies behind the ranked range (project_keep.h).  Moved
 * from cmd/project_model.c (path_of, read_only, make_parent,
 * history_before, add_cut, trained_on_ranked).
 */
#include "run/project_keep.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "eval/eval.h"
#include "source/git.h"
#include "source/git_repo.h"
#include "util/atomic.h"
#include "util/error.h"


int ss_project_model_path(char **out, const char *project_model, const char *repo, ss_repo *rh,
			  const char *stable, const char *index_path)
{
	ss_strbuf sb = SS_STRBUF_INIT;
	char *gitdir = NULL;

	*out = NULL;
	if (project_model)
		return (*out = strdup(project_model)) ? 0 : ss_error_code(SS_ENOMEM, "out of memory");
	if ((repo && !(rh ? ss_repo_locate(&gitdir, NULL, rh) : ss_git_locate(&gitdir, NULL, repo))) ||
	    (stable && !ss_git_locate(&gitdir, NULL, stable))) {
		ss_strbuf_addf(&sb, "%s%sstablesel/project.model", gitdir,
			       gitdir[0] && gitdir[strlen(gitdir) - 1] == '/' ? "" : "/");
	} else if (stable || index_path) {
		/* in the --stable file's folder, or beside the index it was
		 * trained from */
		const char *from = stable ? stable : index_path;
		const char *sub = stable ? "stablesel/" : "";
		const char *slash = strrchr(from, '/');

		if (slash)
			ss_strbuf_addf(&sb, "%.*s/%sproject.model", (int)(slash - from), from, sub);
		else
			ss_strbuf_addf(&sb, "%sproject.model", sub);
	}
	free(gitdir);
	ss_error_clear();
	*out = sb.len ? sb.buf : NULL;  /* NULL: nothing to name it by */
	return 0;
}

/*
 * A folder whose mode grants nobody write access is read-only data (such
 * as ../shared/data), also for root, whom the kernel would let write.
 */
static int read_only(const char *dir)
{
	struct stat st;

	if (stat(dir, &st))
		return 0;
	if (!(st.st_mode & 0222)) {
		errno = EACCES;
		return 1;
	}
	return 0;
}

int ss_project_model_make_parent(const char *path)
{
	char *dir = strdup(path), *slash;
	struct stat st;
	int rc = 0;

	if (!dir)
		return ss_error_code(SS_ENOMEM, "%s", strerror(ENOMEM));
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		if (!stat(dir, &st)) {
			rc = read_only(dir) ? -1 : 0;
		} else {
			/* checked before mkdir, which root may do anywhere */
			char *up = strdup(dir), *s2 = up ? strrchr(up, '/') : NULL;

			if (s2 && s2 != up) {
				*s2 = '\0';
				if (read_only(up))
					rc = -1;
			}
			free(up);
			if (!rc && mkdir(dir, 0777) && errno != EEXIST)
				rc = -1;
		}
	}
	free(dir);
	if (rc) {
		int e = errno;

		rc = ss_error_code(SS_ERROR, "%s", strerror(e));
		errno = e;
	}
	return rc;
}

int ss_project_model_read(ss_model **out, const char *path)
{
	struct stat st;
	FILE *f;
	int fd, rc;

	*out = NULL;
	/* O_NONBLOCK: opening a FIFO for reading would wait for a writer */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return ss_error_code(errno == ENOENT ? SS_ENOTFOUND : SS_ERROR,
				     "cannot open model '%s': %s", path, strerror(errno));
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		rc = ss_error_code(SS_EINVALID, "cannot read the kept model '%s': not a regular file "
				   "(remove it, or name another with --project-model)", path);
		close(fd);
		return rc;
	}
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0 || !(f = fdopen(fd, "rb"))) {
		rc = ss_error_set("cannot read model '%s': %s", path, strerror(errno));
		close(fd);
		return rc;
	}
	rc = ss_model_load_stream(out, f, path);
	fclose(f);
	return rc;
}

int ss_project_model_kept(ss_model **out, char **used, const char *project_model,
			  const char *repo, ss_repo *rh, const ss_run_report *rp)
{
	char *path;
	int rc;

	*out = NULL;
	*used = NULL;
	/* where the project model lives, if anywhere */
	if ((rc = ss_project_model_path(&path, project_model, repo, rh, NULL, NULL)) || !path)
		return rc;
	if ((rc = ss_project_model_read(out, path))) {
		free(path);
		if (project_model)
			return rc;
		if (rc != SS_ENOTFOUND)
			ss_run_say(rp, SS_RUN_WARNING, "%s", ss_error_last());
		ss_error_clear();
		return 0;
	}
	*used = path;
	return 0;
}

int ss_project_model_write(const ss_model *m, const char *path)
{
	ss_atomic *a = NULL;
	int rc;

	if ((rc = ss_atomic_open_regular(&a, path)))
		return rc;
	if ((rc = ss_model_write(m, ss_atomic_file(a), path))) {
		ss_atomic_abort(a);
		return rc;
	}
	return ss_atomic_commit(a);
}

ss_project_held ss_project_model_held(size_t nhistory, int with_index, int nspecs, int repo,
				      int bottoms, int64_t since)
{
	if (nhistory)
		return SS_PROJECT_HELD_HISTORY;
	if (with_index && !nspecs && repo && bottoms)
		return SS_PROJECT_HELD_RANGE;
	return since ? SS_PROJECT_HELD_SINCE : SS_PROJECT_HELD_NONE;
}

int ss_project_model_cut(ss_model_info *in, ss_strbuf *sb, ss_project_held held, int64_t since,
			 const char *repo, ss_repo *rh, const char *const *bottoms, size_t n)
{
	ss_repo *r = NULL;
	size_t i;
	int rc = 0;

	in->cut_since = 0;
	in->ncut = 0;
	if (held == SS_PROJECT_HELD_SINCE) {
		in->cut_since = since;
		ss_strbuf_addf(sb, SS_MODEL_CUT_TEXT_SINCE "%lld", (long long)since);
	}
	if (held != SS_PROJECT_HELD_RANGE || !n)
		return 0;
	if (n > SS_MODEL_CUT_MAX)
		return ss_error_code(SS_EINVALID, "the ranked range has %zu bottoms; a kept project "
				     "model records at most %d", n, SS_MODEL_CUT_MAX);
	/* one open for every bottom, as given (ss_git_resolve()'s way),
	 * none with the run's */
	if ((r = ss_repo_ref(rh)) == NULL && (rc = ss_repo_open_as_given(&r, repo)))
		return rc;
	for (i = 0; i < n && !rc; i++)
		if (!(rc = ss_repo_resolve(in->cut[in->ncut], r, bottoms[i])))
			ss_strbuf_addf(sb, SS_MODEL_CUT_TEXT_ID "%s", in->cut[in->ncut++]);
	ss_repo_free(r);
	if (rc)
		in->ncut = 0;
	return rc;
}

const char *ss_project_model_trained_on_ranked(char *why, size_t size, const ss_model *m,
					       ss_project_held held, int64_t since,
					       const char *repo, ss_repo *rh,
					       const char *const *bottoms, size_t n)
{
	const ss_model_info *in = ss_model_info_of(m);
	char bottom[41], date[16];
	const char *why_cut = NULL;
	ss_repo *r = NULL;
	uint32_t c;
	size_t i;

	if (held == SS_PROJECT_HELD_SINCE) {
		if (in->cut_since && in->cut_since <= since)
			return NULL;
		if (!in->cut_since) {
			snprintf(why, size, "it learnt from commits this ranking scores");
		} else {
			ss_format_date(date, in->cut_since);
			snprintf(why, size, "it learnt from the commits authored before %s, and --since "
				 "is earlier", date);
		}
		return why;
	}
	if (held != SS_PROJECT_HELD_RANGE)
		return NULL;
	if (!in->ncut || in->cut_since) {
		snprintf(why, size, "it learnt from commits this ranking scores, and the history "
			 "before them is known now");
		return why;
	}
	/* a cut id c is behind the ranked range when some bottom b holds it
	 * in its history: then nothing in b..top is c's.  One open for
	 * them all, as given (ss_git_resolve()'s way); a repository that
	 * cannot be opened holds no cut. */
	if (n && (r = ss_repo_ref(rh)) == NULL && ss_repo_open_as_given(&r, repo))
		r = NULL;
	for (c = 0; c < in->ncut && !why_cut; c++) {
		int yes = 0;

		for (i = 0; i < n && !yes && r; i++)
			if (ss_repo_resolve(bottom, r, bottoms[i]) ||
			    ss_repo_contains(&yes, r, bottom, in->cut[c]))
				yes = 0;
		if (!yes) {
			ss_error_clear();
			snprintf(why, size, "it was trained on the history before %.12s, which the "
				 "ranked range does not start after", in->cut[c]);
			why_cut = why;
		}
	}
	ss_repo_free(r);
	return why_cut;
}
