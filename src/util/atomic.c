/*
 * atomic.c - output files: temporary file + fsync + rename for regular
 * files, direct writes for descriptors, devices and FIFOs, and removal of
 * live temporary files at exit and on fatal signals (see atomic.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic.h"
#include "error.h"

struct ss_atomic {
	FILE *f;
	char *path;   /* as given, for messages */
	char *target; /* the file replaced (symlinks followed); NULL when direct */
	char *tmp;    /* NULL when direct */
	int slot;     /* in the live list; -1 when direct */
	int own;      /* f is ours to close (not stdout) */
	ss_atomic_info info;
};

/*
 * The live temporary files, for the signal handler and exit: a slot is
 * filled before its flag is set and the flag cleared before the slot is
 * reused, so the handler (which may interrupt anything) reads only whole
 * paths.  Fixed buffers: the handler must not touch the heap.  owner is
 * the process that created the file, so that a forked child's exit does
 * not remove its parent's files.
 */
static char live_path[SS_ATOMIC_MAX][PATH_MAX];
static volatile sig_atomic_t live_used[SS_ATOMIC_MAX];
static pid_t live_owner[SS_ATOMIC_MAX];
static int cleanup_installed;

static const int fatal_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE };

/* async-signal-safe: getpid() and unlink() of fixed buffers */
static void unlink_live(void)
{
	pid_t self = getpid();
	int i;

	for (i = 0; i < SS_ATOMIC_MAX; i++)
		if (live_used[i] && live_owner[i] == self)
			unlink(live_path[i]);
}

/* unlink(), signal() and raise() are async-signal-safe */
static void on_signal(int sig)
{
	unlink_live();
	signal(sig, SIG_DFL);
	/* dies now, or when the handler returns if sig is blocked in it */
	raise(sig);
}

static void on_exit_cleanup(void)
{
	unlink_live();
}

/* Once: remove temporaries at exit, and on the fatal signals whose
 * disposition is still the default (an ignored SIGHUP under nohup, or a
 * handler of the caller's, is left alone). */
static void install_cleanup(void)
{
	size_t i;

	if (cleanup_installed)
		return;
	cleanup_installed = 1;
	atexit(on_exit_cleanup);
	for (i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]); i++) {
		struct sigaction old, sa;

		if (sigaction(fatal_signals[i], NULL, &old) || (old.sa_flags & SA_SIGINFO) ||
		    old.sa_handler != SIG_DFL)
			continue;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_signal;
		sigemptyset(&sa.sa_mask);
		sigaction(fatal_signals[i], &sa, NULL);
	}
}

static int live_add(const char *tmp)
{
	int i;

	if (strlen(tmp) >= PATH_MAX)
		return -1;
	for (i = 0; i < SS_ATOMIC_MAX; i++) {
		if (!live_used[i]) {
			strcpy(live_path[i], tmp);
			live_owner[i] = getpid();
			live_used[i] = 1;
			return i;
		}
	}
	return -1;
}

static void live_remove(int slot)
{
	if (slot >= 0)
		live_used[slot] = 0;
}

static void atomic_free(ss_atomic *a)
{
	free(a->path);
	free(a->target);
	free(a->tmp);
	free(a);
}

/* The descriptor named by /dev/stdout, /dev/stderr, /dev/stdin,
 * /dev/fd/N or /proc/self/fd/N, or -1.  These are written directly (as
 * the shell does): following the magic link would find a pipe that cannot
 * be renamed over, or a file the shell opened in append mode. */
static int fd_name(const char *path)
{
	static const char *const prefixes[] = { "/dev/fd/", "/proc/self/fd/" };
	size_t i;

	if (!strcmp(path, "/dev/stdin"))
		return 0;
	if (!strcmp(path, "/dev/stdout"))
		return 1;
	if (!strcmp(path, "/dev/stderr"))
		return 2;
	for (i = 0; i < 2; i++) {
		size_t n = strlen(prefixes[i]);
		const char *p = path + n;
		char *end;
		long fd;

		if (strncmp(path, prefixes[i], n) || *p < '0' || *p > '9')
			continue;
		errno = 0;
		fd = strtol(p, &end, 10);
		if (!errno && !*end && fd <= INT_MAX)
			return (int)fd;
	}
	return -1;
}

/* path with every symlink followed to the file it names (which may not
 * exist: a dangling link creates its target, as the shell's > does); st
 * is the lstat() of the result, or *exists is 0. */
static int resolve(char **out, struct stat *st, int *exists, const char *path)
{
	char *cur = strdup(path);
	int hops;

	*out = NULL;
	*exists = 0;
	if (!cur)
		return SS_ENOMEM;
	for (hops = 0; hops < 40; hops++) {
		char *link, *next, *slash;
		ssize_t n;

		if (lstat(cur, st)) {
			if (errno == ENOENT) {
				*out = cur;
				return 0;
			}
			ss_error_set("cannot write '%s': %s", path, strerror(errno));
			goto free_cur;
		}
		if (!S_ISLNK(st->st_mode)) {
			*exists = 1;
			*out = cur;
			return 0;
		}
		link = malloc(PATH_MAX);
		if (!link)
			goto nomem;
		n = readlink(cur, link, PATH_MAX - 1);
		if (n < 0) {
			ss_error_set("cannot write '%s': cannot read link '%s': %s", path, cur,
				     strerror(errno));
			free(link);
			goto free_cur;
		}
		link[n] = '\0';
		slash = strrchr(cur, '/');
		if (link[0] == '/' || !slash) {
			next = link;
		} else {
			if (asprintf(&next, "%.*s/%s", (int)(slash - cur), cur, link) < 0) {
				free(link);
				goto nomem;
			}
			free(link);
		}
		free(cur);
		cur = next;
	}
	ss_error_set("cannot write '%s': %s", path, strerror(ELOOP));
	goto free_cur;

nomem:
	ss_error_set("out of memory");
free_cur:
	free(cur);
	return SS_ERROR;
}

static int open_direct(ss_atomic *a, const char *path, int fd)
{
	a->slot = -1;
	a->info.direct = 1;
	if (fd == 1) {
		a->f = stdout;
		return 0;
	}
	fd = fd >= 0 ? fcntl(fd, F_DUPFD_CLOEXEC, 3) : open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return ss_error_set("cannot write '%s': %s", path, strerror(errno));
	a->f = fdopen(fd, "w");
	if (!a->f) {
		close(fd);
		return ss_error_set("cannot write '%s': %s", path, strerror(errno));
	}
	a->own = 1;
	return 0;
}

/* A regular file, new or replaced: a temporary file beside the target. */
static int open_temp(ss_atomic *a, const char *path)
{
	struct stat st;
	int exists, fd;
	mode_t mode;

	if (resolve(&a->target, &st, &exists, path))
		return SS_ERROR;
	a->info.target = a->target;
	if (exists) {
		/* stat() said regular, but the file may have changed since */
		if (!S_ISREG(st.st_mode))
			return ss_error_set("cannot write '%s': not a regular file", path);
		/* a write-protected file is not replaced, as > would not */
		if (access(a->target, W_OK))
			return ss_error_set("cannot write '%s': %s", path, strerror(errno));
		a->info.replaces = 1;
		a->info.size = (long long)st.st_size;
		a->info.links = (unsigned long)st.st_nlink;
		mode = st.st_mode & 0777;
	} else {
		mode_t mask = umask(0);

		umask(mask);
		mode = 0666 & ~mask;
	}
	if (asprintf(&a->tmp, "%s.tmp.XXXXXX", a->target) < 0) {
		a->tmp = NULL;
		return ss_error_set("out of memory");
	}
	fd = mkstemp(a->tmp);
	if (fd < 0) {
		int e = errno;

		free(a->tmp);
		a->tmp = NULL;
		return ss_error_set("cannot write '%s': %s", path, strerror(e));
	}
	a->slot = live_add(a->tmp);
	if (a->slot < 0) {
		close(fd);
		unlink(a->tmp);
		return ss_error_set("cannot write '%s': more than %d output files open", path,
				    SS_ATOMIC_MAX);
	}
	/* the replaced file's owner where we may set it (root), else ours */
	if (exists && (st.st_uid != geteuid() || st.st_gid != getegid()) &&
	    fchown(fd, st.st_uid, st.st_gid))
		(void)!fchown(fd, (uid_t)-1, st.st_gid);
	/* mkstemp creates 0600: the old file's mode, or what fopen would give */
	fchmod(fd, mode);
	a->f = fdopen(fd, "w");
	if (!a->f) {
		int e = errno;

		close(fd);
		unlink(a->tmp);
		live_remove(a->slot);
		return ss_error_set("cannot write '%s': %s", path, strerror(e));
	}
	a->own = 1;
	return 0;
}

int ss_atomic_open(ss_atomic **out, const char *path)
{
	ss_atomic *a;
	struct stat st;
	int rc, fd;

	*out = NULL;
	if (!*path)
		return ss_error_set("cannot write '': the output path is empty");
	a = calloc(1, sizeof(*a));
	if (!a || !(a->path = strdup(path))) {
		free(a);
		return ss_error_code(SS_ENOMEM, "out of memory");
	}
	a->slot = -1;
	install_cleanup();
	fd = !strcmp(path, "-") ? 1 : fd_name(path);
	if (fd >= 0) {
		rc = open_direct(a, path, fd);
	} else if (!stat(path, &st)) {
		if (S_ISDIR(st.st_mode))
			rc = ss_error_set("cannot write '%s': %s", path, strerror(EISDIR));
		else if (!S_ISREG(st.st_mode))
			rc = open_direct(a, path, -1);
		else
			rc = open_temp(a, path);
	} else if (errno == ENOENT) {
		rc = open_temp(a, path);
	} else {
		rc = ss_error_set("cannot write '%s': %s", path, strerror(errno));
	}
	if (rc) {
		atomic_free(a);
		return rc;
	}
	*out = a;
	return 0;
}

/* What a file that is not regular is, for a message. */
static const char *file_kind(mode_t mode)
{
	if (S_ISLNK(mode))
		return "a symbolic link";
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISSOCK(mode))
		return "a socket";
	if (S_ISCHR(mode) || S_ISBLK(mode))
		return "a device";
	return "a special file";
}

int ss_atomic_open_regular(ss_atomic **out, const char *path)
{
	struct stat st;

	*out = NULL;
	/* lstat: the name itself.  rename() later replaces the name, never
	 * what a link made in between names, so checking first is enough */
	if (*path && !lstat(path, &st) && !S_ISREG(st.st_mode))
		return ss_error_set("cannot write '%s': it is %s, not a regular file (remove it "
				    "or name another path)", path, file_kind(st.st_mode));
	return ss_atomic_open(out, path);
}

int ss_atomic_make_dirs(const char *dir)
{
	char *d, *p;
	struct stat st;
	int rc = 0;

	if (!*dir)
		return ss_error_set("cannot make the folder '': the path is empty");
	if (!(d = strdup(dir)))
		return ss_error_set("out of memory");
	/* each prefix ending before a '/', then the whole */
	for (p = d + 1;; p++) {
		char was = *p;

		if (was && was != '/')
			continue;
		*p = '\0';
		if (mkdir(d, 0777) && errno != EEXIST) {
			rc = ss_error_set("cannot make the folder '%s': %s", d, strerror(errno));
		} else if (stat(d, &st) || !S_ISDIR(st.st_mode)) {
			rc = ss_error_set("cannot make the folder '%s': '%s' is not a folder", dir, d);
		}
		*p = was;
		if (rc || !was)
			break;
	}
	free(d);
	return rc;
}

FILE *ss_atomic_file(ss_atomic *a)
{
	return a->f;
}

void ss_atomic_get_info(ss_atomic_info *out, const ss_atomic *a)
{
	*out = a->info;
}

int ss_atomic_commit(ss_atomic *a)
{
	int rc = 0, e = 0;

	if (!a)
		return 0;
	if (fflush(a->f))
		e = errno;
	else if (ferror(a->f))
		e = EIO;
	else if (a->tmp && fsync(fileno(a->f)))
		e = errno;
	if (a->own && fclose(a->f) && !e)
		e = errno;
	if (e && !strcmp(a->path, "-")) {
		rc = ss_error_set("cannot write standard output: %s", strerror(e));
	} else if (e) {
		rc = ss_error_set("cannot write '%s': %s", a->path, strerror(e));
	} else if (a->tmp && rename(a->tmp, a->target)) {
		e = errno;
		rc = ss_error_set("cannot rename '%s' to '%s': %s", a->tmp, a->target,
				  strerror(e));
	}
	if (a->tmp) {
		if (rc)
			unlink(a->tmp);
		/* after the rename: a signal in between finds the name gone */
		live_remove(a->slot);
	}
	atomic_free(a);
	return rc;
}

void ss_atomic_abort(ss_atomic *a)
{
	if (!a)
		return;
	if (a->own)
		fclose(a->f);
	if (a->tmp) {
		unlink(a->tmp);
		live_remove(a->slot);
	}
	atomic_free(a);
}
