// Benchmark (not a test): construction and certification cost against plain passes of the same
// transformer. One configuration per process, so the peak memory column is that run's own.
//   build/seqi_bench                         the standard table (runs itself once per row)
//   build/seqi_bench N n d [m_max [seed]]    one synthetic row: n tokens per sequence, m_j in [1, m_max]
//   build/seqi_bench --file D.json           one row for a dataset file (e.g. a Fashion-MNIST import)
//   build/seqi_bench --replay D.json         CPU seconds of the float64 and float32 replays alone
//   build/seqi_bench --conditioning-corpus C.json   the same for every dataset of a regression corpus
//   build/seqi_bench --conditioning D.json   ||theta||^2, max |weight|, float64/float32 runs (off-target
//                                            sequences / max relative Hausdorff), certification seconds
// Dense passes slower than the budget (SEQI_BENCH_BUDGET seconds, default 120) are run on the
// first sequences only and extrapolated by work; such figures are marked "~".
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>

#include "regression_gate.hpp"
#include "seqi/certification/run_report.hpp"
#include "seqi/construction/construction_bytes.hpp"
#include "seqi/replay/float_replay.hpp"
#include "seqi/io/dataset_json.hpp"
#include "seqi/io/model_json.hpp"
#include "seqi/io/random_dataset.hpp"

using namespace seqi;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

struct Timed {
  double seconds = 0;
  bool extrapolated = false;
};

// Runs pass(j) for j = 0, 1, ... until done or over budget; extrapolates by input tokens.
template <class Pass>
Timed timed_over_sequences(const Dataset& data, double budget, Pass pass) {
  const auto t0 = Clock::now();
  std::size_t done_tokens = 0;
  for (std::size_t j = 0; j < data.pairs.size(); ++j) {
    pass(j);
    done_tokens += data.pairs[j].input.size();
    const double t = seconds_since(t0);
    if (t > budget && j + 1 < data.pairs.size())
      return {t * static_cast<double>(data.total_input_tokens()) / static_cast<double>(done_tokens), true};
  }
  return {seconds_since(t0), false};
}

// Dense exact pass of one sequence, stopping after `budget` seconds: returns the fraction done.
double naive_exact_fraction(const Transformer<Rational>& model, TokenList<Rational> X, double budget) {
  const auto t0 = Clock::now();
  for (std::size_t b = 0; b < model.blocks.size(); ++b) {
    X = apply_hardmax(model.blocks[b].sa, X);
    for (auto& x : X) x = model.blocks[b].ff.apply(x);
    if ((b & 15) == 15 && seconds_since(t0) > budget)
      return static_cast<double>(b + 1) / static_cast<double>(model.blocks.size());
  }
  return 1;
}

std::string fmt(double s, bool approx = false) {
  std::ostringstream o;
  o << (approx ? "~" : "") << std::fixed << std::setprecision(s < 10 ? 2 : 0) << s;
  return o.str();
}

void row(const std::string& label, const Dataset& data, std::uint64_t seed) {
  const double budget = std::getenv("SEQI_BENCH_BUDGET") ? std::atof(std::getenv("SEQI_BENCH_BUDGET")) : 120;
  auto t0 = Clock::now();
  const auto built = build_interpolating_transformer(data, seed);
  const double t_build = seconds_since(t0);
  t0 = Clock::now();
  const auto exact = certify_construction_hardmax(data, built, false).certificate;
  const double t_exact = seconds_since(t0);
  t0 = Clock::now();
  const auto soft = certify_construction_softmax(data, built, SoftmaxOptions{}).certificate;
  const double t_soft = seconds_since(t0);
  std::size_t bits = 0;
  for (const auto& [phase, b] : exact.max_bits_by_phase) bits = std::max(bits, b);

  const auto dbl_model = convert_model<double>(built.model);
  const Timed dbl = timed_over_sequences(data, budget, [&](std::size_t j) {
    TokenList<double> X;
    for (const auto& x : data.pairs[j].input) X.push_back(vector_from_rational<double>(x));
    X = forward_dense(dbl_model, X);
  });
  // Naive exact: the first sequence (or part of it) within the budget, extrapolated by tokens.
  t0 = Clock::now();
  const double fraction = naive_exact_fraction(built.model, data.pairs[0].input.points(), budget);
  const double naive = seconds_since(t0) / fraction * static_cast<double>(data.total_input_tokens()) /
                       static_cast<double>(data.pairs[0].input.size());
  const bool naive_approx = fraction < 1 || data.pairs.size() > 1;

  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  std::cout << std::left << std::setw(24) << label << std::right << std::setw(7) << data.sum_m() << std::setw(8)
            << exact.counts.blocks << std::setw(9) << data.total_input_tokens() << std::setw(8) << fmt(t_build)
            << std::setw(9) << fmt(t_exact) << std::setw(9) << fmt(t_soft) << std::setw(8) << ru.ru_maxrss / 1024
            << std::setw(6) << bits << std::setw(10) << fmt(dbl.seconds, dbl.extrapolated) << std::setw(10)
            << fmt(naive, naive_approx) << std::setw(9) << fmt(t_exact / dbl.seconds) << std::setw(10)
            << fmt(naive / t_exact) << "  " << (exact.verified && soft.verified ? "verified" : "NOT VERIFIED")
            << std::endl;
}

std::string runs_text(const ConditioningReport& rep) {
  std::ostringstream o;
  for (const auto& r : rep.float_runs)
    o << "  " << r.scalar << "-" << r.rule << " " << r.sequences_off_target << "/" << r.sequences_checked << " ("
      << std::setprecision(2) << std::scientific << r.max_relative_hausdorff << ")" << std::defaultfloat;
  return o.str();
}

// ||theta||^2, max |weight| and the float replays of both settings (proofs/conditioning.tex).
// CPU seconds of this process (the shared benchmark machine makes wall time noisy).
double cpu_seconds() { return static_cast<double>(std::clock()) / CLOCKS_PER_SEC; }

void conditioning_row(const Dataset& data, const std::string& name) {
  double t0 = cpu_seconds();
  const auto built = build_interpolating_transformer(data, 1);
  const double t_build = cpu_seconds() - t0;
  t0 = cpu_seconds();
  const auto exact = certify_construction_hardmax(data, built, false);
  const double t_exact = cpu_seconds() - t0;
  t0 = cpu_seconds();
  const auto soft = certify_construction_softmax(data, built, SoftmaxOptions{});
  const double t_soft = cpu_seconds() - t0;
  const auto& c = exact.measurements;
  std::cout << name.substr(0, 30) << ": ||theta||^2 " << approx_decimal(c.norm_sq, 3) << ", max |weight| "
            << approx_decimal(c.max_abs_weight, 3) << ", CPU s: build " << fmt(t_build) << ", exact " << fmt(t_exact)
            << ", softmax " << fmt(t_soft) << ", " << (exact.certificate.verified && soft.certificate.verified ? "verified" : "NOT VERIFIED")
            << "\n  off-target sequences (max relative Hausdorff):" << runs_text(c) << runs_text(soft.measurements)
            << std::endl;
}

void header() {
  std::cout << std::left << std::setw(24) << "dataset" << std::right << std::setw(7) << "sum(m)" << std::setw(8)
            << "blocks" << std::setw(9) << "tokens" << std::setw(8) << "build" << std::setw(9) << "exact" << std::setw(9)
            << "softmax" << std::setw(8) << "MiB" << std::setw(6) << "bits" << std::setw(10) << "double" << std::setw(10)
            << "naive" << std::setw(9) << "ex/dbl" << std::setw(10) << "naive/ex" << "\n"
            << "(seconds; double = dense double forward pass, naive = dense exact pass, ~ = extrapolated)\n";
}

}  // namespace

// CPU seconds of building alone (phases S, P, C, I; the near-linear target); with
// SEQI_BENCH_SAVE set, the model is written to <dataset>.model.json to compare builds.
void build_row(const std::string& path) {
  const Dataset data = read_dataset_file(path);
  const double t0 = cpu_seconds();
  const auto built = build_interpolating_transformer(data, 1);
  std::cout << path << ": " << data.total_input_tokens() << " tokens, " << built.model.blocks.size()
            << " blocks, build CPU s " << fmt(cpu_seconds() - t0) << std::endl;
  if (std::getenv("SEQI_BENCH_SAVE")) write_model_file(built.model, path + ".model.json");
}

// CPU seconds of the float64 and float32 replays alone on one thread (the double cross-check's
// runs, every sequence: no work budget), repeated `SEQI_BENCH_REPEAT` times (default 1).
void replay_row(const std::string& path) {
  const Dataset data = read_dataset_file(path);
  const auto built = build_interpolating_transformer(data, 1);
  const char* repeat = std::getenv("SEQI_BENCH_REPEAT");
  const int times = repeat ? std::max(1, std::atoi(repeat)) : 1;
  for (int k = 0; k < times; ++k) {
    double t0 = cpu_seconds();
    const ReplayOutcome f64 = run_replay<double>(built.model, data, std::nullopt, std::nullopt, {}, 1e-6, 1, 1e300);
    const double s64 = cpu_seconds() - t0;
    t0 = cpu_seconds();
    const ReplayOutcome f32 = run_replay<float>(built.model, data, std::nullopt, std::nullopt, {}, 1e-3, 1, 1e300);
    std::cout << path << ": replay CPU s float64 " << fmt(s64) << " (" << f64.sequences_off_target << " off), float32 "
              << fmt(cpu_seconds() - t0) << " (" << f32.sequences_off_target << " off)" << std::endl;
  }
}

// CPU seconds of writing a built construction as bytes and reading it back (what verify-mpi
// sends from the process that built the kept construction to the others), and the byte count.
void bytes_row(const std::string& path) {
  const Dataset data = read_dataset_file(path);
  const auto built = build_interpolating_transformer(data, 1, 1, {true, false});
  double t0 = cpu_seconds();
  const std::string bytes = construction_to_bytes(built);
  const double write_s = cpu_seconds() - t0;
  t0 = cpu_seconds();
  const Construction back = construction_from_bytes(bytes);
  const double read_s = cpu_seconds() - t0;
  std::cout << path << ": " << built.model.blocks.size() << " blocks, " << bytes.size() << " bytes, write CPU s "
            << fmt(write_s) << ", read CPU s " << fmt(read_s)
            << (construction_to_bytes(back) == bytes ? "" : " (READ BACK DIFFERS)") << std::endl;
}

int main(int argc, char** argv) {
  if (argc >= 3 && std::string(argv[1]) == "--bytes") {
    for (int i = 2; i < argc; ++i) bytes_row(argv[i]);
    return 0;
  }
  if (argc >= 3 && std::string(argv[1]) == "--replay") {
    for (int i = 2; i < argc; ++i) replay_row(argv[i]);
    return 0;
  }
  if (argc >= 3 && std::string(argv[1]) == "--build") {
    for (int i = 2; i < argc; ++i) build_row(argv[i]);
    return 0;
  }
  if (argc >= 3 && std::string(argv[1]) == "--conditioning") {
    for (int i = 2; i < argc; ++i) {
      const Dataset data = read_dataset_file(argv[i]);
      conditioning_row(data, data.name);
    }
    return 0;
  }
  if (argc == 3 && std::string(argv[1]) == "--conditioning-corpus") {
    for (const auto& [name, data] : load_corpus(argv[2])) conditioning_row(data, name);
    return 0;
  }
  if (argc == 3 && std::string(argv[1]) == "--file") {
    const Dataset data = read_dataset_file(argv[2]);
    row(data.name.substr(0, 23), data, 1);
    return 0;
  }
  if (argc >= 4) {
    RandomDatasetSpec spec;
    spec.N = std::strtoul(argv[1], nullptr, 10);
    spec.n_min = spec.n_max = std::strtoul(argv[2], nullptr, 10);
    spec.d = std::atoi(argv[3]);
    spec.m_max = argc > 4 ? std::strtoul(argv[4], nullptr, 10) : 4;
    spec.coordinate_range = 100;
    spec.max_denominator = 8;
    const std::uint64_t seed = argc > 5 ? std::strtoull(argv[5], nullptr, 10) : 1;
    row(std::to_string(spec.N) + "x" + std::to_string(spec.n_max) + "x" + std::to_string(spec.d) + " m<=" +
            std::to_string(spec.m_max),
        random_dataset(spec, seed), seed);
    return 0;
  }
  header();
  for (const char* args : {"100 100 16", "1000 100 32", "1000 1000 8"}) {
    const std::string cmd = std::string(argv[0]) + " " + args;
    if (std::system(cmd.c_str()) != 0) std::cerr << "row failed: " << cmd << "\n";
  }
  return 0;
}
