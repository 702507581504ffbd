// hydrocxx: an edge artificial viscosity. It works corner by corner (a
// corner is the part of a zone at one of its points; corner c of a chunk
// belongs to side sfirst + c and sits at that side's first point) and
// produces the viscous force on every side, one chunk of sides at a time,
// through scratch arrays sized for a chunk.
#ifndef HYDROCXX_QCS_HH
#define HYDROCXX_QCS_HH

#include <vector>

#include "Vec2.hh"

class Hydro;

class QCS {
public:
  Hydro *hydro;
  double qgamma;  // gamma of the gas, for the compression factor
  double q1;      // linear coefficient
  double q2;      // quadratic coefficient

  QCS(Hydro *h, double q1_, double q2_, int maxsides);
  // sf = viscous force of the sides sfirst .. slast-1; also sets hydro->zdu
  void calcForce(std::vector<double2> &sf, int sfirst, int slast);

private:
  // scratch, per corner of the chunk
  std::vector<double> c0area;   // area of the corner
  std::vector<double> c0evol;   // magnitude of the velocity jump across it
  std::vector<double> c0div;    // velocity divergence over it
  std::vector<double> c0cos;    // cosine of the jump with the corner direction
  std::vector<double> c0w;      // weight of the corner's force
  std::vector<double> c0rmu;    // viscous coefficient rho * (q1 c + q2 |du|)
  std::vector<double2> c0du;    // velocity jump, point minus zone centre
  std::vector<double2> c0qe1;   // force density along the corner's next edge
  std::vector<double2> c0qe2;   // force density along its previous edge
  std::vector<double2> zuc;     // zone-centre velocity, per zone of the chunk

  void setCornerDiv(int sfirst, int slast);
  void setQCnForce(int sfirst, int slast);
  void setForce(std::vector<double2> &sf, int sfirst, int slast);
  void setVelDiff(int sfirst, int slast);
};

#endif
