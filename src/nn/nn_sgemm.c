/*
 * nn_sgemm.c - the one wrapper over cblas_sgemm and the BLAS thread count:
 * how many CPUs this process may use (affinity mask, cgroup CPU quota) and
 * the thread count chosen from it.
 */
#include <cblas.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nn.h"

/* C = alpha * op(A) * op(B) + beta * C, row-major (see nn.h). */
void ss_sgemm(int transA, int transB, int M, int N, int K, float alpha,
	      const float *A, const float *B, float beta, float *C)
{
	int lda = transA ? M : K;
	int ldb = transB ? K : N;

	if (M <= 0 || N <= 0)
		return;
	if (K <= 0) {
		/* BLAS would leave C alone only for beta == 1; be explicit */
		for (long i = 0; i < (long)M * N; i++)
			C[i] = beta == 0.0f ? 0.0f : beta * C[i];
		return;
	}
	cblas_sgemm(CblasRowMajor, transA ? CblasTrans : CblasNoTrans,
		    transB ? CblasTrans : CblasNoTrans, M, N, K, alpha,
		    A, lda > 0 ? lda : 1, B, ldb > 0 ? ldb : 1, beta, C, N);
}

int ss_nn_set_blas_threads(int n)
{
	int old = openblas_get_num_threads();

	/* setting is not free in OpenBLAS: only on a change */
	if (n > 0 && n != old)
		openblas_set_num_threads(n);
	return old;
}

int ss_nn_cpu_quota_parse(const char *cpu_max)
{
	long long quota, period;
	char q[32];

	/* cgroup v2 cpu.max: "max 100000" (no limit) or "150000 100000" */
	if (!cpu_max || sscanf(cpu_max, "%31s %lld", q, &period) != 2 || period <= 0)
		return 0;
	if (!strcmp(q, "max"))
		return 0;
	quota = strtoll(q, NULL, 10);
	if (quota <= 0)
		return 0;
	/* a share of a CPU still needs one thread */
	quota = (quota + period - 1) / period;
	return quota > 4096 ? 4096 : (int)quota;
}

int ss_nn_cpus(void)
{
	int n = 0, quota = 0;
	cpu_set_t set;
	FILE *f;

	if (!sched_getaffinity(0, sizeof(set), &set))
		n = CPU_COUNT(&set);
	if (n <= 0) {
		long c = sysconf(_SC_NPROCESSORS_ONLN);

		n = c > 0 ? (int)c : 1;
	}
	/* the root of this process's cgroup namespace, as containers see it */
	if ((f = fopen("/sys/fs/cgroup/cpu.max", "r"))) {
		char line[64];

		if (fgets(line, sizeof(line), f))
			quota = ss_nn_cpu_quota_parse(line);
		fclose(f);
	}
	return quota > 0 && quota < n ? quota : n;
}

int ss_nn_blas_threads_choose(const char *ours, const char *openblas, int cpus)
{
	const char *v = ours && *ours ? ours : openblas && *openblas ? openblas : NULL;

	if (v) {
		char *end;
		long n = strtol(v, &end, 10);
		int valid = end != v && !*end && n >= 1 && n <= SS_NN_MAX_BLAS_THREADS;

		/* an explicit choice of ours, even above the CPU count */
		if (v == ours)
			return valid ? (int)n : -1;
		/* OpenBLAS reads its own variable and caps it at the CPUs it
		 * sees (a bad one is its business) */
		if (valid)
			return cpus >= 1 && n > cpus ? cpus : (int)n;
	}
	if (cpus < 1)
		return 1;
	return cpus > SS_NN_MAX_BLAS_THREADS ? SS_NN_MAX_BLAS_THREADS : cpus;
}
