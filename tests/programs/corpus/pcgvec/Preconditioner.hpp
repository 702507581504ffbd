// Preconditioner.hpp - preconditioners M ~ A applied as z = M^{-1} r.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "CsrMatrix.hpp"
#include "Vector.hpp"

namespace pcg {

class Preconditioner {
public:
  virtual ~Preconditioner() = default;
  virtual void apply(const Vector &r, Vector &z) const = 0;
  virtual const char *name() const = 0;
};

// Incomplete LU factorization with the sparsity of A: z = U^{-1} L^{-1} r.
// L (unit lower) and U share one CSR copy of A.
class Ilu0Preconditioner final : public Preconditioner {
public:
  explicit Ilu0Preconditioner(const CsrMatrix &A);
  void apply(const Vector &r, Vector &z) const override;
  const char *name() const override { return "ilu0"; }

private:
  CsrMatrix lu_;
  std::vector<int> diag_pos_;
};

std::unique_ptr<Preconditioner> make_preconditioner(const std::string &kind,
                                                    const CsrMatrix &A);

} // namespace pcg
