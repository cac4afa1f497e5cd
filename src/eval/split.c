/* split.c - labelled ingestion and time splits (see split.h). */
#include <stdlib.h>

#include "eval/split.h"
#include "util/error.h"

int ss_split_add(ss_commit *c, void *sink)
{
	ss_split_sink *s = sink;
	int label = 0;

	s->seen++;
	if (s->before && c->author.time >= s->before) {
		ss_commit_free(c);
		return 0;
	}
	if (s->labels) {
		label = ss_labels_get(s->labels, c->id);
		s->unlisted += !ss_labels_known(s->labels, c->id);
	}
	s->rc = ss_dataset_add(s->d, c, label, s->part);
	ss_commit_free(c);
	if (s->rc)
		return 1;
	s->kept++;
	return 0;
}

int ss_split_part(size_t **out, size_t *n, const ss_dataset *d, uint8_t part)
{
	size_t total = ss_dataset_count(d), i, k = 0;
	size_t *idx = malloc((total ? total : 1) * sizeof(*idx));

	*out = NULL;
	*n = 0;
	if (!idx)
		return SS_ENOMEM;
	for (i = 0; i < total; i++)
		if (ss_dataset_example(d, i)->part == part)
			idx[k++] = i;
	ss_dataset_sort_by_time(idx, k, d);
	*out = idx;
	*n = k;
	return 0;
}

void ss_split_by_date(ss_dataset *d, int64_t cut)
{
	size_t i, n = ss_dataset_count(d);

	for (i = 0; i < n; i++) {
		ss_example *e = ss_dataset_example_mut(d, i);

		e->part = e->time >= cut;
	}
}

size_t ss_split_settle(size_t *idx, size_t *n, const ss_dataset *d, int days, int64_t newest)
{
	size_t i, k = 0, dropped;
	int64_t limit;

	if (days <= 0 || !*n)
		return 0;
	if (!newest)
		for (i = 0; i < *n; i++)
			if (ss_dataset_example(d, idx[i])->time > newest)
				newest = ss_dataset_example(d, idx[i])->time;
	limit = newest - (int64_t)days * 86400;
	for (i = 0; i < *n; i++)
		if (ss_dataset_example(d, idx[i])->time <= limit)
			idx[k++] = idx[i];
	dropped = *n - k;
	*n = k;
	return dropped;
}
