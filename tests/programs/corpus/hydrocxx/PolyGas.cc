// hydrocxx: gamma-law gas.
#include "PolyGas.hh"

#include <algorithm>
#include <cmath>

#include "Hydro.hh"

PolyGas::PolyGas(Hydro *h, double g, double ssmin_, int maxzones)
    : hydro(h), gamma(g), ssmin(ssmin_), z0per(maxzones), zpeos(maxzones) {}

void PolyGas::calcEOS(const std::vector<double> &zr, const std::vector<double> &ze, int zfirst,
                      int zlast, std::vector<double> &zss) {
  const double gm1 = gamma - 1.;
  const double ss2min = ssmin * ssmin;
  for (int z = zfirst; z < zlast; z++) {
    const int iz = z - zfirst;
    const double rx = zr[z];
    const double ex = std::max(ze[z], 0.);
    const double px = gm1 * rx * ex;
    const double prex = gm1 * ex;
    const double perx = gm1 * rx;
    const double csqd = std::max(ss2min, prex + perx * px / (rx * rx));
    zpeos[iz] = px;
    z0per[iz] = perx;
    zss[z] = std::sqrt(csqd);
  }
}

void PolyGas::calcStateAtHalf(const std::vector<double> &zr0, const std::vector<double> &zvolp,
                              const std::vector<double> &zvol0, const std::vector<double> &ze,
                              const std::vector<double> &zwrate, const std::vector<double> &zm,
                              double dt, std::vector<double> &zp, std::vector<double> &zss,
                              int zfirst, int zlast) {
  calcEOS(zr0, ze, zfirst, zlast, zss);
  const double dth = 0.5 * dt;
  for (int z = zfirst; z < zlast; z++) {
    const int iz = z - zfirst;
    const double zminv = 1. / zm[z];
    const double dv = (zvolp[z] - zvol0[z]) * zminv;
    const double bulk = zr0[z] * zss[z] * zss[z];
    const double denom = 1. + 0.5 * z0per[iz] * dv;
    const double src = zwrate[z] * dth * zminv;
    zp[z] = zpeos[iz] + (z0per[iz] * src - zr0[z] * bulk * dv) / denom;
  }
}

void PolyGas::calcForce(const std::vector<double> &zp, const std::vector<double2> &ssurfp,
                        std::vector<double2> &sf, int sfirst, int slast) {
  const std::vector<int> &mapsz = hydro->mesh->mapsz;
  for (int s = sfirst; s < slast; s++) {
    const int z = mapsz[s];
    sf[s] = -zp[z] * ssurfp[s];
  }
}
