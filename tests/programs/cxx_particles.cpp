// A C++ class whose member functions do the work: blame reaches `p` (and its
// fields) in main through `this`.
#include <cmath>
#include <cstdio>
#include <cstdlib>

class Particles {
  public:
    explicit Particles(int n) : n_(n), pos_(new double[n]), vel_(new double[n]) {
        for (int i = 0; i < n_; i++) {
            pos_[i] = std::sin(i * 0.01);
            vel_[i] = 0.0;
        }
    }
    ~Particles() {
        delete[] pos_;
        delete[] vel_;
    }
    void step(double dt);
    double energy() const;

  private:
    int n_;
    double *pos_;
    double *vel_;
};

void Particles::step(double dt) {
    for (int i = 0; i < n_; i++) {
        vel_[i] += -pos_[i] * dt - 0.001 * std::sqrt(std::fabs(vel_[i]));
        pos_[i] += vel_[i] * dt;
    }
}

double Particles::energy() const {
    double e = 0;
    for (int i = 0; i < n_; i++)
        e += 0.5 * (vel_[i] * vel_[i] + pos_[i] * pos_[i]);
    return e;
}

int main(int argc, char **argv) {
    int steps = argc > 1 ? std::atoi(argv[1]) : 40000;
    Particles p(1 << 14);
    for (int s = 0; s < steps; s++)
        p.step(0.01);
    std::printf("%f\n", p.energy());
    return 0;
}
