// Benchmark (not a test): certification of random general softmax models (--model path).
//   build/seqi_general_bench [models [seed [bits]]]   default 100 models, seed 1, 128-bit first pass
// Each model: d in [2, 8], L in [1, 8] blocks, A and V = alpha I + up to 3 rank-one terms,
// width in [1, 4], one sequence of n in [1, 16] tokens, tau in {1, 1/2}; targets are the
// double-precision forward pass rounded to multiples of 2^-40, tolerance 1e-6. Prints the
// time per model, how many sequences needed refinement and how many exhausted the budget.
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "seqi/certification/general_models.hpp"
#include "seqi/io/random_model.hpp"

using namespace seqi;
using Clock = std::chrono::steady_clock;

namespace {

double cpu_ms() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return 1e3 * static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_nsec);
}

// Targets: the double forward pass, each coordinate rounded to a multiple of 2^-40, as a set.
Sequence double_targets(const Transformer<Rational>& m, const Sequence& X, double tau) {
  const auto md = convert_model<double>(m);
  TokenList<double> T;
  for (const auto& x : X) T.push_back(vector_from_rational<double>(x));
  for (const auto& b : md.blocks) {
    T = apply_softmax(b.sa, T, tau);
    for (auto& t : T) t = b.ff.apply(t);
  }
  Sequence Y;
  for (const auto& t : T) {
    Point y(t.size());
    for (Eigen::Index k = 0; k < t.size(); ++k)
      y[k] = Rational(static_cast<long long>(std::llround(std::ldexp(t[k], 40)))) / Rational(Integer(1) << 40);
    if (std::none_of(Y.begin(), Y.end(), [&](const Point& z) { return equal_points(z, y); })) Y.push_back(y);
  }
  return Y;
}

}  // namespace

int main(int argc, char** argv) {
  const int models = argc > 1 ? std::atoi(argv[1]) : 100;
  RandomModelDraw r{std::mt19937_64(argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1)};
  const unsigned bits = argc > 3 ? static_cast<unsigned>(std::atoi(argv[3])) : 128;
  std::vector<double> ms, cpu;
  std::size_t refined = 0, exhausted = 0, within = 0, exact = 0, refused = 0, branched = 0, interval = 0;
  for (int t = 0; t < models; ++t) {
    const int d = static_cast<int>(r.integer(2, 8));
    const auto L = static_cast<std::size_t>(r.integer(1, 8));
    const auto n = static_cast<std::size_t>(r.integer(1, 16));
    const auto m = random_model(r, d, L);
    const Rational tau = r.integer(0, 1) ? Rational(1) : Rational(1, 2);
    Sequence X;
    while (X.size() < n) {
      Point x = r.point(d, 4);
      if (std::none_of(X.begin(), X.end(), [&](const Point& z) { return equal_points(z, x); })) X.push_back(x);
    }
    Dataset data;
    data.dimension = d;
    data.pairs.push_back({X, double_targets(m, X, tau.convert_to<double>())});
    GeneralOptions opt;
    opt.tau = tau;
    opt.tolerance = Rational(1, 1000000);
    opt.precision_bits = bits;
    const auto t0 = Clock::now();
    const double c0 = cpu_ms();
    const Certificate c = certify_general_softmax(data, m, opt).certificate;
    cpu.push_back(cpu_ms() - c0);
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    const auto& s = c.general->sequences[0];
    refined += s.passes > 1;
    exhausted += s.verdict == "undecided within budget";
    within += s.verdict == "within delta";
    exact += s.verdict == "exact";
    refused += s.verdict == "not interpolating";
    branched += s.branched_units;
    interval += s.interval_units;
  }
  auto report = [&](const char* what, std::vector<double> v) {
    std::sort(v.begin(), v.end());
    double total = 0;
    for (double x : v) total += x;
    std::cout << what << ": mean " << total / models << " ms, median " << v[v.size() / 2] << " ms, max " << v.back()
              << " ms per model\n";
  };
  std::cout << models << " random softmax models (d <= 8, L <= 8, n <= 16), first pass " << bits << " bits\n";
  report("CPU time ", cpu);
  report("wall time", ms);
  std::cout << "verdicts: " << exact << " exact, " << within << " within 1e-6, " << refused << " not interpolating, "
            << exhausted << " undecided (budget exhausted)\n"
            << "refinement: " << refined << " models needed more than one pass; ReLUs branched " << branched
            << ", interval ReLUs " << interval << "\n";
  return 0;
}
