// hydrocxx: an unstructured mesh of polygonal zones. Every zone is cut into
// sides (triangles of two points and the zone centre); the sides, not the
// zones, carry the connectivity. The kernels see only the index maps.
#ifndef HYDROCXX_MESH_HH
#define HYDROCXX_MESH_HH

// the C bindings of MPI only
#ifndef OMPI_SKIP_MPICXX
#define OMPI_SKIP_MPICXX 1
#endif
#include <mpi.h>

#include <vector>

#include "Vec2.hh"

class Mesh {
public:
  // sizes
  int nump, nume, numz, nums;
  int chunksize;
  // connectivity
  std::vector<int> mapsp1;  // side -> its first point
  std::vector<int> mapsp2;  // side -> its second point
  std::vector<int> mapsz;   // side -> zone
  std::vector<int> mapse;   // side -> edge
  std::vector<int> mapss3;  // side -> previous side of the zone
  std::vector<int> mapss4;  // side -> next side of the zone
  std::vector<int> znump;   // zone -> number of points (and sides)
  // chunks of sides, zones and points the kernels work through
  std::vector<int> schsfirst, schslast, schzfirst, schzlast;
  std::vector<int> pchpfirst, pchplast, zchzfirst, zchzlast;
  // geometry
  std::vector<double2> px;   // point coordinates
  std::vector<double2> ex;   // edge centres
  std::vector<double2> zx;   // zone centres
  std::vector<double> sarea; // side areas
  std::vector<double> zarea; // zone areas
  std::vector<double> smf;   // side mass fractions
  std::vector<double> elen;  // edge length of each side
  std::vector<double> zdl;   // zone characteristic length
  std::vector<double2> ssurf; // side surface vectors
  // the same at the half step of the predictor
  std::vector<double2> pxp, exp, zxp;
  std::vector<double> sareap, zareap;
  // parallel: points shared with the neighbouring ranks
  int rank, nranks;
  MPI_Comm comm;
  std::vector<int> nbrank;               // neighbour rank of each shared column
  std::vector<std::vector<int>> shared;  // its points
  std::vector<double> sendbuf, recvbuf;
  // boundary points: fixed x or fixed y velocity
  std::vector<int> bcxpts, bcypts;
  int numbad;  // sides with negative area at the last check

  Mesh(int gnzx, int gnzy, double lenx, double leny, int chunk, MPI_Comm c);

  void calcCtrs(const std::vector<double2> &px, std::vector<double2> &ex,
                std::vector<double2> &zx, int sfirst, int slast);
  void calcVols(const std::vector<double2> &px, const std::vector<double2> &zx,
                std::vector<double> &sarea, std::vector<double> &zarea, int sfirst, int slast);
  void calcSideFracs(const std::vector<double> &sarea, const std::vector<double> &zarea,
                     std::vector<double> &smf, int sfirst, int slast);
  void calcSurfVecs(const std::vector<double2> &zx, const std::vector<double2> &ex,
                    std::vector<double2> &ssurf, int sfirst, int slast);
  void calcEdgeLen(const std::vector<double2> &px, std::vector<double> &elen, int sfirst,
                   int slast);
  void calcCharLen(const std::vector<double> &sarea, std::vector<double> &zdl, int sfirst,
                   int slast);
  // adds the other ranks' shares of a point mass and a point force
  void sumAcrossRanks(std::vector<double> &pmass, std::vector<double2> &pforce);

private:
  void makeChunks();
};

#endif
