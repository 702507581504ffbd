// Timer.hpp: RAII wall-clock timer adding its lifetime to a double.
#pragma once

#include <chrono>

namespace pp {

class ScopedTimer {
 public:
  explicit ScopedTimer(double &seconds)
      : seconds_(seconds), start_(std::chrono::steady_clock::now()) {}
  ~ScopedTimer() {
    const auto stop = std::chrono::steady_clock::now();
    seconds_ += std::chrono::duration<double>(stop - start_).count();
  }
  ScopedTimer(const ScopedTimer &) = delete;
  ScopedTimer &operator=(const ScopedTimer &) = delete;

 private:
  double &seconds_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace pp
