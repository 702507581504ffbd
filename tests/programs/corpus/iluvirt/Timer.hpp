// Timer.hpp: wall-clock timers accumulated by name.
#pragma once

#include <chrono>
#include <map>
#include <string>

namespace iv {

using TimerMap = std::map<std::string, double>;

// Adds the seconds between its construction and its destruction to
// timers[key].
class ScopedTimer {
 public:
  ScopedTimer(TimerMap& timers, const char* key)
      : timers_(timers), key_(key), start_(std::chrono::steady_clock::now()) {}
  ~ScopedTimer() {
    const auto stop = std::chrono::steady_clock::now();
    timers_[key_] += std::chrono::duration<double>(stop - start_).count();
  }
  ScopedTimer(const ScopedTimer&) = delete;
  ScopedTimer& operator=(const ScopedTimer&) = delete;

 private:
  TimerMap& timers_;
  const char* key_;
  std::chrono::steady_clock::time_point start_;
};

inline double secondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
      .count();
}

}  // namespace iv
