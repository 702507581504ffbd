// Timer.hpp - a registry of named wall-clock timers, filled by RAII scoped
// timers (as Teuchos::TimeMonitor or a Kokkos profiling region would).
#pragma once

#include <chrono>
#include <map>
#include <ostream>
#include <string>

namespace lg {

class TimerRegistry {
public:
  void add(const std::string &name, double seconds);
  double total(const std::string &name) const;
  void report(std::ostream &os) const;

private:
  std::map<std::string, double> seconds_;
  std::map<std::string, long> calls_;
};

class ScopedTimer {
public:
  ScopedTimer(TimerRegistry &reg, std::string name)
      : reg_(reg), name_(std::move(name)), start_(std::chrono::steady_clock::now()) {}
  ~ScopedTimer() {
    const auto stop = std::chrono::steady_clock::now();
    reg_.add(name_, std::chrono::duration<double>(stop - start_).count());
  }
  ScopedTimer(const ScopedTimer &) = delete;
  ScopedTimer &operator=(const ScopedTimer &) = delete;

private:
  TimerRegistry &reg_;
  std::string name_;
  std::chrono::steady_clock::time_point start_;
};

} // namespace lg
