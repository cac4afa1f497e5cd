/*
 * git_loose.c - reading one loose object (objects/xx/yyyy...), for the
 * object store of git_pack.c.
 *
 * Written by hand although libgit2 reads loose objects: libgit2 1.5's
 * loose backend loops forever inside inflate on a truncated loose object
 * (it keeps calling inflate after zlib has reported that no progress is
 * possible), so `stablesel log` hung where git says "corrupt loose
 * object".  Here the whole file is handed to zlib at once, so a single
 * inflate(Z_FINISH) either reaches Z_STREAM_END or fails for good
 * (Z_BUF_ERROR: no more input or no more room), and the header's
 * "<type> <size>\0" is checked against what the data inflates to.
 *
 * Loose objects in git's long-gone uncompressed ("packed-like") format
 * are left to libgit2 (GIT_PASSTHROUGH).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <git2.h>
#include <git2/sys/odb_backend.h>

#include "source/git_impl.h"

enum {
	LOOSE_HEAD_MAX = 64  /* "commit 18446744073709551615\0" and room to spare */
};

/* objdir ends in '/': objdir + "xx/yyyy..." */
static int loose_path(char *out, size_t size, const char *objdir, const git_oid *oid)
{
	char hex[GIT_OID_HEXSZ + 1];
	int n;

	git_oid_tostr(hex, sizeof(hex), oid);
	n = snprintf(out, size, "%s%.2s/%s", objdir, hex, hex + 2);
	return n < 0 || (size_t)n >= size ? -1 : 0;
}

/* Set libgit2's error to "corrupt loose object <id>: <why>"; returns -1. */
static int corrupt(const git_oid *oid, const char *why)
{
	char hex[GIT_OID_HEXSZ + 1], msg[256];

	snprintf(msg, sizeof(msg), "corrupt loose object %s: %s",
		 git_oid_tostr(hex, sizeof(hex), oid), why);
	git_error_set_str(GIT_ERROR_ODB, msg);
	return -1;
}

/* The whole file into a malloc'd buffer: 0, GIT_ENOTFOUND, or -1 with error set. */
static int read_file(unsigned char **out, size_t *len, const char *path, const git_oid *oid)
{
	char hex[GIT_OID_HEXSZ + 1], msg[512];
	unsigned char *buf = NULL;
	struct stat st;
	size_t n = 0;
	ssize_t r;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 && errno == ENOENT)
		return GIT_ENOTFOUND;
	if (fd < 0 || fstat(fd, &st) < 0)
		goto fail;
	if (!(buf = malloc((size_t)st.st_size + 1)))
		goto fail;
	while (n < (size_t)st.st_size && (r = read(fd, buf + n, (size_t)st.st_size - n)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			goto fail;
		n += (size_t)r;
	}
	close(fd);
	*out = buf;
	*len = n;
	return 0;
fail:
	snprintf(msg, sizeof(msg), "cannot read loose object %s: %s",
		 git_oid_tostr(hex, sizeof(hex), oid), strerror(errno));
	git_error_set_str(GIT_ERROR_OS, msg);
	free(buf);
	if (fd >= 0)
		close(fd);
	return -1;
}

/* "<type> <size>\0" at the start of head[0..n): its length with the NUL,
 * or 0 when malformed. */
static size_t parse_header(const unsigned char *head, size_t n, git_object_t *type,
			   size_t *size)
{
	const unsigned char *nul = memchr(head, '\0', n), *sp, *p;
	size_t v = 0;

	if (!nul || !(sp = memchr(head, ' ', (size_t)(nul - head))))
		return 0;
	if ((size_t)(sp - head) == 6 && !memcmp(head, "commit", 6))
		*type = GIT_OBJECT_COMMIT;
	else if ((size_t)(sp - head) == 4 && !memcmp(head, "tree", 4))
		*type = GIT_OBJECT_TREE;
	else if ((size_t)(sp - head) == 4 && !memcmp(head, "blob", 4))
		*type = GIT_OBJECT_BLOB;
	else if ((size_t)(sp - head) == 3 && !memcmp(head, "tag", 3))
		*type = GIT_OBJECT_TAG;
	else
		return 0;
	if (sp + 1 == nul)
		return 0;
	for (p = sp + 1; p < nul; p++) {
		if (*p < '0' || *p > '9' || v > (SIZE_MAX - 9) / 10)
			return 0;
		v = v * 10 + (size_t)(*p - '0');
	}
	*size = v;
	return (size_t)(nul - head) + 1;
}

/* What a failed inflate means, for the message. */
static const char *inflate_problem(int rc, const z_stream *z)
{
	if (rc == Z_BUF_ERROR || rc == Z_OK)
		return !z->avail_out || z->avail_in ? "longer than its header says" : "truncated";
	if (rc == Z_MEM_ERROR)
		return "out of memory";
	return z->msg ? z->msg : "bad deflate data";
}

int ss_git_loose_read(void **out, size_t *len, git_object_t *type, git_odb_backend *backend,
		      const char *objdir, const git_oid *oid)
{
	unsigned char head[LOOSE_HEAD_MAX], *file = NULL, *data = NULL;
	size_t flen, size = 0, hlen, got;
	char path[4352];
	z_stream z;
	int rc, err;

	if (loose_path(path, sizeof(path), objdir, oid) < 0)
		return GIT_PASSTHROUGH;
	if ((err = read_file(&file, &flen, path, oid)) != 0)
		return err;
	/* a zlib stream starts with CMF/FLG: deflate, and a multiple of 31 */
	if (flen < 2 || (file[0] & 0x8f) != 0x08 || ((file[0] << 8) | file[1]) % 31) {
		free(file);
		return flen < 2 ? corrupt(oid, "truncated") : GIT_PASSTHROUGH;
	}
	if (flen > UINT32_MAX) {
		free(file);
		return GIT_PASSTHROUGH;  /* past what one inflate call takes */
	}
	memset(&z, 0, sizeof(z));
	if (inflateInit(&z) != Z_OK) {
		free(file);
		return corrupt(oid, "cannot start zlib");
	}
	z.next_in = file;
	z.avail_in = (uInt)flen;
	z.next_out = head;
	z.avail_out = sizeof(head);
	/* the header, and perhaps the whole object when it is small */
	rc = inflate(&z, Z_SYNC_FLUSH);
	if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR) {
		err = corrupt(oid, inflate_problem(rc, &z));
		goto end_inflate;
	}
	got = sizeof(head) - z.avail_out;
	if (!(hlen = parse_header(head, got, type, &size))) {
		err = corrupt(oid, rc == Z_STREAM_END || memchr(head, '\0', got) ||
			      got == sizeof(head) ? "bad object header" : "truncated");
		goto end_inflate;
	}
	*len = size;
	err = 0;
	if (!out)
		goto end_inflate;
	if (size >= UINT32_MAX || got - hlen > size) {
		err = corrupt(oid, size >= UINT32_MAX ? "too large" :
			      "longer than its header says");
		goto end_inflate;
	}
	if (!(data = git_odb_backend_data_alloc(backend, size + 1))) {
		err = -1;
		goto end_inflate;
	}
	memcpy(data, head + hlen, got - hlen);
	if (rc != Z_STREAM_END) {
		z.next_out = data + (got - hlen);
		z.avail_out = (uInt)(size - (got - hlen)) + 1;  /* room to notice a long stream */
		rc = inflate(&z, Z_FINISH);
		if (rc != Z_STREAM_END) {
			err = corrupt(oid, inflate_problem(rc, &z));
			goto end_inflate;
		}
	}
	if (z.total_out != hlen + size) {
		err = corrupt(oid, z.total_out < hlen + size ? "shorter than its header says" :
			      "longer than its header says");
		goto end_inflate;
	}
	data[size] = '\0';
	*out = data;
	data = NULL;
end_inflate:
	inflateEnd(&z);
	if (data)
		git_odb_backend_data_free(backend, data);
	free(file);
	return err;
}

int ss_git_loose_exists(const char *objdir, const git_oid *oid)
{
	char path[4352];
	struct stat st;

	return !loose_path(path, sizeof(path), objdir, oid) && !stat(path, &st) &&
	       S_ISREG(st.st_mode);
}

/*
 * libgit2 asks every backend for an abbreviated id (to notice ambiguity),
 * so its loose backend would inflate a truncated match forever unless the
 * store fails first: the store reads loose matches of a prefix too.
 */
int ss_git_loose_read_prefix(git_oid *full, void **out, size_t *len, git_object_t *type,
			     git_odb_backend *backend, const char *objdir, const git_oid *key,
			     size_t klen)
{
	char hex[GIT_OID_HEXSZ + 1], dir[4352], name[GIT_OID_HEXSZ + 1];
	struct dirent *de;
	git_oid oid;
	int found = 0, n;
	DIR *d;

	if (klen < 2 || klen > GIT_OID_HEXSZ)
		return GIT_PASSTHROUGH;
	git_oid_tostr(hex, sizeof(hex), key);
	n = snprintf(dir, sizeof(dir), "%s%.2s", objdir, hex);
	if (n < 0 || (size_t)n >= sizeof(dir))
		return GIT_PASSTHROUGH;
	if (!(d = opendir(dir)))
		return GIT_ENOTFOUND;
	while ((de = readdir(d))) {
		if (strlen(de->d_name) != GIT_OID_HEXSZ - 2 ||
		    strncmp(de->d_name, hex + 2, klen - 2))
			continue;
		memcpy(name, hex, 2);
		memcpy(name + 2, de->d_name, GIT_OID_HEXSZ - 2 + 1);
		if (git_oid_fromstr(&oid, name) < 0)
			continue;
		if (found && !git_oid_equal(&oid, full)) {
			closedir(d);
			return GIT_PASSTHROUGH;  /* ambiguous: libgit2 says so */
		}
		git_oid_cpy(full, &oid);
		found = 1;
	}
	closedir(d);
	return found ? ss_git_loose_read(out, len, type, backend, objdir, full) : GIT_ENOTFOUND;
}
