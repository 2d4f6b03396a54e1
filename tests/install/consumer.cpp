// A program outside the tree using the installed library: Example 1 of the FFT/SMLP seed.
#include <cstdio>

#include "gpurt/analysis/smlp.hpp"

int main() {
  using gpurt::Nanos;
  const std::vector<Nanos> l{Nanos{9101}, Nanos{4620}, Nanos{3170}, Nanos{2501}, Nanos{2032}};
  const auto s = gpurt::allowed_sizes_by_rho(l, 1.1);
  if (s != std::vector<int>{1, 2, 3, 4}) {
    std::puts("consumer: wrong S_i");
    return 1;
  }
  std::puts("consumer: S_i = {1, 2, 3, 4}");
  return 0;
}
