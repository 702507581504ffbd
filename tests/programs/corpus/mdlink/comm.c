/* mdlink: the communication of a slab decomposition along x.
 *   comm_exchange  moves the atoms that left the sub-box to their new owner;
 *   comm_borders   builds the ghost layer (the send lists of six swaps, two per
 *                  dimension; the y and z swaps are periodic copies on this rank);
 *   comm_forward   refreshes the ghost positions through the same send lists
 *                  on the steps between neighbour-list builds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "md.h"

#define TAG_COUNT 100
#define TAG_DATA 200

static void grow_send(Comm *comm, int n) {
  if (n > comm->maxsend) {
    comm->maxsend = n + n / 2 + 64;
    comm->buf_send = realloc(comm->buf_send, sizeof(double) * (size_t)comm->maxsend);
  }
}

static void grow_recv(Comm *comm, int n) {
  if (n > comm->maxrecv) {
    comm->maxrecv = n + n / 2 + 64;
    comm->buf_recv = realloc(comm->buf_recv, sizeof(double) * (size_t)comm->maxrecv);
  }
}

static void grow_list(Comm *comm, int s, int n) {
  if (n > comm->maxsendlist[s]) {
    comm->maxsendlist[s] = n + n / 2 + 64;
    comm->sendlist[s] = realloc(comm->sendlist[s], sizeof(int) * (size_t)comm->maxsendlist[s]);
  }
}

void comm_setup(Comm *comm, const Atoms *atoms, double cutneigh) {
  int P = comm->nprocs, me = comm->me;
  if (atoms->hi[0] - atoms->lo[0] < cutneigh && P > 1) {
    if (me == 0)
      fprintf(stderr, "mdlink: sub-box thinner than the cut-off, use fewer ranks\n");
    MPI_Abort(comm->comm, 1);
  }
  comm->procneigh[0] = (me - 1 + P) % P;
  comm->procneigh[1] = (me + 1) % P;
  comm->nswap = MAXSWAP;
  for (int s = 0; s < MAXSWAP; s++) {
    int d = s / 2, side = s % 2;
    for (int k = 0; k < 3; k++)
      comm->pbc[s][k] = 0.0;
    if (d == 0) {
      comm->sendproc[s] = comm->procneigh[side];
      comm->recvproc[s] = comm->procneigh[1 - side];
      if (side == 0 && me == 0)
        comm->pbc[s][0] = atoms->box[0];
      if (side == 1 && me == P - 1)
        comm->pbc[s][0] = -atoms->box[0];
    } else {
      comm->sendproc[s] = me;
      comm->recvproc[s] = me;
      comm->pbc[s][d] = side == 0 ? atoms->box[d] : -atoms->box[d];
    }
    comm->sendnum[s] = comm->recvnum[s] = comm->firstrecv[s] = 0;
    comm->sendlist[s] = NULL;
    comm->maxsendlist[s] = 0;
    grow_list(comm, s, 1024);
  }
  comm->buf_send = comm->buf_recv = NULL;
  comm->maxsend = comm->maxrecv = 0;
  grow_send(comm, 4096);
  grow_recv(comm, 4096);
}

/* Wrap the local atoms back into the periodic box. */
void comm_pbc(Atoms *atoms) {
  for (int i = 0; i < atoms->nlocal; i++)
    for (int d = 0; d < 3; d++) {
      double *xd = &atoms->x[3 * i + d];
      if (*xd < 0.0)
        *xd += atoms->box[d];
      else if (*xd >= atoms->box[d])
        *xd -= atoms->box[d];
    }
}

static int owner_of(const Atoms *atoms, int nprocs, double x) {
  int o = (int)(x * nprocs / atoms->box[0]);
  if (o < 0)
    o = 0;
  if (o >= nprocs)
    o = nprocs - 1;
  return o;
}

void comm_exchange(Comm *comm, Atoms *atoms, Stats *st) {
  if (comm->nprocs == 1)
    return;
  for (int side = 0; side < 2; side++) {
    int dest = comm->procneigh[side], src = comm->procneigh[1 - side];
    int nsend = 0, i = 0;
    /* pack the leaving atoms, fill each hole with the last local atom */
    while (i < atoms->nlocal) {
      int o = owner_of(atoms, comm->nprocs, atoms->x[3 * i]);
      if (o != comm->me && o == dest) {
        grow_send(comm, 6 * (nsend + 1));
        memcpy(&comm->buf_send[6 * nsend], &atoms->x[3 * i], 3 * sizeof(double));
        memcpy(&comm->buf_send[6 * nsend + 3], &atoms->v[3 * i], 3 * sizeof(double));
        nsend++;
        int last = atoms->nlocal - 1;
        memcpy(&atoms->x[3 * i], &atoms->x[3 * last], 3 * sizeof(double));
        memcpy(&atoms->v[3 * i], &atoms->v[3 * last], 3 * sizeof(double));
        atoms->nlocal--;
      } else {
        i++;
      }
    }
    int nrecv = 0;
    MPI_Sendrecv(&nsend, 1, MPI_INT, dest, TAG_COUNT, &nrecv, 1, MPI_INT, src, TAG_COUNT,
                 comm->comm, MPI_STATUS_IGNORE);
    grow_recv(comm, 6 * nrecv + 6);
    MPI_Irecv(comm->buf_recv, 6 * nrecv, MPI_DOUBLE, src, TAG_DATA, comm->comm, &comm->req[0]);
    MPI_Isend(comm->buf_send, 6 * nsend, MPI_DOUBLE, dest, TAG_DATA, comm->comm, &comm->req[1]);
    MPI_Waitall(2, comm->req, MPI_STATUSES_IGNORE);
    st->nmigrated += nsend;

    atoms_grow(atoms, atoms->nlocal + nrecv + 1);
    for (int k = 0; k < nrecv; k++) {
      const double *b = &comm->buf_recv[6 * k];
      if (owner_of(atoms, comm->nprocs, b[0]) != comm->me) {
        fprintf(stderr, "mdlink: rank %d got an atom at x=%g it does not own\n", comm->me, b[0]);
        continue;
      }
      int n = atoms->nlocal++;
      memcpy(&atoms->x[3 * n], b, 3 * sizeof(double));
      memcpy(&atoms->v[3 * n], b + 3, 3 * sizeof(double));
    }
  }
}

void comm_borders(Comm *comm, Atoms *atoms, double cutneigh) {
  int nlast = 0;
  atoms->nghost = 0;
  for (int s = 0; s < comm->nswap; s++) {
    int d = s / 2, side = s % 2;
    /* both swaps of a dimension look at what was there before the first */
    if (side == 0)
      nlast = atoms->nlocal + atoms->nghost;
    double lo = atoms->lo[d] + cutneigh, hi = atoms->hi[d] - cutneigh;
    int n = 0;
    grow_list(comm, s, nlast);
    for (int i = 0; i < nlast; i++) {
      double xd = atoms->x[3 * i + d];
      if ((side == 0 && xd < lo) || (side == 1 && xd >= hi))
        comm->sendlist[s][n++] = i;
    }
    comm->sendnum[s] = n;
    grow_send(comm, 3 * n);
    const double *sh = comm->pbc[s];
    for (int k = 0; k < n; k++) {
      const double *xi = &atoms->x[3 * comm->sendlist[s][k]];
      comm->buf_send[3 * k + 0] = xi[0] + sh[0];
      comm->buf_send[3 * k + 1] = xi[1] + sh[1];
      comm->buf_send[3 * k + 2] = xi[2] + sh[2];
    }
    int first = atoms->nlocal + atoms->nghost;
    int nrecv;
    if (comm->sendproc[s] == comm->me) {
      nrecv = n;
      atoms_grow(atoms, first + nrecv + 1);
      memcpy(&atoms->x[3 * first], comm->buf_send, sizeof(double) * 3 * (size_t)n);
    } else {
      MPI_Sendrecv(&n, 1, MPI_INT, comm->sendproc[s], TAG_COUNT + s, &nrecv, 1, MPI_INT,
                   comm->recvproc[s], TAG_COUNT + s, comm->comm, MPI_STATUS_IGNORE);
      atoms_grow(atoms, first + nrecv + 1);
      MPI_Irecv(&atoms->x[3 * first], 3 * nrecv, MPI_DOUBLE, comm->recvproc[s], TAG_DATA + s,
                comm->comm, &comm->req[0]);
      MPI_Isend(comm->buf_send, 3 * n, MPI_DOUBLE, comm->sendproc[s], TAG_DATA + s, comm->comm,
                &comm->req[1]);
      MPI_Waitall(2, comm->req, MPI_STATUSES_IGNORE);
    }
    comm->recvnum[s] = nrecv;
    comm->firstrecv[s] = first;
    atoms->nghost += nrecv;
  }
}

void comm_forward(Comm *comm, Atoms *atoms) {
  for (int s = 0; s < comm->nswap; s++) {
    const int n = comm->sendnum[s];
    const int *list = comm->sendlist[s];
    const double *sh = comm->pbc[s];
    double *dst = comm->sendproc[s] == comm->me ? &atoms->x[3 * comm->firstrecv[s]]
                                                : comm->buf_send;
    for (int k = 0; k < n; k++) {
      const double *xi = &atoms->x[3 * list[k]];
      dst[3 * k + 0] = xi[0] + sh[0];
      dst[3 * k + 1] = xi[1] + sh[1];
      dst[3 * k + 2] = xi[2] + sh[2];
    }
    if (comm->sendproc[s] != comm->me) {
      MPI_Irecv(&atoms->x[3 * comm->firstrecv[s]], 3 * comm->recvnum[s], MPI_DOUBLE,
                comm->recvproc[s], TAG_DATA + s, comm->comm, &comm->req[0]);
      MPI_Isend(comm->buf_send, 3 * n, MPI_DOUBLE, comm->sendproc[s], TAG_DATA + s, comm->comm,
                &comm->req[1]);
      MPI_Waitall(2, comm->req, MPI_STATUSES_IGNORE);
    }
  }
}
