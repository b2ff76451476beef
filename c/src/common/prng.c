/* SPDX-License-Identifier: BSD-3-Clause */
/* prng.c — the seeded random numbers of a launch (mm_prng.h). */
#include "mm_prng.h"

/* splitmix64 (Steele, Lea & Flood 2014): tiny, seedable, same sequence on every machine. */
uint64_t mm_rand_next(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

double mm_rand_uniform(uint64_t *state) {
    return (double)(mm_rand_next(state) >> 11) * (1.0 / 9007199254740992.0); /* 53 bits */
}
