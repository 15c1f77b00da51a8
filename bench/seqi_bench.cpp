// Benchmark: construction and exact certification time on seeded synthetic datasets.
// Usage: build/seqi_bench [N n d [m_max [seed]]]  (no arguments: the standard table)
#include <chrono>
#include <cstdlib>
#include <iomanip>
#include <iostream>

#include "seqi/certification/certificate.hpp"
#include "seqi/io/random_dataset.hpp"

using namespace seqi;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

void run(std::size_t N, std::size_t n, int d, std::size_t m_max, std::uint64_t seed) {
  RandomDatasetSpec spec;
  spec.N = N;
  spec.n_min = n;
  spec.n_max = n;
  spec.m_max = m_max;
  spec.d = d;
  spec.coordinate_range = 100;
  spec.max_denominator = 8;
  const Dataset data = random_dataset(spec, seed);
  auto t0 = Clock::now();
  const auto built = build_interpolating_transformer(data, seed);
  const double t_build = seconds_since(t0);
  t0 = Clock::now();
  const auto cert = certify_construction_hardmax(data, built, false);
  const double t_cert = seconds_since(t0);
  std::size_t bits = 0;
  for (const auto& [phase, b] : cert.max_bits_by_phase) bits = std::max(bits, b);
  std::cout << std::setw(6) << N << std::setw(6) << n << std::setw(4) << d << std::setw(8) << data.sum_m()
            << std::setw(8) << cert.counts.blocks << std::setw(10) << std::fixed << std::setprecision(3) << t_build
            << std::setw(10) << t_cert << std::setw(7) << bits << "  " << (cert.verified ? "verified" : "NOT VERIFIED")
            << std::endl;
}

}  // namespace

int main(int argc, char** argv) {
  std::cout << "     N     n   d  sum(m)  blocks  build[s]  cert[s]  bits  result\n";
  if (argc >= 4) {
    run(std::strtoul(argv[1], nullptr, 10), std::strtoul(argv[2], nullptr, 10), std::atoi(argv[3]),
        argc > 4 ? std::strtoul(argv[4], nullptr, 10) : 0, argc > 5 ? std::strtoull(argv[5], nullptr, 10) : 1);
    return 0;
  }
  run(50, 50, 16, 0, 1);
  run(100, 100, 16, 4, 1);
  return 0;
}
