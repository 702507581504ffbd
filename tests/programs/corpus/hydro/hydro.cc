// hydro: a 1-D Lagrangian hydrodynamics proxy (Sod shock tube) in the style
// of C++ proxy apps: a Domain of std::vector fields behind accessors, a
// leap-frog time step made of physics kernels, a Mie-Grueneisen EOS.
//   usage: hydro [zones] [max_cycles]
//
// Expected ranking, derived from a by-function profile (2,301 samples; the
// kernels are inlined into main at -O2, blame reports the inlined frames):
//   EvalEOSForZones         67.9% (pow 18.9%)  writes p and ss
//   CalcMonotonicQForZones   9.9%              writes q
//   LagrangeNodal            8.4%  force 3.5% fx, velocity 3.2% xd, position 2.3% x
//   CalcCourantConstraint    4.7%              writes dtcourant
//   UpdateEnergyForZones     4.6%              writes e
//   CalcKinematicsForZones  ~3.7%              writes v and delv
//  main:
//  1. locDom                    ~99%  every kernel writes one of its fields
//  2. locDom.m_ss               ~68%  the EOS: the sound speed is computed
//                                     from the pressure (ss2 from pnew);
//     locDom.m_p                ~30%  the EOS's lines up to pnew, with the
//                                     pow (~19%), not the sound speed's
//                                     division and square root (the lines
//                                     -O2 gives most of the EOS's samples
//                                     besides pow)
//  3. locDom.m_q                ~10%
//  4. m_e, m_dtcourant ~5%; m_v, m_delv ~4%; m_fx, m_xd, m_x ~2-4%
//     (the simulated time m_time and step m_deltatime are computed from
//     m_dtcourant: inclusive blame may lift them, that is fine)
// Must not rank high: locDom.m_cycle (the cycle count), elapsed and start
// (the wall clock), maxCycles, numZones.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "domain.h"

// ---- nodal kernels ----

static inline void CalcForceForNodes(Domain &domain) {
  const Index_t numNode = domain.numNode();
  domain.fx(0) = 0.0;
  domain.fx(numNode - 1) = 0.0;
  for (Index_t i = 1; i < numNode - 1; ++i)
    domain.fx(i) = (domain.p(i - 1) + domain.q(i - 1)) - (domain.p(i) + domain.q(i));
}

static inline void CalcVelocityForNodes(Domain &domain, Real_t dt) {
  const Index_t numNode = domain.numNode();
  for (Index_t i = 1; i < numNode - 1; ++i)
    domain.xd(i) += dt * domain.fx(i) / domain.nodalMass(i);
  domain.xd(0) = 0.0; // walls
  domain.xd(numNode - 1) = 0.0;
}

static inline void CalcPositionForNodes(Domain &domain, Real_t dt) {
  const Index_t numNode = domain.numNode();
  for (Index_t i = 0; i < numNode; ++i)
    domain.x(i) += dt * domain.xd(i);
}

static void LagrangeNodal(Domain &domain) {
  const Real_t dt = domain.deltatime();
  CalcForceForNodes(domain);
  CalcVelocityForNodes(domain, dt);
  CalcPositionForNodes(domain, dt);
}

// ---- zonal kernels ----

static inline void CalcKinematicsForZones(Domain &domain) {
  const Index_t numZone = domain.numZone();
  for (Index_t z = 0; z < numZone; ++z) {
    Real_t vnew = (domain.x(z + 1) - domain.x(z)) / domain.volo(z);
    domain.delv(z) = vnew - domain.v(z);
    domain.v(z) = vnew;
  }
}

// Monotonic artificial viscosity: a limiter built from the velocity
// gradients of the neighbouring zones switches the linear and quadratic
// terms off where the flow is smooth.
static void CalcMonotonicQForZones(Domain &domain) {
  const Index_t numZone = domain.numZone();
  const Real_t qlc = domain.qlc();
  const Real_t qqc = domain.qqc();
  const Real_t ptiny = 1e-36;
  for (Index_t z = 0; z < numZone; ++z) {
    const Real_t du = domain.xd(z + 1) - domain.xd(z);
    if (du >= 0.0) { // expanding: no viscosity
      domain.q(z) = 0.0;
      continue;
    }
    const Real_t dul = z > 0 ? domain.xd(z) - domain.xd(z - 1) : du;
    const Real_t dur = z < numZone - 1 ? domain.xd(z + 2) - domain.xd(z + 1) : du;
    const Real_t norm = 1.0 / (du - ptiny);
    const Real_t rl = dul * norm;
    const Real_t rr = dur * norm;
    Real_t phi = 0.5 * (rl + rr);
    phi = std::min(phi, 2.0 * rl);
    phi = std::min(phi, 2.0 * rr);
    phi = std::min(phi, 1.0);
    phi = std::max(phi, 0.0);
    const Real_t rho = domain.zoneMass(z) / (domain.v(z) * domain.volo(z));
    const Real_t lin = -qlc * rho * domain.ss(z) * du * (1.0 - phi);
    const Real_t quad = qqc * rho * du * du * (1.0 - phi * phi);
    domain.q(z) = lin + quad;
  }
}

// Mie-Grueneisen EOS with a cold compression curve:
//   p = p_c(eta) + (gamma - 1) rho (e - e_c(eta)), eta = rho / rho0.
static void EvalEOSForZones(Domain &domain) {
  const Index_t numZone = domain.numZone();
  const Real_t gm1 = domain.gamma() - 1.0;
  const Real_t k0 = domain.k0();
  const Real_t n = domain.nexp();
  const Real_t rho0 = 1.0;
  const Real_t pmin = 1e-12;
  for (Index_t z = 0; z < numZone; ++z) {
    const Real_t rho = domain.zoneMass(z) / (domain.v(z) * domain.volo(z));
    const Real_t eta = rho / rho0;
    const Real_t etan = std::pow(eta, n);
    const Real_t pc = k0 / n * (etan - 1.0);
    const Real_t ec = k0 / (n * rho0) * (etan / (eta * (n - 1.0)) + 1.0 / eta - n / (n - 1.0));
    Real_t pnew = pc + gm1 * rho * (domain.e(z) - ec);
    if (pnew < pmin)
      pnew = pmin;
    const Real_t ss2 = (k0 * etan / eta + (gm1 + 1.0) * pnew) / rho;
    domain.p(z) = pnew;
    domain.ss(z) = std::sqrt(std::max(ss2, 1e-36));
  }
}

static inline void UpdateEnergyForZones(Domain &domain) {
  const Index_t numZone = domain.numZone();
  const Real_t emin = 1e-12;
  for (Index_t z = 0; z < numZone; ++z) {
    Real_t de = (domain.p(z) + domain.q(z)) * domain.delv(z) * domain.volo(z) /
                domain.zoneMass(z);
    domain.e(z) = std::max(domain.e(z) - de, emin);
  }
}

static void LagrangeElements(Domain &domain) {
  CalcKinematicsForZones(domain);
  CalcMonotonicQForZones(domain);
  UpdateEnergyForZones(domain);
  EvalEOSForZones(domain);
}

static void CalcCourantConstraintForZones(Domain &domain) {
  const Index_t numZone = domain.numZone();
  Real_t dtcourant = 1e20;
  for (Index_t z = 0; z < numZone; ++z) {
    const Real_t dx = domain.v(z) * domain.volo(z);
    const Real_t du = std::fabs(domain.xd(z + 1) - domain.xd(z));
    const Real_t dtz = dx / (domain.ss(z) + du);
    dtcourant = std::min(dtcourant, dtz);
  }
  domain.dtcourant() = domain.cfl() * dtcourant;
}

static void LagrangeLeapFrog(Domain &domain) {
  LagrangeNodal(domain);
  LagrangeElements(domain);
  CalcCourantConstraintForZones(domain);
}

static void TimeIncrement(Domain &domain) {
  Real_t dt = domain.dtcourant();
  if (domain.cycle() > 0) // grow by at most 10% a cycle
    dt = std::min(dt, 1.1 * domain.deltatime());
  if (domain.time() + dt > domain.stoptime())
    dt = domain.stoptime() - domain.time();
  domain.deltatime() = dt;
  domain.time() += dt;
  ++domain.cycle();
}

int main(int argc, char *argv[]) {
  const Index_t numZones = argc > 1 ? std::atoi(argv[1]) : 200000;
  const int maxCycles = argc > 2 ? std::atoi(argv[2]) : 150;

  Domain *locDom = new Domain(numZones, 1.0);
  CalcCourantConstraintForZones(*locDom);
  locDom->deltatime() = locDom->dtcourant();

  auto start = std::chrono::steady_clock::now();
  while (locDom->time() < locDom->stoptime() && locDom->cycle() < maxCycles) {
    TimeIncrement(*locDom);
    LagrangeLeapFrog(*locDom);
  }
  double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  Real_t internal = 0.0, kinetic = 0.0;
  for (Index_t z = 0; z < locDom->numZone(); ++z)
    internal += locDom->zoneMass(z) * locDom->e(z);
  for (Index_t i = 0; i < locDom->numNode(); ++i)
    kinetic += 0.5 * locDom->nodalMass(i) * locDom->xd(i) * locDom->xd(i);
  std::printf("hydro: %d zones, %d cycles, t=%.6e, energy %.12e (internal %.12e)\n",
              numZones, locDom->cycle(), locDom->time(), internal + kinetic, internal);
  std::printf("hydro: elapsed %.3f s, %.3f us/zone/cycle\n", elapsed,
              1e6 * elapsed / ((double)numZones * locDom->cycle()));
  delete locDom;
  return 0;
}
