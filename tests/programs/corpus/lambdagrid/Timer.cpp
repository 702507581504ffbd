// Timer.cpp - the timer registry and the kernel launch counts.
#include "Timer.hpp"

#include <iomanip>

#include "Parallel.hpp"

namespace lg {

std::unordered_map<std::string, long> &kernel_launches() {
  static std::unordered_map<std::string, long> launches;
  return launches;
}

void TimerRegistry::add(const std::string &name, double seconds) {
  seconds_[name] += seconds;
  ++calls_[name];
}

double TimerRegistry::total(const std::string &name) const {
  const auto it = seconds_.find(name);
  return it == seconds_.end() ? 0.0 : it->second;
}

void TimerRegistry::report(std::ostream &os) const {
  os << "timers:\n";
  for (const auto &[name, secs] : seconds_)
    os << "  " << std::left << std::setw(16) << name << std::right << std::fixed
       << std::setprecision(4) << secs << " s  (" << calls_.at(name) << " calls)\n";
}

} // namespace lg
