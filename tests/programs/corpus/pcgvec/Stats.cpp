// Stats.cpp - the end-of-run report of a solver's statistics.
#include "Stats.hpp"

namespace pcg {

void Stats::print(std::FILE *out, int every) const {
  std::fprintf(out, "solver statistics\n");
  std::fprintf(out, "  solves %d, iterations %d (max %d per solve)\n", solves,
               total_iterations, max_iterations);
  std::fprintf(out, "  matvecs %ld, preconditioner applications %ld, dot products %ld\n",
               matvecs, precond_applies, dots);
  std::fprintf(out, "  time: setup %.3f s, solve %.3f s\n", t_setup, t_solve);
  std::fprintf(out, "        matvec %.3f s, precond %.3f s, dot %.3f s, update %.3f s\n",
               t_matvec, t_precond, t_dot, t_update);
  if (every <= 0)
    return;
  std::fprintf(out, "residual history (every %d iterations of all solves)", every);
  for (std::size_t k = 0; k < residual_history.size(); k += static_cast<std::size_t>(every))
    std::fprintf(out, "%s %.2e", k % (8 * every) == 0 ? "\n " : "", residual_history[k]);
  std::fprintf(out, "\n");
}

} // namespace pcg
