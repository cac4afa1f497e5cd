/* nn_rng.c - xoshiro256** seeded by splitmix64 (see nn.h). */
#include <math.h>

#include "nn.h"

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

void ss_rng_seed(ss_rng *out, uint64_t seed)
{
	uint64_t x = seed;

	for (int i = 0; i < 4; i++)
		out->s[i] = splitmix64(&x);
}

uint64_t ss_rng_next(ss_rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

float ss_rng_uniform(ss_rng *r)
{
	/* 24 random bits: exactly representable, never 1.0 */
	return (float)(ss_rng_next(r) >> 40) * (1.0f / 16777216.0f);
}

float ss_rng_normal(ss_rng *r)
{
	/* Box-Muller on doubles; u1 in (0, 1] so that log() is finite */
	double u1 = ((ss_rng_next(r) >> 11) + 1.0) * (1.0 / 9007199254740992.0);
	double u2 = (ss_rng_next(r) >> 11) * (1.0 / 9007199254740992.0);

	return (float)(sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2));
}

uint32_t ss_rng_below(ss_rng *r, uint32_t n)
{
	/* multiply-shift: bias below 2^-32 * n, irrelevant here */
	return (uint32_t)(((ss_rng_next(r) >> 32) * (uint64_t)n) >> 32);
}
