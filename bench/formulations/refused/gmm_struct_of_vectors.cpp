// GMM with each mixture component an object owning its parameters in
// std::vectors (`struct Component { double alpha; std::vector<double> mean,
// icf; }`, the components in a std::vector): how a C++ programmer models
// them when the parameters are not packed in arrays. Refused by the plugin
// today (run.sh records its diagnostics in bench/RESULTS.md); the packed
// std::vector formulation is gmm_components.cpp.
#include <fluxion/fluxion.hpp>

#include <cmath>
#include <vector>

struct Component {
  double alpha;
  std::vector<double> mean; // d
  std::vector<double> icf;  // d log-diagonal entries, then the lower triangle
};

[[fluxion::grad("comps")]] double
gmm_struct_of_vectors(const std::vector<Component> &comps,
                      const std::vector<double> &x, int d, int n) {
  const int k = static_cast<int>(comps.size());
  std::vector<double> diff(d), y(d), terms(k);
  double slse = 0;
  for (int p = 0; p < n; ++p) {
    for (int c = 0; c < k; ++c) {
      const Component &comp = comps[c];
      double logdet = 0;
      for (int j = 0; j < d; ++j) {
        diff[j] = x[p * d + j] - comp.mean[j];
        y[j] = std::exp(comp.icf[j]) * diff[j];
        logdet += comp.icf[j];
      }
      int li = d;
      for (int j = 0; j < d; ++j)
        for (int l = j + 1; l < d; ++l)
          y[l] += comp.icf[li++] * diff[j];
      double sq = 0;
      for (int j = 0; j < d; ++j)
        sq += y[j] * y[j];
      terms[c] = comp.alpha + logdet - 0.5 * sq;
    }
    double mx = terms[0];
    for (int c = 1; c < k; ++c)
      mx = std::fmax(mx, terms[c]);
    double se = 0;
    for (int c = 0; c < k; ++c)
      se += std::exp(terms[c] - mx);
    slse += mx + std::log(se);
  }
  return slse;
}
