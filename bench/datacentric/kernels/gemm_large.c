/* gemm_scale.c (C = beta C + alpha A B, each row of C rescaled in place,
 * then accumulated in the order i, k, j) on a large data set, where the
 * rows no longer stay in the cache: C is 16 x 3072, A 16 x 24, B 24 x 3072
 * doubles.
 *
 * Sizes against a 32 KiB 8-way L1 with 64 B lines: a row of C or of B is
 * 24 KB (384 lines). For one i, the rescaling pass misses on the row of C;
 * then every k sweeps the row C[i][*] and the row B[k][*] together, 48 KB,
 * more than L1, so C's row is gone again by the next k: C misses once per
 * line in every sweep, as B does, and in the rescaling pass besides.
 * Expected owner of the read misses: `C` ~51%, `B` ~49%, `A` < 1%. */
#define NI 16
#define NJ 3072
#define NK 24
#include "gemm_scale.c"
