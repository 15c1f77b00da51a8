#include <chrono>
#include <ctime>
#include <filesystem>
#include <ostream>

#include "seqi/certification/certificate.hpp"
#include "seqi/certification/general_models.hpp"
#include "seqi/cli/run.hpp"
#include "seqi/io/dataset_json.hpp"
#include "seqi/io/model_json.hpp"
#include "seqi/numbers/sha256.hpp"
#include "seqi/report/latex.hpp"
#include "seqi/report/summary.hpp"

namespace seqi {
namespace {

Check hypotheses_check(const Dataset& data) {
  std::string detail = "all pairs";
  for (const auto& note : data.notes) detail += "; " + note;
  return {"hypotheses H1-H5 on the dataset", "def:hypotheses", true, true, detail};
}

SoftmaxOptions softmax_options(const VerifyOptions& opt) {
  SoftmaxOptions so;
  so.brute = opt.brute;
  so.precision_bits = opt.precision_bits;
  if (opt.tau) {
    std::string why;
    auto tau = parse_rational(*opt.tau, &why);
    if (!tau) throw InputError("--tau " + *opt.tau + ": not an exact rational (" + why + "); write e.g. 1/1000");
    if (*tau <= 0) throw InputError("--tau " + *opt.tau + ": the temperature must be positive");
    so.tau = *tau;
  }
  if (opt.precision_bits && (opt.precision_bits < 16 || opt.precision_bits > 100000))
    throw InputError("--precision " + std::to_string(opt.precision_bits) + ": choose between 16 and 100000 bits");
  return so;
}

// Options of a general model's verification; bad values are input errors.
GeneralOptions general_options(const VerifyOptions& opt) {
  GeneralOptions go;
  const SoftmaxOptions so = softmax_options(opt);
  go.tau = so.tau;
  if (so.precision_bits) go.precision_bits = so.precision_bits;
  if (opt.tolerance) {
    std::string why;
    auto delta = parse_rational(*opt.tolerance, &why);
    if (!delta) throw InputError("--tolerance " + *opt.tolerance + ": not an exact rational (" + why + "); write e.g. 1/1000");
    if (*delta < 0) throw InputError("--tolerance " + *opt.tolerance + ": a distance cannot be negative");
    go.tolerance = *delta;
  }
  if (opt.refinements > 16) throw InputError("--refinements " + std::to_string(opt.refinements) + ": choose 0 to 16");
  if (opt.branch_limit > 12) throw InputError("--branch-limit " + std::to_string(opt.branch_limit) + ": choose 0 to 12");
  go.refinements = opt.refinements;
  go.branch_limit = opt.branch_limit;
  return go;
}

Certificate certify(const VerifyOptions& opt, const Dataset& data, RunInfo& run) {
  if (opt.model_path.empty() && opt.tolerance)
    throw InputError("--tolerance applies to a model given with --model; a built transformer is certified exactly");
  if (!opt.model_path.empty()) {
    if (!opt.save_model_path.empty())
      throw InputError("--save-model saves a transformer this run builds; with --model nothing is built");
    auto model = read_model_file(opt.model_path);
    if (model.dimension != data.dimension)
      throw InputError(opt.model_path + ": model dimension " + std::to_string(model.dimension) +
                       " differs from the dataset's dimension " + std::to_string(data.dimension));
    run.model_path = opt.model_path;
    if (!opt.softmax) return certify_general_hardmax(data, model, general_options(opt));
    if (!opt.tau) throw InputError("--softmax --model needs --tau: a user's model has no certified tau*");
    return certify_general_softmax(data, model, general_options(opt));
  }
  const auto built = build_interpolating_transformer(data, opt.seed);
  if (!opt.save_model_path.empty()) write_model_file(built.model, opt.save_model_path);
  if (opt.softmax) return certify_construction_softmax(data, built, softmax_options(opt));
  return certify_construction_hardmax(data, built, opt.brute);
}

std::string today_utc() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M UTC", &tm);
  return buf;
}

// Writes the LaTeX certificate (and the PDF when asked); a PDF failure is reported, the
// verification outcome stands.
void write_report(const VerifyOptions& opt, const Certificate& cert, const RunInfo& run, const Dataset& data,
                  std::ostream& err) {
  const auto dir = std::filesystem::path(opt.report_path).parent_path();
  std::error_code ec;
  if (!dir.empty()) std::filesystem::create_directories(dir, ec);
  write_latex_certificate(cert, run, data, sha256_hex_of_file(opt.dataset_path), today_utc(), opt.report_path);
  if (!opt.pdf) return;
  if (auto problem = compile_pdf(opt.report_path); !problem.empty())
    err << "verify: the certificate " << opt.report_path << " was written but no PDF was made: " << problem << "\n";
}

}  // namespace

int run_verify(const VerifyOptions& opt, std::ostream& out, std::ostream& err) {
  try {
    const Dataset data = read_dataset_file(opt.dataset_path);
    RunInfo run{opt.dataset_path, data.name, "", opt.seed,
                opt.softmax ? "exact rationals (GMP) and outward-rounded MPFR intervals (MPFI)" : "exact rationals (GMP)"};
    Certificate cert = certify(opt, data, run);
    cert.checks.insert(cert.checks.begin(), hypotheses_check(data));
    cert.conclude();
    if (!opt.report_path.empty()) write_report(opt, cert, run, data, err);
    if (opt.json)
      out << summary_json(cert, run).dump(2) << "\n";
    else
      out << summary_text(cert, run);
    return cert.verified ? kVerified : kNotVerified;
  } catch (const InputError& e) {
    err << "verify: bad input: " << e.what() << "\n";
    return kBadInput;
  } catch (const ConstructionError& e) {
    err << "verify: construction failed: " << e.what() << "\n";
    return kNotVerified;
  }
}

}  // namespace seqi
