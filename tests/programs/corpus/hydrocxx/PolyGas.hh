// hydrocxx: the polytropic (gamma-law) equation of state.
#ifndef HYDROCXX_POLYGAS_HH
#define HYDROCXX_POLYGAS_HH

#include <vector>

#include "Vec2.hh"

class Hydro;

class PolyGas {
public:
  Hydro *hydro;
  double gamma;  // ratio of specific heats
  double ssmin;  // floor of the sound speed
  std::vector<double> z0per;  // scratch: d(p)/d(e) per unit density, per zone of a chunk
  std::vector<double> zpeos;  // scratch: pressure from the EOS at the start of the step

  PolyGas(Hydro *h, double g, double ssmin_, int maxzones);

  void calcEOS(const std::vector<double> &zr, const std::vector<double> &ze, int zfirst,
               int zlast, std::vector<double> &zss);
  // pressure and sound speed at the half step, from the volume change and
  // the work rate of the previous step
  void calcStateAtHalf(const std::vector<double> &zr0, const std::vector<double> &zvolp,
                       const std::vector<double> &zvol0, const std::vector<double> &ze,
                       const std::vector<double> &zwrate, const std::vector<double> &zm,
                       double dt, std::vector<double> &zp, std::vector<double> &zss, int zfirst,
                       int zlast);
  // pressure force on each side
  void calcForce(const std::vector<double> &zp, const std::vector<double2> &ssurfp,
                 std::vector<double2> &sf, int sfirst, int slast);
};

#endif
