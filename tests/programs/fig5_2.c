int loop(int *x, int *y, int b) {
  int a, i = 0, j = 0, k = 0;
  for (a = 0; a < b; a++) {
      i = x[a] + y[b];
      j = y[a] + y[b];
      k = x[b] + x[b];
  }
  return i + j + k;
}
