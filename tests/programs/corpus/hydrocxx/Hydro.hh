// hydrocxx: the staggered-grid Lagrangian hydrodynamics of one rank: point
// velocities and forces, zone densities, energies and pressures, the side
// forces of the pressure and of the artificial viscosity.
#ifndef HYDROCXX_HYDRO_HH
#define HYDROCXX_HYDRO_HH

#include <vector>

#include "Mesh.hh"
#include "Vec2.hh"

class PolyGas;
class QCS;
class TTS;

class Hydro {
public:
  Mesh *mesh;     // owned: deleted with the hydro
  PolyGas *pgas;
  QCS *qcs;
  TTS *tts;
  double cfl;     // Courant number
  double cflv;    // largest relative volume change per step
  double dtrec;   // time step this rank would take
  int dtreczone;  // and the zone that limits it

  // points
  std::vector<double2> pu;    // velocity
  std::vector<double2> pu0;   // velocity at the start of the step
  std::vector<double2> pap;   // acceleration
  std::vector<double2> pf;    // force
  std::vector<double2> px0;   // position at the start of the step
  std::vector<double> pmaswt; // mass
  // zones
  std::vector<double> zm;     // mass
  std::vector<double> zr;     // density
  std::vector<double> zrp;    // density at the half step
  std::vector<double> ze;     // specific internal energy
  std::vector<double> zetot;  // internal energy
  std::vector<double> zw;     // work done in the step
  std::vector<double> zwrate; // work rate
  std::vector<double> zp;     // pressure
  std::vector<double> zss;    // sound speed
  std::vector<double> zdu;    // velocity difference, for the time step
  std::vector<double> zarea0; // area at the start of the step
  // sides and corners
  std::vector<double2> sfp;   // pressure force
  std::vector<double2> sfq;   // viscous force
  std::vector<double2> sfh;   // hourglass force
  std::vector<double2> sft;   // total force
  std::vector<double> cmaswt; // corner mass

  Hydro(Mesh *m, double rho0, double e0, double esedov, double rsedov, double cfl_,
        double cflv_);
  ~Hydro();

  void doCycle(double dt);
  void getDtHydro(double dtlast, double &dtnew);
  void sumEnergy(double &ei, double &ek) const;

private:
  void advPosHalf(double dt, int pfirst, int plast);
  void advPosFull(double dt, int pfirst, int plast);
  void calcCrnrMass(int sfirst, int slast);
  void sumCrnrForce(int sfirst, int slast);
  void sumToPoints(int sfirst, int slast);
  void calcAccel(int pfirst, int plast);
  void applyBoundary();
  void calcRho(const std::vector<double> &zarea, std::vector<double> &zr, int zfirst,
               int zlast);
  void calcWork(double dt, int sfirst, int slast);
  void calcWorkRate(double dt, int zfirst, int zlast);
  void calcEnergy(int zfirst, int zlast);
};

#endif
