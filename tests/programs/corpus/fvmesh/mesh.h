// An unstructured quadrilateral mesh and a templated 2-D field container,
// in the style of C++ FEM/FV mini-apps: cells hold indices into the node
// and cell vectors, fields are accessed as f(i, j) returning T&.
#ifndef FVMESH_MESH_H
#define FVMESH_MESH_H
#include <array>
#include <cstddef>
#include <vector>

template <typename T> class Field {
 public:
  Field(int rows, int cols) : rows_(rows), cols_(cols), data_(static_cast<std::size_t>(rows) * cols) {}
  T &operator()(int i, int j) { return data_[static_cast<std::size_t>(i) * cols_ + j]; }
  const T &operator()(int i, int j) const { return data_[static_cast<std::size_t>(i) * cols_ + j]; }
  int rows() const { return rows_; }
  int cols() const { return cols_; }

 private:
  int rows_, cols_;
  std::vector<T> data_;
};

struct Node {
  std::array<double, 2> x;
};

struct Cell {
  std::array<int, 4> n;    // corner nodes, counter-clockwise
  std::array<int, 4> nbr;  // neighbour across edge (n[k], n[k+1]); -1 on the boundary
  double area;
};

class Mesh {
 public:
  std::vector<Node> nodes;
  std::vector<Cell> cells;
  // A distorted nx x ny grid stored as an unstructured mesh.
  void build(int nx, int ny);
  int numCells() const { return static_cast<int>(cells.size()); }
  double edgeLength(const Cell &c, int k) const;
};
#endif
