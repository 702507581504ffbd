// ScopedTimer: adds the wall time of its scope to timers[name].
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <utility>

namespace fem {

using TimerMap = std::map<std::string, double>;

class ScopedTimer {
public:
  ScopedTimer(TimerMap &timers, std::string name)
      : timers_(timers), name_(std::move(name)), start_(std::chrono::steady_clock::now()) {}
  ~ScopedTimer() {
    const auto stop = std::chrono::steady_clock::now();
    timers_[name_] += std::chrono::duration<double>(stop - start_).count();
  }
  ScopedTimer(const ScopedTimer &) = delete;
  ScopedTimer &operator=(const ScopedTimer &) = delete;

private:
  TimerMap &timers_;
  std::string name_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace fem
