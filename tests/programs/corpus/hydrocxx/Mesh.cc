// hydrocxx: mesh generation (a rectangle of quadrilaterals, cut into column
// strips across the ranks) and the geometry kernels.
#include "Mesh.hh"

#include <algorithm>
#include <cstdio>

Mesh::Mesh(int gnzx, int gnzy, double lenx, double leny, int chunk, MPI_Comm c)
    : chunksize(chunk), comm(c), numbad(0) {
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &nranks);
  const int zx0 = (int)((long)gnzx * rank / nranks);
  const int zx1 = (int)((long)gnzx * (rank + 1) / nranks);
  const int ncols = zx1 - zx0;
  const int npx = ncols + 1, npy = gnzy + 1;

  nump = npx * npy;
  numz = ncols * gnzy;
  nums = 4 * numz;
  const int nhe = ncols * npy;  // horizontal edges
  nume = nhe + npx * gnzy;

  px.resize(nump);
  for (int j = 0; j < npy; j++)
    for (int i = 0; i < npx; i++)
      px[j * npx + i] = double2(lenx * (zx0 + i) / gnzx, leny * j / gnzy);

  mapsp1.resize(nums);
  mapsp2.resize(nums);
  mapsz.resize(nums);
  mapse.resize(nums);
  mapss3.resize(nums);
  mapss4.resize(nums);
  znump.assign(numz, 4);
  for (int j = 0; j < gnzy; j++)
    for (int i = 0; i < ncols; i++) {
      const int z = j * ncols + i;
      const int p[4] = {j * npx + i, j * npx + i + 1, (j + 1) * npx + i + 1, (j + 1) * npx + i};
      const int e[4] = {j * ncols + i, nhe + j * npx + i + 1, (j + 1) * ncols + i,
                        nhe + j * npx + i};
      for (int k = 0; k < 4; k++) {
        const int s = 4 * z + k;
        mapsp1[s] = p[k];
        mapsp2[s] = p[(k + 1) % 4];
        mapsz[s] = z;
        mapse[s] = e[k];
        mapss3[s] = 4 * z + (k + 3) % 4;
        mapss4[s] = 4 * z + (k + 1) % 4;
      }
    }

  // shared point columns
  if (rank > 0) {
    nbrank.push_back(rank - 1);
    std::vector<int> col;
    for (int j = 0; j < npy; j++)
      col.push_back(j * npx);
    shared.push_back(col);
  }
  if (rank < nranks - 1) {
    nbrank.push_back(rank + 1);
    std::vector<int> col;
    for (int j = 0; j < npy; j++)
      col.push_back(j * npx + npx - 1);
    shared.push_back(col);
  }
  sendbuf.resize(3 * npy);
  recvbuf.resize(3 * npy);

  // reflecting walls
  for (int j = 0; j < npy; j++) {
    if (rank == 0)
      bcxpts.push_back(j * npx);
    if (rank == nranks - 1)
      bcxpts.push_back(j * npx + npx - 1);
  }
  for (int i = 0; i < npx; i++) {
    bcypts.push_back(i);
    bcypts.push_back((npy - 1) * npx + i);
  }

  ex.resize(nume);
  zx.resize(numz);
  sarea.resize(nums);
  zarea.resize(numz);
  smf.resize(nums);
  elen.resize(nums);
  zdl.resize(numz);
  ssurf.resize(nums);
  pxp.resize(nump);
  exp.resize(nume);
  zxp.resize(numz);
  sareap.resize(nums);
  zareap.resize(numz);
  makeChunks();

  calcCtrs(px, ex, zx, 0, nums);
  calcVols(px, zx, sarea, zarea, 0, nums);
  calcSideFracs(sarea, zarea, smf, 0, nums);
  calcEdgeLen(px, elen, 0, nums);
  calcCharLen(sarea, zdl, 0, nums);
}

void Mesh::makeChunks() {
  for (int s1 = 0; s1 < nums;) {
    int s2 = std::min(s1 + chunksize, nums);
    while (s2 < nums && mapsz[s2] == mapsz[s2 - 1])
      s2++;
    schsfirst.push_back(s1);
    schslast.push_back(s2);
    schzfirst.push_back(mapsz[s1]);
    schzlast.push_back(mapsz[s2 - 1] + 1);
    s1 = s2;
  }
  for (int p1 = 0; p1 < nump; p1 += chunksize) {
    pchpfirst.push_back(p1);
    pchplast.push_back(std::min(p1 + chunksize, nump));
  }
  for (int z1 = 0; z1 < numz; z1 += chunksize) {
    zchzfirst.push_back(z1);
    zchzlast.push_back(std::min(z1 + chunksize, numz));
  }
}

void Mesh::calcCtrs(const std::vector<double2> &px, std::vector<double2> &ex,
                    std::vector<double2> &zx, int sfirst, int slast) {
  const int zfirst = mapsz[sfirst], zlast = mapsz[slast - 1] + 1;
  for (int z = zfirst; z < zlast; z++)
    zx[z] = double2(0., 0.);
  for (int s = sfirst; s < slast; s++) {
    const int p1 = mapsp1[s], p2 = mapsp2[s];
    const int e = mapse[s], z = mapsz[s];
    ex[e] = 0.5 * (px[p1] + px[p2]);
    zx[z] += px[p1];
  }
  for (int z = zfirst; z < zlast; z++)
    zx[z] /= (double)znump[z];
}

void Mesh::calcVols(const std::vector<double2> &px, const std::vector<double2> &zx,
                    std::vector<double> &sarea, std::vector<double> &zarea, int sfirst,
                    int slast) {
  const int zfirst = mapsz[sfirst], zlast = mapsz[slast - 1] + 1;
  for (int z = zfirst; z < zlast; z++)
    zarea[z] = 0.;
  int bad = 0;
  for (int s = sfirst; s < slast; s++) {
    const int p1 = mapsp1[s], p2 = mapsp2[s], z = mapsz[s];
    const double sa = 0.5 * cross(px[p2] - px[p1], zx[z] - px[p1]);
    sarea[s] = sa;
    zarea[z] += sa;
    if (sa <= 0.)
      bad++;
  }
  numbad += bad;
}

void Mesh::calcSideFracs(const std::vector<double> &sarea, const std::vector<double> &zarea,
                         std::vector<double> &smf, int sfirst, int slast) {
  for (int s = sfirst; s < slast; s++)
    smf[s] = sarea[s] / zarea[mapsz[s]];
}

void Mesh::calcSurfVecs(const std::vector<double2> &zx, const std::vector<double2> &ex,
                        std::vector<double2> &ssurf, int sfirst, int slast) {
  for (int s = sfirst; s < slast; s++)
    ssurf[s] = rotateCCW(ex[mapse[s]] - zx[mapsz[s]]);
}

void Mesh::calcEdgeLen(const std::vector<double2> &px, std::vector<double> &elen, int sfirst,
                       int slast) {
  for (int s = sfirst; s < slast; s++)
    elen[s] = length(px[mapsp2[s]] - px[mapsp1[s]]);
}

void Mesh::calcCharLen(const std::vector<double> &sarea, std::vector<double> &zdl, int sfirst,
                       int slast) {
  const int zfirst = mapsz[sfirst], zlast = mapsz[slast - 1] + 1;
  for (int z = zfirst; z < zlast; z++)
    zdl[z] = 1.e99;
  for (int s = sfirst; s < slast; s++) {
    const int z = mapsz[s];
    const double fac = znump[z] == 3 ? 3. : 4.;
    const double sdl = fac * sarea[s] / elen[s];
    zdl[z] = std::min(zdl[z], sdl);
  }
}

void Mesh::sumAcrossRanks(std::vector<double> &pmass, std::vector<double2> &pforce) {
  for (size_t k = 0; k < nbrank.size(); k++) {
    const std::vector<int> &pts = shared[k];
    const int n = (int)pts.size();
    for (int i = 0; i < n; i++) {
      sendbuf[3 * i] = pmass[pts[i]];
      sendbuf[3 * i + 1] = pforce[pts[i]].x;
      sendbuf[3 * i + 2] = pforce[pts[i]].y;
    }
    MPI_Sendrecv(sendbuf.data(), 3 * n, MPI_DOUBLE, nbrank[k], 7, recvbuf.data(), 3 * n,
                 MPI_DOUBLE, nbrank[k], 7, comm, MPI_STATUS_IGNORE);
    for (int i = 0; i < n; i++) {
      pmass[pts[i]] += recvbuf[3 * i];
      pforce[pts[i]] += double2(recvbuf[3 * i + 1], recvbuf[3 * i + 2]);
    }
  }
}
