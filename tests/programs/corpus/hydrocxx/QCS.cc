// hydrocxx: the edge viscosity.
#include "QCS.hh"

#include <algorithm>
#include <cmath>

#include "Hydro.hh"

QCS::QCS(Hydro *h, double q1_, double q2_, int maxsides)
    : hydro(h), qgamma(5. / 3.), q1(q1_), q2(q2_), c0area(maxsides), c0evol(maxsides),
      c0div(maxsides), c0cos(maxsides), c0w(maxsides), c0rmu(maxsides), c0du(maxsides),
      c0qe1(maxsides), c0qe2(maxsides), zuc(maxsides) {}

void QCS::calcForce(std::vector<double2> &sf, int sfirst, int slast) {
  setCornerDiv(sfirst, slast);
  setQCnForce(sfirst, slast);
  setForce(sf, sfirst, slast);
  setVelDiff(sfirst, slast);
}

// Divergence of the velocity over each corner (Green's theorem around the
// quadrilateral point, next edge centre, zone centre, previous edge centre)
// and the velocity jump between the point and the zone centre.
void QCS::setCornerDiv(int sfirst, int slast) {
  const Mesh *mesh = hydro->mesh;
  const std::vector<double2> &pu = hydro->pu;
  const std::vector<double2> &pxp = mesh->pxp;
  const std::vector<double2> &exp = mesh->exp;
  const std::vector<double2> &zxp = mesh->zxp;
  const int zfirst = mesh->mapsz[sfirst], zlast = mesh->mapsz[slast - 1] + 1;

  for (int z = zfirst; z < zlast; z++)
    zuc[z - zfirst] = double2(0., 0.);
  for (int s = sfirst; s < slast; s++)
    zuc[mesh->mapsz[s] - zfirst] += pu[mesh->mapsp1[s]];
  for (int z = zfirst; z < zlast; z++)
    zuc[z - zfirst] /= (double)mesh->znump[z];

  for (int s = sfirst; s < slast; s++) {
    const int c = s - sfirst;
    const int s3 = mesh->mapss3[s];
    const int p = mesh->mapsp1[s], p2 = mesh->mapsp2[s], p0 = mesh->mapsp1[s3];
    const int z = mesh->mapsz[s];
    const double2 up = pu[p];
    const double2 ue = 0.5 * (pu[p] + pu[p2]);
    const double2 uz = zuc[z - zfirst];
    const double2 ue3 = 0.5 * (pu[p0] + pu[p]);
    const double2 xp = pxp[p];
    const double2 xe = exp[mesh->mapse[s]];
    const double2 xz = zxp[z];
    const double2 xe3 = exp[mesh->mapse[s3]];

    const double2 d1 = xe - xp, d2 = xz - xe, d3 = xe3 - xz, d4 = xp - xe3;
    const double flux = dot(0.5 * (up + ue), double2(d1.y, -d1.x)) +
                        dot(0.5 * (ue + uz), double2(d2.y, -d2.x)) +
                        dot(0.5 * (uz + ue3), double2(d3.y, -d3.x)) +
                        dot(0.5 * (ue3 + up), double2(d4.y, -d4.x));
    const double area = 0.5 * (cross(xp, xe) + cross(xe, xz) + cross(xz, xe3) + cross(xe3, xp));
    c0area[c] = area;
    c0div[c] = flux / area;

    c0du[c] = up - uz;
    c0evol[c] = length(c0du[c]);
    const double2 dx = xp - xz;
    const double denom = c0evol[c] * length(dx);
    c0cos[c] = denom > 1.e-30 ? dot(c0du[c], dx) / denom : 0.;
  }
}

// The viscous coefficient of each compressing corner and the force density
// along its two edges.
void QCS::setQCnForce(int sfirst, int slast) {
  const Mesh *mesh = hydro->mesh;
  const std::vector<double2> &pu = hydro->pu;
  const std::vector<double> &zrp = hydro->zrp;
  const std::vector<double> &zss = hydro->zss;
  const double gfac = 0.5 * (qgamma + 1.);

  for (int s = sfirst; s < slast; s++) {
    const int c = s - sfirst;
    const int z = mesh->mapsz[s];
    if (c0div[c] < 0.)
      c0rmu[c] = zrp[z] * (q1 * zss[z] + q2 * gfac * c0evol[c]);
    else
      c0rmu[c] = 0.;
    c0w[c] = std::min(1., std::max(0., 1. - 0.5 * c0cos[c]));
  }
  for (int s = sfirst; s < slast; s++) {
    const int c = s - sfirst;
    const int p = mesh->mapsp1[s], p2 = mesh->mapsp2[s];
    const int p0 = mesh->mapsp1[mesh->mapss3[s]];
    c0qe1[c] = c0rmu[c] * (pu[p2] - pu[p]);
    c0qe2[c] = c0rmu[c] * (pu[p0] - pu[p]);
  }
}

// Side force: the two corners at the ends of the side's edge, each along
// that edge, times the edge length.
void QCS::setForce(std::vector<double2> &sf, int sfirst, int slast) {
  const Mesh *mesh = hydro->mesh;
  const std::vector<double> &elen = mesh->elen;
  for (int s = sfirst; s < slast; s++) {
    const int c1 = s - sfirst;
    const int c2 = mesh->mapss4[s] - sfirst;
    sf[s] = elen[s] * (c0w[c1] * c0qe1[c1] - c0w[c2] * c0qe2[c2]);
  }
}

// Largest velocity difference along the edges of each zone, for the time
// step control.
void QCS::setVelDiff(int sfirst, int slast) {
  const Mesh *mesh = hydro->mesh;
  const std::vector<double2> &pu = hydro->pu;
  std::vector<double> &zdu = hydro->zdu;
  const int zfirst = mesh->mapsz[sfirst], zlast = mesh->mapsz[slast - 1] + 1;
  for (int z = zfirst; z < zlast; z++)
    zdu[z] = 0.;
  for (int s = sfirst; s < slast; s++) {
    const int z = mesh->mapsz[s];
    const double du = length(pu[mesh->mapsp2[s]] - pu[mesh->mapsp1[s]]);
    zdu[z] = std::max(zdu[z], du);
  }
}
