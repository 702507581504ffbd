// Preconditioner.hpp: z = M^-1 r for some approximation M of A, chosen by
// name at run time.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "CsrMatrix.hpp"

namespace iv {

class Preconditioner {
 public:
  virtual ~Preconditioner() = default;
  virtual void setup(const CsrMatrix& A) = 0;
  virtual void apply(const Vector& r, Vector& z) const = 0;
  virtual std::string name() const = 0;
};

class IdentityPreconditioner : public Preconditioner {
 public:
  void setup(const CsrMatrix&) override {}
  void apply(const Vector& r, Vector& z) const override { z = r; }
  std::string name() const override { return "none"; }
};

class JacobiPreconditioner : public Preconditioner {
 public:
  void setup(const CsrMatrix& A) override;
  void apply(const Vector& r, Vector& z) const override;
  std::string name() const override { return "jacobi"; }

 private:
  Vector inv_diag_;
};

// Incomplete LU without fill: L (unit lower) and U share the sparsity of
// A and are stored in one CSR copy owned by the preconditioner.
class Ilu0Preconditioner : public Preconditioner {
 public:
  void setup(const CsrMatrix& A) override;
  void apply(const Vector& r, Vector& z) const override;
  std::string name() const override { return "ilu0"; }

 private:
  int n_ = 0;
  std::vector<int> rowptr_;
  std::vector<int> colind_;
  std::vector<int> diag_;  // position of the diagonal in each row
  std::vector<double> lu_;
};

// "none", "jacobi" or "ilu0"; throws std::invalid_argument otherwise.
std::unique_ptr<Preconditioner> makePreconditioner(const std::string& kind);

}  // namespace iv
