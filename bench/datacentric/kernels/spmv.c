/* Sparse matrix-vector product in CSR with scattered column indices. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    int rows = argc > 1 ? atoi(argv[1]) : 1 << 15;
    int per_row = 8;
    int nnz = rows * per_row;
    int *row_ptr = malloc(sizeof(int) * (rows + 1));
    int *col = malloc(sizeof(int) * nnz);
    double *val = malloc(sizeof(double) * nnz);
    double *x = malloc(sizeof(double) * rows);
    double *y = malloc(sizeof(double) * rows);
    unsigned seed = 12345;
    for (int r = 0; r <= rows; r++)
        row_ptr[r] = r * per_row;
    for (int k = 0; k < nnz; k++) {
        seed = seed * 1103515245u + 12345u;
        col[k] = (int)((seed >> 8) % (unsigned)rows);
        val[k] = (k % 7) * 0.5;
    }
    for (int r = 0; r < rows; r++)
        x[r] = 1.0 / (r + 1);
    for (int rep = 0; rep < 2; rep++)
        for (int r = 0; r < rows; r++) {
            double sum = 0.0;
            for (int k = row_ptr[r]; k < row_ptr[r + 1]; k++)
                sum += val[k] * x[col[k]];
            y[r] = sum;
        }
    printf("%f\n", y[rows / 3]);
    free(row_ptr);
    free(col);
    free(val);
    free(x);
    free(y);
    return 0;
}
