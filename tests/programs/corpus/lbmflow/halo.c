/* halo.c: the ghost columns of the distributions, exchanged with
 * nonblocking point-to-point calls. A column of one population is strided
 * (one double every nx_tot), so a column type is an MPI_Type_vector; the
 * three populations that cross the slab boundary in one direction are
 * three such columns, one plane apart (MPI_Type_create_hindexed_block). */
#include "halo.h"

enum { TAG_EAST = 11, TAG_WEST = 12 };

static int crossing_type(const Lattice *lat, const int q[3], MPI_Datatype *type)
{
  MPI_Datatype column;
  MPI_Aint displ[3];
  MPI_Aint plane = (MPI_Aint)lat->nx_tot * lat->ny_tot * (MPI_Aint)sizeof(double);
  int err = MPI_Type_vector(lat->ny_tot, 1, lat->nx_tot, MPI_DOUBLE, &column);
  if (err != MPI_SUCCESS)
    return err;
  for (int i = 0; i < 3; i++)
    displ[i] = q[i] * plane;
  err = MPI_Type_create_hindexed_block(3, 1, displ, column, type);
  MPI_Type_free(&column);
  if (err == MPI_SUCCESS)
    err = MPI_Type_commit(type);
  return err;
}

int halo_create(Halo *h, const Lattice *lat, MPI_Comm comm)
{
  static const int east_q[3] = {1, 5, 8}, west_q[3] = {3, 6, 7};
  h->comm = comm;
  h->nexchange = 0;
  for (int i = 0; i < 4; i++)
    h->req[i] = MPI_REQUEST_NULL;
  if (crossing_type(lat, east_q, &h->east) != MPI_SUCCESS)
    return -1;
  if (crossing_type(lat, west_q, &h->west) != MPI_SUCCESS)
    return -1;
  return 0;
}

/* After it the left ghost column holds the east-moving populations of the
 * left neighbour's last column, the right ghost column the west-moving
 * populations of the right neighbour's first column. The datatypes start
 * at population 0 of a column: the displacements pick the planes. */
void halo_exchange(Halo *h, Lattice *lat)
{
  const int nx = lat->nx_tot - 2;
  MPI_Irecv(&F(lat, 0, 0, 0), 1, h->east, g_dom.left, TAG_EAST, h->comm, &h->req[0]);
  MPI_Irecv(&F(lat, 0, nx + 1, 0), 1, h->west, g_dom.right, TAG_WEST, h->comm, &h->req[1]);
  MPI_Isend(&F(lat, 0, nx, 0), 1, h->east, g_dom.right, TAG_EAST, h->comm, &h->req[2]);
  MPI_Isend(&F(lat, 0, 1, 0), 1, h->west, g_dom.left, TAG_WEST, h->comm, &h->req[3]);
  MPI_Waitall(4, h->req, MPI_STATUSES_IGNORE);
  h->nexchange++;
}

void halo_free(Halo *h)
{
  MPI_Type_free(&h->east);
  MPI_Type_free(&h->west);
}
