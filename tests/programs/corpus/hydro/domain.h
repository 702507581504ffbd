// A 1-D Lagrangian staggered-grid hydrodynamics domain, laid out the way C++
// proxy apps lay out their meshes: one std::vector per field, reached through
// reference-returning accessors. Nodes carry position, velocity, force and
// mass; zones carry energy, pressure, viscosity, volume, density and sound
// speed. The constructor is defined in domain.cc.
#ifndef HYDRO_DOMAIN_H
#define HYDRO_DOMAIN_H

#include <vector>

typedef int Index_t;
typedef double Real_t;

class Domain {
 public:
  Domain(Index_t numZones, Real_t length);
  ~Domain();

  // node-centred
  Real_t &x(Index_t i) { return m_x[i]; }
  Real_t &xd(Index_t i) { return m_xd[i]; }
  Real_t &fx(Index_t i) { return m_fx[i]; }
  Real_t &nodalMass(Index_t i) { return m_nodalMass[i]; }

  // zone-centred
  Real_t &e(Index_t z) { return m_e[z]; }
  Real_t &p(Index_t z) { return m_p[z]; }
  Real_t &q(Index_t z) { return m_q[z]; }
  Real_t &v(Index_t z) { return m_v[z]; }
  Real_t &delv(Index_t z) { return m_delv[z]; }
  Real_t &ss(Index_t z) { return m_ss[z]; }
  Real_t &zoneMass(Index_t z) { return m_zoneMass[z]; }
  Real_t &volo(Index_t z) { return m_volo[z]; }

  Index_t numNode() const { return m_numNode; }
  Index_t numZone() const { return m_numZone; }

  // parameters
  Real_t gamma() const { return m_gamma; }
  Real_t qlc() const { return m_qlc; }
  Real_t qqc() const { return m_qqc; }
  Real_t cfl() const { return m_cfl; }
  Real_t k0() const { return m_k0; }
  Real_t nexp() const { return m_nexp; }

  // simulation state
  Real_t &time() { return m_time; }
  Real_t &deltatime() { return m_deltatime; }
  Real_t &dtcourant() { return m_dtcourant; }
  Real_t &stoptime() { return m_stoptime; }
  int &cycle() { return m_cycle; }

 private:
  Index_t m_numNode;
  Index_t m_numZone;

  std::vector<Real_t> m_x;
  std::vector<Real_t> m_xd;
  std::vector<Real_t> m_fx;
  std::vector<Real_t> m_nodalMass;

  std::vector<Real_t> m_e;
  std::vector<Real_t> m_p;
  std::vector<Real_t> m_q;
  std::vector<Real_t> m_v;
  std::vector<Real_t> m_delv;
  std::vector<Real_t> m_ss;
  std::vector<Real_t> m_zoneMass;
  std::vector<Real_t> m_volo;

  Real_t m_gamma;
  Real_t m_qlc;
  Real_t m_qqc;
  Real_t m_cfl;
  Real_t m_k0;
  Real_t m_nexp;

  Real_t m_time;
  Real_t m_deltatime;
  Real_t m_dtcourant;
  Real_t m_stoptime;
  int m_cycle;
};

#endif
