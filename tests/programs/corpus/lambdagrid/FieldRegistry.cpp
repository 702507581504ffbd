// FieldRegistry.cpp - field creation, look-up and buffer swaps.
#include "FieldRegistry.hpp"

#include <stdexcept>
#include <utility>

namespace lg {

View<double> FieldRegistry::add(const std::string &name) {
  if (has(name))
    throw std::invalid_argument("field " + name + " registered twice");
  auto [it, inserted] = fields_.emplace(name, View<double>(name, nx_ + 2, ny_ + 2));
  (void)inserted;
  return it->second;
}

View<double> FieldRegistry::get(const std::string &name) const {
  const auto it = fields_.find(name);
  if (it == fields_.end())
    throw std::out_of_range("no field named " + name);
  return it->second;
}

void FieldRegistry::swap(const std::string &a, const std::string &b) {
  auto ia = fields_.find(a), ib = fields_.find(b);
  if (ia == fields_.end() || ib == fields_.end())
    throw std::out_of_range("swap of unknown fields " + a + ", " + b);
  std::swap(ia->second, ib->second);
}

std::vector<std::string> FieldRegistry::names() const {
  std::vector<std::string> out;
  for (const auto &entry : fields_)
    out.push_back(entry.first);
  return out;
}

} // namespace lg
