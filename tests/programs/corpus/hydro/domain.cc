// Domain construction: a Sod shock tube on [0, length].
#include "domain.h"

#include <cmath>

Domain::Domain(Index_t numZones, Real_t length)
    : m_numNode(numZones + 1),
      m_numZone(numZones),
      m_x(numZones + 1),
      m_xd(numZones + 1, 0.0),
      m_fx(numZones + 1, 0.0),
      m_nodalMass(numZones + 1, 0.0),
      m_e(numZones),
      m_p(numZones),
      m_q(numZones, 0.0),
      m_v(numZones, 1.0),
      m_delv(numZones, 0.0),
      m_ss(numZones),
      m_zoneMass(numZones),
      m_volo(numZones),
      m_gamma(1.4),
      m_qlc(0.5),
      m_qqc(2.0),
      m_cfl(0.4),
      m_k0(0.05),
      m_nexp(4.1),
      m_time(0.0),
      m_deltatime(0.0),
      m_dtcourant(1e20),
      m_stoptime(0.2),
      m_cycle(0) {
  const Real_t dx = length / numZones;
  for (Index_t i = 0; i < m_numNode; ++i)
    m_x[i] = i * dx;
  for (Index_t z = 0; z < m_numZone; ++z) {
    const bool left = z < m_numZone / 2;
    const Real_t rho = left ? 1.0 : 0.125;
    const Real_t pres = left ? 1.0 : 0.1;
    m_volo[z] = dx;
    m_zoneMass[z] = rho * dx;
    m_e[z] = pres / ((m_gamma - 1.0) * rho);
    m_p[z] = pres;
    m_ss[z] = std::sqrt(m_gamma * pres / rho);
    m_nodalMass[z] += 0.5 * m_zoneMass[z];
    m_nodalMass[z + 1] += 0.5 * m_zoneMass[z];
  }
}

Domain::~Domain() {}
