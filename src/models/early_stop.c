/*
 * early_stop.c - early stopping on the validation slice's average
 * precision, shared by the neural kinds (see impl.h).
 */
#include "models/impl.h"
#include "models/metrics.h"

int ss_early_stop_epoch(ss_early_stop *es, int epoch, const float *score,
			const uint8_t *label, size_t n, double *ap)
{
	*ap = ss_metrics_avg_precision(score, label, n);
	if (*ap > es->best + 1e-6) {
		es->best = *ap;
		es->best_epoch = epoch;
		es->since = 0;
		return SS_EARLY_STOP_BEST;
	}
	return ++es->since >= es->patience ? SS_EARLY_STOP_STOP : SS_EARLY_STOP_WORSE;
}
