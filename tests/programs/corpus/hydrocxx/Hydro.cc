// hydrocxx: one predictor-corrector cycle of the Lagrangian hydrodynamics.
#include "Hydro.hh"

#include <algorithm>
#include <cmath>

#include "PolyGas.hh"
#include "QCS.hh"
#include "TTS.hh"

Hydro::Hydro(Mesh *m, double rho0, double e0, double esedov, double rsedov, double cfl_,
             double cflv_)
    : mesh(m), cfl(cfl_), cflv(cflv_), dtrec(0.), dtreczone(-1) {
  const int nump = mesh->nump, numz = mesh->numz, nums = mesh->nums;
  const int maxchunk = mesh->chunksize + 16;
  pgas = new PolyGas(this, 5. / 3., 1.e-6, maxchunk);
  qcs = new QCS(this, 0.1, 1.0, maxchunk);
  tts = new TTS(this, 0.5, 1.e-6);

  pu.assign(nump, double2(0., 0.));
  pu0.resize(nump);
  pap.resize(nump);
  pf.resize(nump);
  px0.resize(nump);
  pmaswt.resize(nump);
  zm.resize(numz);
  zr.assign(numz, rho0);
  zrp.resize(numz);
  ze.assign(numz, e0);
  zetot.resize(numz);
  zw.resize(numz);
  zwrate.assign(numz, 0.);
  zp.resize(numz);
  zss.resize(numz);
  zdu.assign(numz, 0.);
  zarea0.resize(numz);
  sfp.resize(nums);
  sfq.resize(nums);
  sfh.resize(nums);
  sft.resize(nums);
  cmaswt.resize(nums);

  // the blast: a quarter disc of radius rsedov at the origin corner holds
  // the energy esedov
  const double eblast = esedov / (rho0 * 0.25 * 3.141592653589793 * rsedov * rsedov);
  for (int z = 0; z < numz; z++) {
    zm[z] = zr[z] * mesh->zarea[z];
    if (length(mesh->zx[z]) < rsedov)
      ze[z] = eblast;
    zetot[z] = ze[z] * zm[z];
  }
  for (size_t ch = 0; ch < mesh->zchzfirst.size(); ch++) {
    const int zfirst = mesh->zchzfirst[ch], zlast = mesh->zchzlast[ch];
    pgas->calcEOS(zr, ze, zfirst, zlast, zss);
    for (int z = zfirst; z < zlast; z++)
      zp[z] = (pgas->gamma - 1.) * zr[z] * ze[z];
  }
}

Hydro::~Hydro() {
  delete tts;
  delete qcs;
  delete pgas;
  delete mesh;
}

void Hydro::advPosHalf(double dt, int pfirst, int plast) {
  const double dth = 0.5 * dt;
  for (int p = pfirst; p < plast; p++)
    mesh->pxp[p] = px0[p] + pu0[p] * dth;
}

void Hydro::advPosFull(double dt, int pfirst, int plast) {
  for (int p = pfirst; p < plast; p++) {
    pu[p] = pu0[p] + pap[p] * dt;
    mesh->px[p] = px0[p] + 0.5 * (pu[p] + pu0[p]) * dt;
  }
}

void Hydro::calcRho(const std::vector<double> &zarea, std::vector<double> &zrho, int zfirst,
                    int zlast) {
  for (int z = zfirst; z < zlast; z++)
    zrho[z] = zm[z] / zarea[z];
}

// Corner mass: the density of the zone times half of each of the two sides
// that meet at the corner's point.
void Hydro::calcCrnrMass(int sfirst, int slast) {
  for (int s = sfirst; s < slast; s++) {
    const int s3 = mesh->mapss3[s];
    const int z = mesh->mapsz[s];
    cmaswt[s] = zrp[z] * 0.5 * (mesh->sareap[s] + mesh->sareap[s3]);
  }
}

void Hydro::sumCrnrForce(int sfirst, int slast) {
  for (int s = sfirst; s < slast; s++)
    sft[s] = sfp[s] + sfq[s] + sfh[s];
}

// A side pushes its first point with its force and its second point with
// the opposite force; corner masses go to their points.
void Hydro::sumToPoints(int sfirst, int slast) {
  for (int s = sfirst; s < slast; s++) {
    const int p1 = mesh->mapsp1[s], p2 = mesh->mapsp2[s];
    pmaswt[p1] += cmaswt[s];
    pf[p1] += sft[s];
    pf[p2] -= sft[s];
  }
}

void Hydro::calcAccel(int pfirst, int plast) {
  const double fuzz = 1.e-99;
  for (int p = pfirst; p < plast; p++)
    pap[p] = pf[p] / std::max(pmaswt[p], fuzz);
}

void Hydro::applyBoundary() {
  for (int p : mesh->bcxpts) {
    pap[p].x = 0.;
    pu0[p].x = 0.;
  }
  for (int p : mesh->bcypts) {
    pap[p].y = 0.;
    pu0[p].y = 0.;
  }
}

// Work of the side forces over the step's displacement of their points;
// what the points gain the zone loses.
void Hydro::calcWork(double dt, int sfirst, int slast) {
  const int zfirst = mesh->mapsz[sfirst], zlast = mesh->mapsz[slast - 1] + 1;
  for (int z = zfirst; z < zlast; z++)
    zw[z] = 0.;
  const double dth = 0.5 * dt;
  for (int s = sfirst; s < slast; s++) {
    const int p1 = mesh->mapsp1[s], p2 = mesh->mapsp2[s];
    const int z = mesh->mapsz[s];
    const double2 sf = sft[s];
    const double2 dx1 = (pu[p1] + pu0[p1]) * dth;
    const double2 dx2 = (pu[p2] + pu0[p2]) * dth;
    const double dwork = -(dot(sf, dx1) - dot(sf, dx2));
    zetot[z] += dwork;
    zw[z] += dwork;
  }
}

void Hydro::calcWorkRate(double dt, int zfirst, int zlast) {
  const double dtinv = 1. / dt;
  for (int z = zfirst; z < zlast; z++) {
    const double dvol = mesh->zarea[z] - zarea0[z];
    zwrate[z] = (zw[z] + zp[z] * dvol) * dtinv;
  }
}

void Hydro::calcEnergy(int zfirst, int zlast) {
  for (int z = zfirst; z < zlast; z++)
    ze[z] = zetot[z] / zm[z];
}

void Hydro::doCycle(double dt) {
  const int numpch = (int)mesh->pchpfirst.size();
  const int numsch = (int)mesh->schsfirst.size();
  const int numzch = (int)mesh->zchzfirst.size();

  // predictor: points to the half step
  for (int ch = 0; ch < numpch; ch++) {
    const int pfirst = mesh->pchpfirst[ch], plast = mesh->pchplast[ch];
    for (int p = pfirst; p < plast; p++) {
      pu0[p] = pu[p];
      px0[p] = mesh->px[p];
    }
    advPosHalf(dt, pfirst, plast);
  }
  for (int ch = 0; ch < numzch; ch++)
    for (int z = mesh->zchzfirst[ch]; z < mesh->zchzlast[ch]; z++)
      zarea0[z] = mesh->zarea[z];

  // half-step geometry, state and side forces, chunk by chunk
  for (int ch = 0; ch < numsch; ch++) {
    const int sfirst = mesh->schsfirst[ch], slast = mesh->schslast[ch];
    const int zfirst = mesh->schzfirst[ch], zlast = mesh->schzlast[ch];
    mesh->calcCtrs(mesh->pxp, mesh->exp, mesh->zxp, sfirst, slast);
    mesh->calcVols(mesh->pxp, mesh->zxp, mesh->sareap, mesh->zareap, sfirst, slast);
    mesh->calcSurfVecs(mesh->zxp, mesh->exp, mesh->ssurf, sfirst, slast);
    mesh->calcEdgeLen(mesh->pxp, mesh->elen, sfirst, slast);
    calcRho(mesh->zareap, zrp, zfirst, zlast);
    calcCrnrMass(sfirst, slast);
    pgas->calcStateAtHalf(zr, mesh->zareap, zarea0, ze, zwrate, zm, dt, zp, zss, zfirst, zlast);
    pgas->calcForce(zp, mesh->ssurf, sfp, sfirst, slast);
    tts->calcForce(mesh->zareap, zrp, zss, mesh->sareap, mesh->smf, mesh->ssurf, sfh, sfirst,
                   slast);
    qcs->calcForce(sfq, sfirst, slast);
    sumCrnrForce(sfirst, slast);
  }

  // point masses and forces, across ranks too
  std::fill(pmaswt.begin(), pmaswt.end(), 0.);
  std::fill(pf.begin(), pf.end(), double2(0., 0.));
  for (int ch = 0; ch < numsch; ch++)
    sumToPoints(mesh->schsfirst[ch], mesh->schslast[ch]);
  mesh->sumAcrossRanks(pmaswt, pf);

  // corrector: accelerate and move the points
  for (int ch = 0; ch < numpch; ch++)
    calcAccel(mesh->pchpfirst[ch], mesh->pchplast[ch]);
  applyBoundary();
  for (int ch = 0; ch < numpch; ch++)
    advPosFull(dt, mesh->pchpfirst[ch], mesh->pchplast[ch]);

  // full-step geometry, work and energy
  for (int ch = 0; ch < numsch; ch++) {
    const int sfirst = mesh->schsfirst[ch], slast = mesh->schslast[ch];
    const int zfirst = mesh->schzfirst[ch], zlast = mesh->schzlast[ch];
    mesh->calcCtrs(mesh->px, mesh->ex, mesh->zx, sfirst, slast);
    mesh->calcVols(mesh->px, mesh->zx, mesh->sarea, mesh->zarea, sfirst, slast);
    mesh->calcEdgeLen(mesh->px, mesh->elen, sfirst, slast);
    mesh->calcCharLen(mesh->sarea, mesh->zdl, sfirst, slast);
    calcWork(dt, sfirst, slast);
    calcWorkRate(dt, zfirst, zlast);
    calcEnergy(zfirst, zlast);
    calcRho(mesh->zarea, zr, zfirst, zlast);
  }
}

// The largest stable step this rank allows: Courant with the sound speed
// and the velocity jumps, and a limit on the relative volume change.
void Hydro::getDtHydro(double dtlast, double &dtnew) {
  const double fuzz = 1.e-99;
  double dtc = 1.e99;
  int zc = -1;
  for (int z = 0; z < mesh->numz; z++) {
    // the viscosity is explicit too: its damping rate limits the step
    const double cvisc = 2. * (qcs->q1 * zss[z] + qcs->q2 * zdu[z]);
    const double cdu = std::max(zss[z] + cvisc, fuzz);
    const double dtz = mesh->zdl[z] * cfl / cdu;
    if (dtz < dtc) {
      dtc = dtz;
      zc = z;
    }
  }
  double dtv = 1.e99;
  for (int z = 0; z < mesh->numz; z++) {
    const double dvovmax = std::fabs(mesh->zarea[z] - zarea0[z]) / zarea0[z];
    if (dvovmax > fuzz)
      dtv = std::min(dtv, dtlast * cflv / dvovmax);
  }
  dtnew = std::min(dtc, dtv);
  dtrec = dtnew;
  dtreczone = zc;
}

void Hydro::sumEnergy(double &ei, double &ek) const {
  ei = 0.;
  ek = 0.;
  for (int z = 0; z < mesh->numz; z++)
    ei += zetot[z];
  // a shared point's kinetic energy is split by the ranks that hold it
  std::vector<double> share(mesh->nump, 1.);
  for (const std::vector<int> &col : mesh->shared)
    for (int p : col)
      share[p] = 0.5;
  for (int p = 0; p < mesh->nump; p++)
    ek += 0.5 * share[p] * pmaswt[p] * length2(pu[p]);
}
