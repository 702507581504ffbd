// FieldRegistry.hpp - owns the simulation's fields by name. Kernels look
// their fields up by name (`auto u = reg.get("u");`) and get a shallow copy
// of the view: the registry keeps the allocation.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "View.hpp"

namespace lg {

class FieldRegistry {
public:
  FieldRegistry(int nx, int ny) : nx_(nx), ny_(ny) {}

  // A new zero field with ghost cells: (nx + 2) x (ny + 2).
  View<double> add(const std::string &name);
  View<double> get(const std::string &name) const;
  bool has(const std::string &name) const { return fields_.count(name) != 0; }
  // Exchanges the data of two fields (a double buffer).
  void swap(const std::string &a, const std::string &b);
  std::vector<std::string> names() const;
  int nx() const { return nx_; }
  int ny() const { return ny_; }

private:
  int nx_, ny_;
  std::map<std::string, View<double>> fields_;
};

} // namespace lg
