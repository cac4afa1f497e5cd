/* atomic.c - temporary file + fsync + rename (see atomic.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic.h"
#include "error.h"

struct ss_atomic {
	FILE *f;
	char *path;
	char *tmp; /* NULL for standard output */
};

int ss_atomic_open(ss_atomic **out, const char *path)
{
	ss_atomic *a;
	int fd;

	*out = NULL;
	a = calloc(1, sizeof(*a));
	if (!a)
		return SS_ENOMEM;
	if (!strcmp(path, "-")) {
		a->f = stdout;
		*out = a;
		return 0;
	}
	a->path = strdup(path);
	if (!a->path || asprintf(&a->tmp, "%s.tmp.XXXXXX", path) < 0) {
		a->tmp = NULL;
		goto free_a;
	}
	fd = mkstemp(a->tmp);
	if (fd < 0) {
		ss_error_set("cannot create '%s': %s", a->tmp, strerror(errno));
		goto free_a;
	}
	/* mkstemp creates 0600; give the file the mode a plain fopen would */
	{
		mode_t mask = umask(0);

		umask(mask);
		fchmod(fd, 0666 & ~mask);
	}
	a->f = fdopen(fd, "w");
	if (!a->f) {
		close(fd);
		unlink(a->tmp);
		ss_error_set("cannot open '%s': %s", a->tmp, strerror(errno));
		goto free_a;
	}
	*out = a;
	return 0;

free_a:
	free(a->tmp);
	free(a->path);
	free(a);
	return SS_ERROR;
}

FILE *ss_atomic_file(ss_atomic *a)
{
	return a->f;
}

int ss_atomic_commit(ss_atomic *a)
{
	int rc = 0;

	if (!a)
		return 0;
	if (!a->tmp) {
		if (fflush(a->f))
			rc = ss_error_set("cannot write standard output: %s", strerror(errno));
		free(a);
		return rc;
	}
	if (fflush(a->f) || ferror(a->f) || fsync(fileno(a->f))) {
		rc = ss_error_set("cannot write '%s': %s", a->path, strerror(errno));
		fclose(a->f);
		unlink(a->tmp);
	} else if (fclose(a->f)) {
		rc = ss_error_set("cannot write '%s': %s", a->path, strerror(errno));
		unlink(a->tmp);
	} else if (rename(a->tmp, a->path)) {
		rc = ss_error_set("cannot rename '%s' to '%s': %s", a->tmp, a->path,
				  strerror(errno));
		unlink(a->tmp);
	}
	free(a->tmp);
	free(a->path);
	free(a);
	return rc;
}

void ss_atomic_abort(ss_atomic *a)
{
	if (!a)
		return;
	if (a->tmp) {
		fclose(a->f);
		unlink(a->tmp);
	}
	free(a->tmp);
	free(a->path);
	free(a);
}
