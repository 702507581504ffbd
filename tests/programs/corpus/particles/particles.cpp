// particles: a short-range molecular dynamics mini-app written the way C++
// proxy apps are: the force model behind a virtual call (a small function
// that is never inlined, so its prologue and epilogue take samples), the
// particles as a std::vector of structs reached through `Particle &a =
// parts_[i]`, a cell list of std::vector members, lambdas in std
// algorithms, and a timer struct.
//   usage: particles [n] [steps]
//
// Expected ranking, derived from a by-function profile:
//   System::forces + LennardJones::pair   ~90%  write parts_[i].fx/fy/fz
//   integrate, kinetic, rebuild           a few percent
//  main:
//  1. sys, sys.parts_ (a std::vector<Particle>, not a `Particle &`) and
//     sys.parts_.fx/fy/fz: the force loop, including the virtual pair()
//     call's own lines (its return value is the force);
//  2. the forces' exclusive blame (the line writes a.fx, an element of
//     parts_) is sys.parts_'s: never a callee local with exclusive blame
//     above its inclusive blame;
//  3. t (the timers) and ekin's bookkeeping stay below sys.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <numeric>
#include <vector>

struct Particle { double x, y, z, vx, vy, vz, fx, fy, fz; };

struct Timers {
  double force = 0, integrate = 0, cells = 0;
  static double now() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  }
};

class ForceModel {
 public:
  virtual ~ForceModel() = default;
  virtual double pair(double r2) const = 0;
};

class LennardJones : public ForceModel {
 public:
  double pair(double r2) const override {
    double ir2 = 1.0 / r2, ir6 = ir2 * ir2 * ir2;
    return 24.0 * ir6 * (2.0 * ir6 - 1.0) * ir2;
  }
};

class CellList {
 public:
  CellList(int n, double box) : ncell_(n), box_(box), head_(n * n * n), next_() {}
  void build(const std::vector<Particle> &ps) {
    std::fill(head_.begin(), head_.end(), -1);
    next_.assign(ps.size(), -1);
    for (size_t i = 0; i < ps.size(); i++) {
      int c = cell_of(ps[i]);
      next_[i] = head_[c];
      head_[c] = (int)i;
    }
  }
  int cell_of(const Particle &p) const {
    auto f = [&](double v) { int c = (int)(v / box_ * ncell_); return std::min(std::max(c, 0), ncell_ - 1); };
    return f(p.x) + ncell_ * (f(p.y) + ncell_ * f(p.z));
  }
  int ncell() const { return ncell_; }
  int head(int c) const { return head_[c]; }
  int next(int i) const { return next_[i]; }
 private:
  int ncell_;
  double box_;
  std::vector<int> head_;
  std::vector<int> next_;
};

class System {
 public:
  System(int n, double box, std::unique_ptr<ForceModel> m)
      : box_(box), model_(std::move(m)), cells_(8, box) {
    parts_.resize(n);
    unsigned s = 12345;
    auto rnd = [&]() { s = s * 1103515245u + 12345u; return (s >> 8) / 16777216.0; };
    for (auto &p : parts_) { p = Particle{rnd() * box, rnd() * box, rnd() * box, 0, 0, 0, 0, 0, 0}; }
  }
  void forces() {
    for (auto &p : parts_) p.fx = p.fy = p.fz = 0;
    int nc = cells_.ncell();
    for (size_t i = 0; i < parts_.size(); i++) {
      Particle &a = parts_[i];
      int c = cells_.cell_of(a);
      int cx = c % nc, cy = (c / nc) % nc, cz = c / (nc * nc);
      for (int dz = -1; dz <= 1; dz++)
        for (int dy = -1; dy <= 1; dy++)
          for (int dx = -1; dx <= 1; dx++) {
            int x = cx + dx, y = cy + dy, z = cz + dz;
            if (x < 0 || y < 0 || z < 0 || x >= nc || y >= nc || z >= nc) continue;
            for (int j = cells_.head(x + nc * (y + nc * z)); j >= 0; j = cells_.next(j)) {
              if ((size_t)j == i) continue;
              const Particle &b = parts_[j];
              double ddx = a.x - b.x, ddy = a.y - b.y, ddz = a.z - b.z;
              double r2 = ddx * ddx + ddy * ddy + ddz * ddz + 0.01;
              double f = model_->pair(r2);
              a.fx += f * ddx; a.fy += f * ddy; a.fz += f * ddz;
            }
          }
    }
  }
  void integrate(double dt) {
    std::for_each(parts_.begin(), parts_.end(), [&](Particle &p) {
      p.vx += dt * p.fx; p.vy += dt * p.fy; p.vz += dt * p.fz;
      p.x = std::fmod(p.x + dt * p.vx + box_, box_);
      p.y = std::fmod(p.y + dt * p.vy + box_, box_);
      p.z = std::fmod(p.z + dt * p.vz + box_, box_);
    });
  }
  double kinetic() const {
    return std::accumulate(parts_.begin(), parts_.end(), 0.0, [](double s, const Particle &p) {
      return s + 0.5 * (p.vx * p.vx + p.vy * p.vy + p.vz * p.vz);
    });
  }
  void rebuild() { cells_.build(parts_); }
 private:
  double box_;
  std::unique_ptr<ForceModel> model_;
  CellList cells_;
  std::vector<Particle> parts_;
};

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 6000;
  int steps = argc > 2 ? atoi(argv[2]) : 60;
  System sys(n, 10.0, std::make_unique<LennardJones>());
  Timers t;
  double ekin = 0;
  for (int s = 0; s < steps; s++) {
    double t0 = Timers::now();
    if (s % 5 == 0) sys.rebuild();
    double t1 = Timers::now();
    sys.forces();
    double t2 = Timers::now();
    sys.integrate(1e-5);
    ekin = sys.kinetic();
    double t3 = Timers::now();
    t.cells += t1 - t0; t.force += t2 - t1; t.integrate += t3 - t2;
  }
  std::printf("ekin %g force %.2fs integrate %.2fs cells %.2fs\n", ekin, t.force, t.integrate, t.cells);
  return 0;
}
