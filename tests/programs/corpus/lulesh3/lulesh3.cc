// lulesh3: a LULESH-style hydrodynamics proxy built at -O3: a Domain class
// with dozens of `Real_t& xd(Index_t i)` accessors over std::vector<Real_t>,
// free functions taking `Domain&`, small helpers that -O3 inlines (and
// whose inlined frames take the samples), Index_t/Real_t typedefs, `const
// Real_t *const` arrays handed to the kernels, and temporaries allocated
// per call (`Real_t *sigxx = Allocate<Real_t>(n)`).
//   usage: lulesh3 [edge] [cycles]
//
// Expected ranking (owner main, variable dom), derived from a by-function
// profile:
//   CalcKinematicsForElems  ~45%  writes m_vnew, m_delv (from m_x, m_xd)
//   IntegrateStressForElems ~30%  writes m_fx/m_fy/m_fz (nodal forces)
//   CalcEnergyForElems      ~15%  writes m_e, m_p (the EOS)
//   CalcVelocity+Position   ~8%   writes m_xd.., m_x..
//  1. dom: every kernel writes one of its fields;
//  2. dom.m_vnew gets the kinematics, dom.m_fx the stress integration,
//     dom.m_e/m_p the energy kernel;
//  3. dom.m_cycle, dom.m_time, dom.m_dtcourant and main's timers stay low;
//  4. types print as the source spells them (Real_t, no `const const`).
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

typedef double Real_t;
typedef int Index_t;

template <typename T> T *Allocate(size_t n) { return static_cast<T *>(std::malloc(sizeof(T) * n)); }
template <typename T> void Release(T **p) { std::free(*p); *p = nullptr; }

class Domain {
 public:
  Domain(Index_t edge);
  Real_t &x(Index_t i) { return m_x[i]; }
  Real_t &y(Index_t i) { return m_y[i]; }
  Real_t &z(Index_t i) { return m_z[i]; }
  Real_t &xd(Index_t i) { return m_xd[i]; }
  Real_t &yd(Index_t i) { return m_yd[i]; }
  Real_t &zd(Index_t i) { return m_zd[i]; }
  Real_t &fx(Index_t i) { return m_fx[i]; }
  Real_t &fy(Index_t i) { return m_fy[i]; }
  Real_t &fz(Index_t i) { return m_fz[i]; }
  Real_t &nodalMass(Index_t i) { return m_nodalMass[i]; }
  Real_t &e(Index_t i) { return m_e[i]; }
  Real_t &p(Index_t i) { return m_p[i]; }
  Real_t &q(Index_t i) { return m_q[i]; }
  Real_t &v(Index_t i) { return m_v[i]; }
  Real_t &vnew(Index_t i) { return m_vnew[i]; }
  Real_t &delv(Index_t i) { return m_delv[i]; }
  Index_t *nodelist(Index_t i) { return &m_nodelist[8 * (size_t)i]; }
  Index_t numElem() const { return m_numElem; }
  Index_t numNode() const { return m_numNode; }
  Real_t &time() { return m_time; }
  Real_t &deltatime() { return m_deltatime; }
  Index_t &cycle() { return m_cycle; }

 private:
  std::vector<Real_t> m_x, m_y, m_z, m_xd, m_yd, m_zd, m_fx, m_fy, m_fz, m_nodalMass;
  std::vector<Real_t> m_e, m_p, m_q, m_v, m_vnew, m_delv;
  std::vector<Index_t> m_nodelist;
  Index_t m_numElem, m_numNode;
  Real_t m_time, m_deltatime;
  Index_t m_cycle;
};

Domain::Domain(Index_t edge)
    : m_numElem(edge * edge * edge), m_numNode((edge + 1) * (edge + 1) * (edge + 1)), m_time(0),
      m_deltatime(1e-4), m_cycle(0) {
  size_t nn = m_numNode, ne = m_numElem;
  for (auto *f : {&m_x, &m_y, &m_z, &m_xd, &m_yd, &m_zd, &m_fx, &m_fy, &m_fz, &m_nodalMass})
    f->assign(nn, 0.0);
  for (auto *f : {&m_e, &m_p, &m_q, &m_v, &m_vnew, &m_delv}) f->assign(ne, 0.0);
  m_nodelist.resize(8 * ne);
  Index_t np = edge + 1, k = 0;
  for (Index_t a = 0; a < np; a++)
    for (Index_t b = 0; b < np; b++)
      for (Index_t c = 0; c < np; c++, k++) {
        m_x[k] = c * 1.125 / edge;
        m_y[k] = b * 1.125 / edge;
        m_z[k] = a * 1.125 / edge;
        m_nodalMass[k] = 1.0;
      }
  Index_t el = 0;
  for (Index_t a = 0; a < edge; a++)
    for (Index_t b = 0; b < edge; b++)
      for (Index_t c = 0; c < edge; c++, el++) {
        Index_t n0 = (a * np + b) * np + c;
        Index_t *nl = &m_nodelist[8 * (size_t)el];
        nl[0] = n0; nl[1] = n0 + 1; nl[2] = n0 + np + 1; nl[3] = n0 + np;
        nl[4] = n0 + np * np; nl[5] = n0 + np * np + 1; nl[6] = n0 + np * np + np + 1; nl[7] = n0 + np * np + np;
        m_v[el] = 1.0;
        m_e[el] = (el == 0) ? 3.948746e+7 : 0.0;
      }
}

static inline Real_t TripleProduct(Real_t x1, Real_t y1, Real_t z1, Real_t x2, Real_t y2, Real_t z2,
                                   Real_t x3, Real_t y3, Real_t z3) {
  return x1 * (y2 * z3 - z2 * y3) + x2 * (z1 * y3 - y1 * z3) + x3 * (y1 * z2 - z1 * y2);
}

static inline Real_t CalcElemVolume(const Real_t *const x, const Real_t *const y, const Real_t *const z) {
  Real_t dx61 = x[6] - x[1], dy61 = y[6] - y[1], dz61 = z[6] - z[1];
  Real_t dx70 = x[7] - x[0], dy70 = y[7] - y[0], dz70 = z[7] - z[0];
  Real_t dx63 = x[6] - x[3], dy63 = y[6] - y[3], dz63 = z[6] - z[3];
  Real_t dx20 = x[2] - x[0], dy20 = y[2] - y[0], dz20 = z[2] - z[0];
  Real_t dx50 = x[5] - x[0], dy50 = y[5] - y[0], dz50 = z[5] - z[0];
  Real_t dx64 = x[6] - x[4], dy64 = y[6] - y[4], dz64 = z[6] - z[4];
  Real_t dx31 = x[3] - x[1], dy31 = y[3] - y[1], dz31 = z[3] - z[1];
  Real_t dx72 = x[7] - x[2], dy72 = y[7] - y[2], dz72 = z[7] - z[2];
  Real_t dx43 = x[4] - x[3], dy43 = y[4] - y[3], dz43 = z[4] - z[3];
  Real_t dx57 = x[5] - x[7], dy57 = y[5] - y[7], dz57 = z[5] - z[7];
  Real_t dx14 = x[1] - x[4], dy14 = y[1] - y[4], dz14 = z[1] - z[4];
  Real_t dx25 = x[2] - x[5], dy25 = y[2] - y[5], dz25 = z[2] - z[5];
  Real_t volume = TripleProduct(dx31 + dx72, dx63, dx20, dy31 + dy72, dy63, dy20, dz31 + dz72, dz63, dz20) +
                  TripleProduct(dx43 + dx57, dx64, dx70, dy43 + dy57, dy64, dy70, dz43 + dz57, dz64, dz70) +
                  TripleProduct(dx14 + dx25, dx61, dx50, dy14 + dy25, dy61, dy50, dz14 + dz25, dz61, dz50);
  return volume / 12.0;
}

static inline void CollectNodes(Domain &dom, const Index_t *elemToNode, Real_t *xl, Real_t *yl, Real_t *zl) {
  for (Index_t k = 0; k < 8; k++) {
    Index_t n = elemToNode[k];
    xl[k] = dom.x(n);
    yl[k] = dom.y(n);
    zl[k] = dom.z(n);
  }
}

void CalcKinematicsForElems(Domain &dom, Real_t dt) {
  const Index_t numElem = dom.numElem();
  for (Index_t k = 0; k < numElem; k++) {
    Real_t xl[8], yl[8], zl[8];
    const Index_t *const elemToNode = dom.nodelist(k);
    CollectNodes(dom, elemToNode, xl, yl, zl);
    for (Index_t j = 0; j < 8; j++) {
      Index_t n = elemToNode[j];
      xl[j] -= 0.5 * dt * dom.xd(n);
      yl[j] -= 0.5 * dt * dom.yd(n);
      zl[j] -= 0.5 * dt * dom.zd(n);
    }
    Real_t vol = CalcElemVolume(xl, yl, zl);
    dom.vnew(k) = vol;
    dom.delv(k) = vol - dom.v(k);
  }
}

void IntegrateStressForElems(Domain &dom, const Real_t *const sigxx, const Real_t *const sigyy,
                             const Real_t *const sigzz) {
  const Index_t numElem = dom.numElem();
  for (Index_t k = 0; k < numElem; k++) {
    const Index_t *const elemToNode = dom.nodelist(k);
    Real_t xl[8], yl[8], zl[8];
    CollectNodes(dom, elemToNode, xl, yl, zl);
    Real_t vol = CalcElemVolume(xl, yl, zl);
    for (Index_t j = 0; j < 8; j++) {
      Index_t n = elemToNode[j];
      Real_t w = vol * 0.125;
      dom.fx(n) -= sigxx[k] * w * (xl[j] - xl[(j + 1) & 7]);
      dom.fy(n) -= sigyy[k] * w * (yl[j] - yl[(j + 3) & 7]);
      dom.fz(n) -= sigzz[k] * w * (zl[j] - zl[(j + 4) & 7]);
    }
  }
}

void CalcForceForNodes(Domain &dom) {
  const Index_t numElem = dom.numElem();
  for (Index_t n = 0; n < dom.numNode(); n++) dom.fx(n) = dom.fy(n) = dom.fz(n) = 0.0;
  Real_t *sigxx = Allocate<Real_t>(numElem);
  Real_t *sigyy = Allocate<Real_t>(numElem);
  Real_t *sigzz = Allocate<Real_t>(numElem);
  for (Index_t k = 0; k < numElem; k++) sigxx[k] = sigyy[k] = sigzz[k] = -dom.p(k) - dom.q(k);
  IntegrateStressForElems(dom, sigxx, sigyy, sigzz);
  Release(&sigzz);
  Release(&sigyy);
  Release(&sigxx);
}

void CalcVelocityAndPosition(Domain &dom, Real_t dt) {
  for (Index_t n = 0; n < dom.numNode(); n++) {
    Real_t m = dom.nodalMass(n);
    dom.xd(n) += dom.fx(n) / m * dt;
    dom.yd(n) += dom.fy(n) / m * dt;
    dom.zd(n) += dom.fz(n) / m * dt;
    dom.x(n) += dom.xd(n) * dt;
    dom.y(n) += dom.yd(n) * dt;
    dom.z(n) += dom.zd(n) * dt;
  }
}

void CalcEnergyForElems(Domain &dom) {
  const Index_t numElem = dom.numElem();
  for (Index_t k = 0; k < numElem; k++) {
    Real_t e = dom.e(k), p = dom.p(k), dv = dom.delv(k);
    for (int it = 0; it < 6; it++) {  // the EOS is iterated to self-consistency
      e = e - 0.5 * dv * (p + dom.q(k));
      e = std::fmin(std::fmax(e, 1e-12), 1e9);
      p = 0.6666 * e / (std::fabs(dom.vnew(k)) + 1.0);
    }
    dom.e(k) = e;
    dom.p(k) = p;
    dom.q(k) = dv < 0 ? 0.1 * dv * dv : 0.0;
    dom.v(k) = dom.vnew(k);
  }
}

void LagrangeLeapFrog(Domain &dom) {
  Real_t dt = dom.deltatime();
  CalcForceForNodes(dom);
  CalcVelocityAndPosition(dom, dt);
  CalcKinematicsForElems(dom, dt);
  CalcEnergyForElems(dom);
  dom.time() += dt;
  dom.cycle()++;
}

int main(int argc, char **argv) {
  Index_t edge = argc > 1 ? std::atoi(argv[1]) : 30;
  Index_t maxCycles = argc > 2 ? std::atoi(argv[2]) : 200;
  Domain dom(edge);
  auto start = std::chrono::steady_clock::now();
  while (dom.cycle() < maxCycles) LagrangeLeapFrog(dom);
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  Real_t esum = 0;
  for (Index_t k = 0; k < dom.numElem(); k++) esum += dom.e(k);
  std::printf("lulesh3: %d cycles, energy %.6e, %.3f s\n", dom.cycle(), esum, elapsed);
  return 0;
}
