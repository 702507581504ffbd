/* halo.c -- the z slabs exchange NGHOST planes of every field of a group
 * (the velocities after their update, the stresses after theirs) with the
 * ranks above and below. Each side's planes are packed into one message;
 * the buffers are sized once for the larger group. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "seis3d.h"

static float *sendbuf, *recvbuf; /* [side][field][plane][nx*ny] */
static size_t plane_len;         /* floats in one xy plane */
static size_t side_len;          /* floats of one side, largest group */
static double bytes_sent;

void halo_init(const Grid *g)
{
  plane_len = (size_t)g->nx * (size_t)g->ny;
  side_len = (size_t)NSTRESS * NGHOST * plane_len;
  sendbuf = malloc(2 * side_len * sizeof *sendbuf);
  recvbuf = malloc(2 * side_len * sizeof *recvbuf);
  bytes_sent = 0.0;
}

void halo_free(void)
{
  free(sendbuf), free(recvbuf);
  sendbuf = recvbuf = NULL;
}

double halo_bytes(void) { return bytes_sent; }

/* Copies planes k0 .. k0+NGHOST-1 of the nf fields into buf. */
static void pack_planes(const Grid *g, float *const *fld, int nf, int k0,
                        float *buf)
{
  for (int f = 0; f < nf; f++)
    for (int k = k0; k < k0 + NGHOST; k++) {
      memcpy(buf, fld[f] + IX(g, 0, 0, k), plane_len * sizeof *buf);
      buf += plane_len;
    }
}

static void unpack_planes(const Grid *g, float *const *fld, int nf, int k0,
                          const float *buf)
{
  for (int f = 0; f < nf; f++)
    for (int k = k0; k < k0 + NGHOST; k++) {
      memcpy(fld[f] + IX(g, 0, 0, k), buf, plane_len * sizeof *buf);
      buf += plane_len;
    }
}

void halo_exchange(const Grid *g, Wavefield *wf, HaloGroup group)
{
  float *fld[NSTRESS];
  int nf;
  if (group == HALO_VELOCITY) {
    fld[0] = wf->vx;
    fld[1] = wf->vy;
    fld[2] = wf->vz;
    nf = NVEL;
  } else {
    fld[0] = wf->sxx;
    fld[1] = wf->syy;
    fld[2] = wf->szz;
    fld[3] = wf->sxy;
    fld[4] = wf->sxz;
    fld[5] = wf->syz;
    nf = NSTRESS;
  }
  const int count = nf * NGHOST * (int)plane_len;
  const int tag_up = 2 * (int)group, tag_down = 2 * (int)group + 1;
  /* side 0 faces the shallower rank, side 1 the deeper one */
  float *send_up = sendbuf, *send_down = sendbuf + side_len;
  float *recv_up = recvbuf, *recv_down = recvbuf + side_len;
  MPI_Request req[4];
  int nreq = 0;

  if (g->up != MPI_PROC_NULL)
    MPI_Irecv(recv_up, count, MPI_FLOAT, g->up, tag_down, MPI_COMM_WORLD,
              &req[nreq++]);
  if (g->down != MPI_PROC_NULL)
    MPI_Irecv(recv_down, count, MPI_FLOAT, g->down, tag_up, MPI_COMM_WORLD,
              &req[nreq++]);

  if (g->up != MPI_PROC_NULL) {
    pack_planes(g, fld, nf, NGHOST, send_up);
    MPI_Isend(send_up, count, MPI_FLOAT, g->up, tag_up, MPI_COMM_WORLD,
              &req[nreq++]);
  }
  if (g->down != MPI_PROC_NULL) {
    pack_planes(g, fld, nf, g->nz - 2 * NGHOST, send_down);
    MPI_Isend(send_down, count, MPI_FLOAT, g->down, tag_down,
              MPI_COMM_WORLD, &req[nreq++]);
  }
  MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);

  if (g->up != MPI_PROC_NULL)
    unpack_planes(g, fld, nf, 0, recv_up);
  if (g->down != MPI_PROC_NULL)
    unpack_planes(g, fld, nf, g->nz - NGHOST, recv_down);
  bytes_sent += (double)(nreq / 2) * count * sizeof(float);
}
