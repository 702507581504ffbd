// hydrocxx: hourglass control by temporary triangular subzoning. Each side
// keeps the share of its zone's mass it started with; a side denser than
// its zone pushes its points out, a lighter one pulls them in.
#ifndef HYDROCXX_TTS_HH
#define HYDROCXX_TTS_HH

#include <vector>

#include "Vec2.hh"

class Hydro;

class TTS {
public:
  Hydro *hydro;
  double alfa;  // strength of the subzonal pressure
  double ssmin;

  TTS(Hydro *h, double alfa_, double ssmin_);
  void calcForce(const std::vector<double> &zareap, const std::vector<double> &zrp,
                 const std::vector<double> &zss, const std::vector<double> &sareap,
                 const std::vector<double> &smf, const std::vector<double2> &ssurfp,
                 std::vector<double2> &sf, int sfirst, int slast);
};

#endif
