/*
 * rng.h - small, fast, reproducible random numbers for the simulator
 * (xoshiro256**, seeded through splitmix64).  Every random choice of a run
 * comes from streams seeded by the scenario's seed, so a run is exactly
 * repeatable and two seeds give independent runs.
 */
#ifndef SIM_RNG_H
#define SIM_RNG_H

#include <math.h>
#include <stdint.h>

struct sim_rng {
	uint64_t s[4];
};

static inline uint64_t sim_splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* stream separates independent uses of one seed (workload, noise, ...). */
static inline void sim_rng_seed(struct sim_rng *r, uint64_t seed, uint64_t stream)
{
	uint64_t x = seed * 0x2545f4914f6cdd1dull + stream;
	int i;

	for (i = 0; i < 4; i++)
		r->s[i] = sim_splitmix64(&x);
}

static inline uint64_t sim_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static inline uint64_t sim_rng_next(struct sim_rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = sim_rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = sim_rotl(s[3], 45);
	return result;
}

/* Uniform in [0, 1). */
static inline double sim_rng_uniform(struct sim_rng *r)
{
	return (double)(sim_rng_next(r) >> 11) * 0x1.0p-53;
}

/* Exponential with the given mean. */
static inline double sim_rng_exp(struct sim_rng *r, double mean)
{
	return -mean * log1p(-sim_rng_uniform(r));
}

/* Standard normal (Box-Muller; one value per call keeps the stream simple). */
static inline double sim_rng_normal(struct sim_rng *r)
{
	double u1 = sim_rng_uniform(r), u2 = sim_rng_uniform(r);

	if (u1 < 1e-300)
		u1 = 1e-300;
	return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

#endif
