// cgbench: the exchange of the boundary planes with the neighbouring slabs.
#include "SparseMatrix.hpp"

static const int HALO_TAG = 99;

void exchange_halo(const SparseMatrix &A, Vector &x) {
  const Halo &h0 = A.halo;
  Halo &h = const_cast<Halo &>(h0);
  if (h.numberOfNeighbors == 0)
    return;
  for (int k = 0; k < h.numberOfNeighbors; k++)
    MPI_Irecv(&x[h.receiveOffset[k]], h.receiveLength[k], MPI_DOUBLE, h.neighbors[k], HALO_TAG,
              MPI_COMM_WORLD, &h.requests[k]);
  double *buf = h.sendBuffer.data();
  for (int k = 0; k < h.numberOfNeighbors; k++) {
    const local_int_t *idx = h.elementsToSend[k].data();
    for (local_int_t i = 0; i < h.sendLength[k]; i++)
      buf[i] = x[idx[i]];
    MPI_Send(buf, h.sendLength[k], MPI_DOUBLE, h.neighbors[k], HALO_TAG, MPI_COMM_WORLD);
  }
  MPI_Waitall(h.numberOfNeighbors, h.requests, MPI_STATUSES_IGNORE);
}
