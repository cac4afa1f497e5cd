/*
 * labels.c - label tables from TSV files or the in-process stable labeler
 * (see labels.h).  Stored in an ss_strmap keyed by sha, the counter
 * holding line << 1 | label: the line of the row that first listed the
 * sha (1 for the stable labeler), so that a conflicting row can name it.
 */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "labels/backports.h"
#include "labels/labels.h"
#include "util/strmap.h"
#include "util/error.h"
#include "util/hexid.h"

struct ss_labels {
	ss_strmap *map;
	size_t npos;
	char describe[512];
};

static int labels_new(ss_labels **out)
{
	ss_labels *l = calloc(1, sizeof(*l));

	*out = NULL;
	if (!l || ss_strmap_new(&l->map)) {
		free(l);
		return SS_ENOMEM;
	}
	*out = l;
	return 0;
}

void ss_labels_free(ss_labels *l)
{
	if (!l)
		return;
	ss_strmap_free(l->map);
	free(l);
}

/* List sha as value (0/1), first seen at line; a sha listed again with
 * the other label is an error naming path and both lines (a repeat with
 * the same label is fine). */
static int put(ss_labels *l, const char *sha, int value, size_t line, const char *path)
{
	char low[41];
	uint32_t id, *cnt;
	size_t i;
	int rc;

	for (i = 0; i < 40; i++)
		low[i] = (char)tolower((unsigned char)sha[i]);
	low[40] = '\0';
	if ((rc = ss_strmap_intern(l->map, low, 40, &id)))
		return rc;
	cnt = ss_strmap_counter(l->map, id);
	if (*cnt) {
		if ((int)(*cnt & 1) == value)
			return 0;
		return ss_error_code(SS_EINVALID, "%s:%zu: %s is labelled %d here and %d at line %u",
				     path, line, low, value, !value, (unsigned)(*cnt >> 1));
	}
	if (line > UINT32_MAX >> 1)
		line = UINT32_MAX >> 1;
	*cnt = (uint32_t)line << 1 | (uint32_t)(value != 0);
	l->npos += value != 0;
	return 0;
}

/* Split line at tabs into at most max fields (in place). */
static size_t split_tabs(char *line, char **field, size_t max)
{
	size_t n = 0;
	char *p = line;

	while (n < max) {
		field[n++] = p;
		p = strchr(p, '\t');
		if (!p)
			break;
		*p++ = '\0';
	}
	return n;
}

int ss_labels_from_tsv(ss_labels **out, const char *path, const char *column)
{
	char *line = NULL, *field[64];
	size_t cap = 0, lineno = 0, nf;
	long sha_col = -1, lab_col = -1;
	ssize_t len;
	ss_labels *l;
	FILE *f;
	int rc;

	*out = NULL;
	if ((rc = labels_new(&l)))
		return rc;
	f = fopen(path, "r");
	if (!f) {
		ss_labels_free(l);
		return ss_error_code(errno == ENOENT ? SS_ENOTFOUND : SS_ERROR,
				     "cannot open labels '%s': %s", path, strerror(errno));
	}
	while ((len = getline(&line, &cap, f)) >= 0) {
		size_t i;

		lineno++;
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		if (!len)
			continue;
		nf = split_tabs(line, field, 64);
		if (lineno == 1) {
			for (i = 0; i < nf; i++) {
				if (!strcmp(field[i], "sha"))
					sha_col = (long)i;
				if (column ? !strcmp(field[i], column) : !strcmp(field[i], "in_stable"))
					lab_col = (long)i;
			}
			if (sha_col < 0) {
				rc = ss_error_code(SS_EINVALID, "labels '%s' have no 'sha' column in their header",
						   path);
				goto free_l;
			}
			if (column && lab_col < 0) {
				rc = ss_error_code(SS_EINVALID, "labels '%s' have no column '%s'", path, column);
				goto free_l;
			}
			snprintf(l->describe, sizeof(l->describe), "%s:%s", path,
				 lab_col >= 0 ? column ? column : "in_stable" : "listed");
			continue;
		}
		if ((long)nf <= sha_col || (lab_col >= 0 && (long)nf <= lab_col) ||
		    !ss_hexid_is_full(field[sha_col], strlen(field[sha_col]))) {
			rc = ss_error_code(SS_EINVALID, "labels '%s' line %zu: expected a 40-digit sha%s",
					   path, lineno, lab_col >= 0 ? " and a 0/1 label" : "");
			goto free_l;
		}
		if (lab_col >= 0 && strcmp(field[lab_col], "0") && strcmp(field[lab_col], "1")) {
			rc = ss_error_code(SS_EINVALID, "labels '%s' line %zu: label '%s' is not 0 or 1",
					   path, lineno, field[lab_col]);
			goto free_l;
		}
		if ((rc = put(l, field[sha_col], lab_col < 0 || field[lab_col][0] == '1', lineno, path)))
			goto free_l;
	}
	if (ferror(f)) {
		rc = ss_error_set("cannot read labels '%s': %s", path, strerror(errno));
		goto free_l;
	}
	if (lineno == 0) {
		rc = ss_error_code(SS_EINVALID, "labels '%s' are empty (no header row)", path);
		goto free_l;
	}
	*out = l;
	l = NULL;
	rc = 0;

free_l:
	ss_labels_free(l);
	free(line);
	fclose(f);
	return rc;
}

int ss_labels_from_backports(ss_labels **out, ss_backports *b, const char *describe)
{
	ss_labels *l;
	FILE *tmp = NULL;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int rc;

	*out = NULL;
	if ((rc = labels_new(&l)))
		return rc;
	/* the labeler's one way out is its TSV; read it back */
	tmp = tmpfile();
	if (!tmp) {
		rc = ss_error_set("cannot create a temporary file: %s", strerror(errno));
		goto free_all;
	}
	if ((rc = ss_backports_write(b, tmp)))
		goto free_all;
	rewind(tmp);
	while ((len = getline(&line, &cap, tmp)) >= 0)
		if (len >= 40 && ss_hexid_is_full(line, 40) && (rc = put(l, line, 1, 1, "stable")))
			goto free_all;
	snprintf(l->describe, sizeof(l->describe), "%s", describe ? describe : "stable");
	*out = l;
	l = NULL;

free_all:
	if (tmp)
		fclose(tmp);
	free(line);
	ss_labels_free(l);
	return rc;
}

int ss_labels_from_stable(ss_labels **out, const char *const *spec, size_t n, size_t *skipped)
{
	ss_backports_options lo = SS_BACKPORTS_OPTIONS_INIT;
	ss_backports *lab = NULL;
	char describe[512];
	size_t i, used = 0;
	int rc;

	*out = NULL;
	describe[0] = '\0';
	if ((rc = ss_backports_new(&lab, &lo)))
		return rc;
	for (i = 0; i < n; i++)
		if ((rc = ss_backports_read(lab, spec[i], skipped)))
			goto free_lab;
	for (i = 0; i < n && used < sizeof(describe) - 1; i++)
		used += (size_t)snprintf(describe + used, sizeof(describe) - used, "%sstable:%s",
					 i ? "," : "", spec[i]);
	rc = ss_labels_from_backports(out, lab, describe);

free_lab:
	ss_backports_free(lab);
	return rc;
}

static uint32_t find(const ss_labels *l, const char *sha)
{
	char low[41];
	size_t i;

	for (i = 0; i < 40 && sha[i]; i++)
		low[i] = (char)tolower((unsigned char)sha[i]);
	if (i != 40)
		return SS_STRMAP_NONE;
	return ss_strmap_find(l->map, low, 40);
}

int ss_labels_get(const ss_labels *l, const char *sha)
{
	uint32_t id = find(l, sha);

	return id != SS_STRMAP_NONE && (ss_strmap_get_count(l->map, id) & 1);
}

int ss_labels_known(const ss_labels *l, const char *sha)
{
	return find(l, sha) != SS_STRMAP_NONE;
}

size_t ss_labels_count(const ss_labels *l)
{
	return ss_strmap_count(l->map);
}

size_t ss_labels_positive(const ss_labels *l)
{
	return l->npos;
}

const char *ss_labels_describe(const ss_labels *l)
{
	return l->describe;
}
