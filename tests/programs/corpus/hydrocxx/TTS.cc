// hydrocxx: subzonal pressure forces.
#include "TTS.hh"

#include "Hydro.hh"

TTS::TTS(Hydro *h, double alfa_, double ssmin_) : hydro(h), alfa(alfa_), ssmin(ssmin_) {}

void TTS::calcForce(const std::vector<double> &zareap, const std::vector<double> &zrp,
                    const std::vector<double> &zss, const std::vector<double> &sareap,
                    const std::vector<double> &smf, const std::vector<double2> &ssurfp,
                    std::vector<double2> &sf, int sfirst, int slast) {
  const std::vector<int> &mapsz = hydro->mesh->mapsz;
  for (int s = sfirst; s < slast; s++) {
    const int z = mapsz[s];
    const double svfacinv = zareap[z] / sareap[s];
    const double srho = zrp[z] * smf[s] * svfacinv;
    const double sstmp = zss[z] > ssmin ? zss[z] : ssmin;
    const double sdp = alfa * sstmp * sstmp * (srho - zrp[z]);
    sf[s] = -sdp * ssurfp[s];
  }
}
