/* SPDX-License-Identifier: BSD-3-Clause */
/* mm_prng.h — the seeded pseudo-random numbers (splitmix64): the plan's shuffle, the sampled
 * ping-pong pairs, the virtual clocks and the seed drawn when none is given all take theirs
 * from here, so that one seed gives the same launch on every machine. */
#ifndef MM_PRNG_H
#define MM_PRNG_H
#include <stdint.h>

/* The next number of the stream in *state. */
uint64_t mm_rand_next(uint64_t *state);
/* Uniform double in [0, 1). */
double mm_rand_uniform(uint64_t *state);

#endif
