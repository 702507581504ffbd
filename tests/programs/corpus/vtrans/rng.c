#include "rng.h"

#define RNG_MULT 2806196910506780709ULL
#define RNG_ADD 1ULL
#define RNG_MASK 0x7fffffffffffffffULL
#define RNG_NORM (1.0 / 9223372036854775808.0)

void rng_init(Rng *r, uint64_t seed) { r->seed = seed & RNG_MASK; }

/* Advance the stream by n draws: the LCG x -> g x + c composed n times is
 * x -> G x + C, computed by repeated squaring (F. Brown, 1994). */
void rng_skip(Rng *r, uint64_t n) {
  uint64_t g = RNG_MULT, c = RNG_ADD;
  uint64_t g_new = 1, c_new = 0;
  while (n > 0) {
    if (n & 1) {
      g_new = g_new * g;
      c_new = c_new * g + c;
    }
    c = (g + 1) * c;
    g = g * g;
    n >>= 1;
  }
  r->seed = (g_new * r->seed + c_new) & RNG_MASK;
}

double rng_uniform(Rng *r) {
  r->seed = (RNG_MULT * r->seed + RNG_ADD) & RNG_MASK;
  return (double)r->seed * RNG_NORM;
}
