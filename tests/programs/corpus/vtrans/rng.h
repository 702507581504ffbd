/* rng.h: the 63-bit linear congruential generator of production Monte
 * Carlo codes, with O(log n) skip-ahead so that every particle history has
 * its own reproducible stream. */
#ifndef VTRANS_RNG_H
#define VTRANS_RNG_H

#include <stdint.h>

typedef struct {
  uint64_t seed;
} Rng;

#define RNG_STRIDE 152917ULL

void rng_init(Rng *r, uint64_t seed);
void rng_skip(Rng *r, uint64_t n);
double rng_uniform(Rng *r);

#endif
