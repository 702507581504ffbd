/* amrblocks: ghost-cell exchange.
 *
 * Faces between positions go through a "trace": the face of a position at
 * the fine resolution (2n values for n cells along a block face). A level-0
 * face is injected (each cell twice), a refined position gives the faces of
 * its two children; the ghosts of a level-0 block average pairs of the trace,
 * those of a child take their half. Faces between ranks carry the traces of
 * every position along the boundary, all variables, in send_buff/recv_buff;
 * faces on the domain boundary reflect. */
#include <stdlib.h>

#include "block.h"

enum { WEST = 0, EAST = 1, SOUTH = 2, NORTH = 3 };
#define TAG_EASTWARD 11
#define TAG_WESTWARD 12

static double *trace_tmp;

static int face_len(int face) { return face < 2 ? y_block_size : x_block_size; }

/* The block of a position that touches a face: for a refined position the
 * child on that side with index k (0 or 1) along the face. */
static int face_slot(const position *pp, int face, int k) {
  if (!pp->refined)
    return pp->slot[0];
  switch (face) {
  case WEST: return pp->slot[0 + 2 * k];
  case EAST: return pp->slot[1 + 2 * k];
  case SOUTH: return pp->slot[k];
  default: return pp->slot[2 + k];
  }
}

static void face_trace(const position *pp, int face, int var, double *trace) {
  block *bp;
  const int n = face_len(face);
  const int i = face == WEST ? 1 : x_block_size;
  const int j = face == SOUTH ? 1 : y_block_size;
  if (!pp->refined) {
    bp = &blocks[pp->slot[0]];
    for (int k = 0; k < n; k++) {
      double a = face < 2 ? bp->array[var][i][k + 1] : bp->array[var][k + 1][j];
      trace[2 * k] = a;
      trace[2 * k + 1] = a;
    }
    return;
  }
  for (int c = 0; c < 2; c++) {
    bp = &blocks[face_slot(pp, face, c)];
    for (int k = 0; k < n; k++)
      trace[c * n + k] = face < 2 ? bp->array[var][i][k + 1] : bp->array[var][k + 1][j];
  }
}

static void fill_ghost(const position *pp, int face, int var, const double *trace) {
  block *bp;
  const int n = face_len(face);
  const int i = face == WEST ? 0 : x_block_size + 1;
  const int j = face == SOUTH ? 0 : y_block_size + 1;
  if (!pp->refined) {
    bp = &blocks[pp->slot[0]];
    for (int k = 0; k < n; k++) {
      double a = 0.5 * (trace[2 * k] + trace[2 * k + 1]);
      if (face < 2)
        bp->array[var][i][k + 1] = a;
      else
        bp->array[var][k + 1][j] = a;
    }
    return;
  }
  for (int c = 0; c < 2; c++) {
    bp = &blocks[face_slot(pp, face, c)];
    for (int k = 0; k < n; k++) {
      if (face < 2)
        bp->array[var][i][k + 1] = trace[c * n + k];
      else
        bp->array[var][k + 1][j] = trace[c * n + k];
    }
  }
}

/* Domain boundary: the ghost mirrors the cell inside. */
static void reflect(const position *pp, int face, int var) {
  block *bp;
  const int n = face_len(face);
  for (int c = 0; c < (pp->refined ? 2 : 1); c++) {
    bp = &blocks[face_slot(pp, face, c)];
    for (int k = 1; k <= n; k++) {
      switch (face) {
      case WEST: bp->array[var][0][k] = bp->array[var][1][k]; break;
      case EAST: bp->array[var][x_block_size + 1][k] = bp->array[var][x_block_size][k]; break;
      case SOUTH: bp->array[var][k][0] = bp->array[var][k][1]; break;
      default: bp->array[var][k][y_block_size + 1] = bp->array[var][k][y_block_size]; break;
      }
    }
  }
}

/* The faces between the four children of a refined position. */
static void exchange_children(const position *pp, int var) {
  block *bp, *bp1;
  for (int c = 0; c < 2; c++) {
    bp = &blocks[pp->slot[2 * c]];      /* west child of row c */
    bp1 = &blocks[pp->slot[2 * c + 1]]; /* east child of row c */
    for (int j = 1; j <= y_block_size; j++) {
      bp->array[var][x_block_size + 1][j] = bp1->array[var][1][j];
      bp1->array[var][0][j] = bp->array[var][x_block_size][j];
    }
    bp = &blocks[pp->slot[c]];      /* south child of column c */
    bp1 = &blocks[pp->slot[c + 2]]; /* north child of column c */
    for (int i = 1; i <= x_block_size; i++) {
      bp->array[var][i][y_block_size + 1] = bp1->array[var][i][1];
      bp1->array[var][i][0] = bp->array[var][i][y_block_size];
    }
  }
}

static int opposite(int face) { return face ^ 1; }

void exchange_ghosts(void) {
  MPI_Request req[4];
  int nreq = 0;
  const int tlen = 2 * y_block_size;
  const int n_face = npy * num_vars * tlen;
  if (trace_tmp == NULL)
    trace_tmp = malloc(sizeof(double) * 2 * (size_t)(x_block_size > y_block_size ? x_block_size
                                                                                   : y_block_size));

  /* receives first: the west part of recv_buff from the rank on the west */
  if (my_pe > 0)
    MPI_Irecv(recv_buff, n_face, MPI_DOUBLE, my_pe - 1, TAG_EASTWARD, amr_comm, &req[nreq++]);
  if (my_pe < num_pes - 1)
    MPI_Irecv(recv_buff + n_face, n_face, MPI_DOUBLE, my_pe + 1, TAG_WESTWARD, amr_comm,
              &req[nreq++]);

  /* pack and send the traces of the boundary columns of positions */
  if (my_pe > 0) {
    for (int py = 0; py < npy; py++)
      for (int var = 0; var < num_vars; var++)
        face_trace(&positions[py * npx], WEST, var, send_buff + (py * num_vars + var) * tlen);
    MPI_Isend(send_buff, n_face, MPI_DOUBLE, my_pe - 1, TAG_WESTWARD, amr_comm, &req[nreq++]);
    num_comm_msgs++;
  }
  if (my_pe < num_pes - 1) {
    for (int py = 0; py < npy; py++)
      for (int var = 0; var < num_vars; var++)
        face_trace(&positions[py * npx + npx - 1], EAST, var,
                   send_buff + n_face + (py * num_vars + var) * tlen);
    MPI_Isend(send_buff + n_face, n_face, MPI_DOUBLE, my_pe + 1, TAG_EASTWARD, amr_comm,
              &req[nreq++]);
    num_comm_msgs++;
  }

  /* on-rank faces while the messages travel */
  for (int py = 0; py < npy; py++)
    for (int px = 0; px < npx; px++) {
      const position *pp = &positions[py * npx + px];
      for (int var = 0; var < num_vars; var++) {
        if (pp->refined)
          exchange_children(pp, var);
        for (int face = 0; face < 4; face++) {
          int qx = px + (face == EAST) - (face == WEST);
          int qy = py + (face == NORTH) - (face == SOUTH);
          int gqx = pp->gx + (face == EAST) - (face == WEST);
          if (qy < 0 || qy >= npy || gqx < 0 || gqx >= npx * num_pes) {
            reflect(pp, face, var);
          } else if (qx >= 0 && qx < npx) {
            face_trace(&positions[qy * npx + qx], opposite(face), var, trace_tmp);
            fill_ghost(pp, face, var, trace_tmp);
          }
        }
      }
    }

  MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);

  if (my_pe > 0)
    for (int py = 0; py < npy; py++)
      for (int var = 0; var < num_vars; var++)
        fill_ghost(&positions[py * npx], WEST, var, recv_buff + (py * num_vars + var) * tlen);
  if (my_pe < num_pes - 1)
    for (int py = 0; py < npy; py++)
      for (int var = 0; var < num_vars; var++)
        fill_ghost(&positions[py * npx + npx - 1], EAST, var,
                   recv_buff + n_face + (py * num_vars + var) * tlen);
}
