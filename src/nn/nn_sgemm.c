/* nn_sgemm.c - the one wrapper over cblas_sgemm and the BLAS thread count. */
#include <cblas.h>

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
