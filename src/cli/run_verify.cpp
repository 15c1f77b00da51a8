#include <chrono>
#include <cstdint>
#include <ctime>
#include <filesystem>
#include <new>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <system_error>
#include <vector>

#include "seqi/certification/run_report.hpp"
#include "seqi/certification/general_models.hpp"
#include "seqi/cli/cooperation.hpp"
#include "seqi/cli/resource_failure.hpp"
#include "seqi/cli/run.hpp"
#include "seqi/core/execution.hpp"
#include "seqi/core/parallel.hpp"
#include "seqi/io/dataset_json.hpp"
#include "seqi/io/model_file.hpp"
#include "seqi/io/sha256.hpp"
#include "seqi/io/output_paths.hpp"
#include "seqi/io/property_set.hpp"
#include "seqi/io/quote_value.hpp"
#include "seqi/io/read_file.hpp"
#include "seqi/numbers/bit_limit.hpp"
#include "seqi/io/model_json.hpp"
#include "seqi/report/certificate_json.hpp"
#include "seqi/report/latex.hpp"
#include "seqi/report/summary.hpp"
#include "seqi/core/input_error.hpp"

namespace seqi {
namespace {

Check hypotheses_check(const Dataset& data) {
  std::string detail = "all pairs";
  for (const auto& note : data.notes) detail += "; " + note;
  return {"hypotheses H1-H5 on the dataset", "def:hypotheses", true, true, detail};
}

// The float statements asked for; InputError for a text the option would refuse.
StatementChoice checked_statements(const VerifyOptions& opt) {
  const auto stated = parse_float_statements(opt.float_statements);
  if (!stated)
    throw InputError("--float-statements " + quote_value(opt.float_statements) + ": " + kFloatStatementsExpected);
  return *stated;
}

// Checks every option value and path before any work: the temperature, the precision, the
// certificate's file names, and that no output is an input or another output.
SoftmaxOptions checked_softmax_options(const VerifyOptions& opt) {
  SoftmaxOptions so;
  so.brute = opt.brute;
  so.precision_bits = opt.precision_bits;
  if (opt.tau) {
    std::string why;
    auto tau = parse_rational(*opt.tau, &why);
    if (!tau) throw InputError("--tau " + quote_value(*opt.tau) + ": not an exact rational (" + why + "); write e.g. 1/1000");
    if (*tau <= 0) throw InputError("--tau " + quote_value(*opt.tau) + ": the temperature must be positive");
    so.tau = *tau;
  }
  if (opt.precision_bits && (opt.precision_bits < 16 || opt.precision_bits > 100000))
    throw InputError("--precision " + std::to_string(opt.precision_bits) + ": choose between 16 and 100000 bits");
  return so;
}

void check_paths(const VerifyOptions& opt) {
  if (!opt.model_path.empty() && !opt.save_model_path.empty())
    throw InputError("--save-model saves a transformer this run builds; with --model nothing is built");
  std::vector<NamedPath> inputs{{"the dataset", opt.dataset_path}}, outputs;
  if (!opt.model_path.empty()) inputs.push_back({"the model (--model)", opt.model_path});
  if (!opt.save_model_path.empty()) {
    check_model_save_path(opt.save_model_path);
    outputs.push_back({"--save-model", opt.save_model_path});
    const auto dir = std::filesystem::path(opt.save_model_path).parent_path();
    if (!dir.empty() && !std::filesystem::is_directory(dir))
      throw InputError(opt.save_model_path + ": the directory " + dir.string() +
                       " does not exist; create it or choose another --save-model path");
  }
  if (!opt.report_path.empty()) {
    outputs.push_back({"--report", opt.report_path});
    outputs.push_back({"the certificate's data file", certificate_data_path(opt.report_path)});
    if (opt.pdf)  // pdflatex writes these next to the certificate
      for (const char* ext : {".pdf", ".log", ".aux"})
        outputs.push_back({std::string("the certificate's ") + ext + " file",
                           std::filesystem::path(opt.report_path).replace_extension(ext).string()});
  }
  if (!opt.certificate_path.empty()) outputs.push_back({"--certificate", opt.certificate_path});
  refuse_outputs_onto_inputs(outputs, inputs);
  if (opt.save_property_dir.empty()) return;
  check_property_dir(opt.save_property_dir);
  for (const auto& o : outputs)
    if (path_under_dir(o.path, opt.save_property_dir))
      throw InputError(o.role + " " + o.path + " lies in the --save-property directory " + opt.save_property_dir +
                       ", which holds the benchmark alone; write it elsewhere");
  if (!opt.property_sequences.empty()) parse_property_sequences(opt.property_sequences);
}

// Options of a general model's verification; bad values are input errors.
GeneralOptions general_options(const VerifyOptions& opt) {
  GeneralOptions go;
  const SoftmaxOptions so = checked_softmax_options(opt);
  go.tau = so.tau;
  if (so.precision_bits) go.precision_bits = so.precision_bits;
  if (opt.tolerance) {
    std::string why;
    auto delta = parse_rational(*opt.tolerance, &why);
    if (!delta) throw InputError("--tolerance " + quote_value(*opt.tolerance) + ": not an exact rational (" + why + "); write e.g. 1/1000");
    if (*delta < 0) throw InputError("--tolerance " + quote_value(*opt.tolerance) + ": a distance cannot be negative");
    go.tolerance = *delta;
  }
  if (opt.refinements > 16) throw InputError("--refinements " + std::to_string(opt.refinements) + ": choose 0 to 16");
  if (opt.branch_limit > 12) throw InputError("--branch-limit " + std::to_string(opt.branch_limit) + ": choose 0 to 12");
  if (opt.bisections > 256) throw InputError("--bisections " + std::to_string(opt.bisections) + ": choose 0 to 256");
  go.refinements = opt.refinements;
  go.bisections = opt.bisections;
  go.branch_limit = opt.branch_limit;
  return go;
}

// What a saved model records of the run: tau, the dataset, and the statements that hold (the
// hypotheses check added before the final conclude() always passes, so concluding here agrees).
ModelExportInfo export_info(RunReport& report, const std::string& dataset_sha256, bool float32) {
  Certificate& cert = report.certificate;
  cert.conclude();
  ModelExportInfo info{cert.softmax ? std::optional<Rational>(cert.softmax->tau_checked) : std::nullopt, dataset_sha256};
  info.certified = cert.verified;
  // A statement not stated (--float-statements) stays "not computed" in the metadata.
  const auto take = [](const std::optional<FloatRunFacts>& f, std::optional<double>& delta, std::string& not_shown) {
    if (!f || !f->stated) return;
    if (f->certified)
      delta = f->delta;
    else
      not_shown = f->failure;
  };
  take(report.float_statement, info.float64_delta, info.float64_not_shown);
  take(report.float32_statement, info.float32_delta, info.float32_not_shown);
  info.onnx_float32 = float32;
  return info;
}

// --save-property: the benchmark, with each output token's target from the exact pass. Returns
// a note for the error stream when no property could be stated, else "".
std::string save_properties(const VerifyOptions& opt, const Dataset& data, const Transformer<Rational>& model,
                     const ModelExportInfo& info, const Certificate& cert) {
  PropertySetRequest request{opt.save_property_dir, {}, opt.property_timeout, opt.dataset_path};
  if (!opt.property_sequences.empty()) request.sequences = parse_property_sequences(opt.property_sequences);
  std::vector<std::vector<std::uint32_t>> target_of;
  target_of.reserve(cert.sequences.size());
  for (const auto& s : cert.sequences) target_of.push_back(s.target_of);
  const std::string why_none = write_property_set(request, data, model, info, target_of);
  if (why_none.empty()) return "";
  return "verify: --save-property " + opt.save_property_dir + ": no property written: " + why_none +
         " (the directory holds manifest.json and an empty instances.csv)\n";
}

// `model_sha256` is set to the hash of the built model's JSON text when a certificate is asked for.
RunReport certify(const VerifyOptions& opt, const SoftmaxOptions& so, GeneralOptions go, const Dataset& data,
                  const std::string& dataset_sha256, RunInfo& run, const Execution& exec, const Cooperation* coop,
                  std::string& model_sha256, std::string& property_note) {
  Progress* progress = exec.progress;
  if (!opt.model_path.empty()) {
    const auto loaded = load_model(opt.model_path, opt.model_metadata);
    const auto& model = loaded.model;
    if (model.dimension != data.dimension)
      throw InputError(opt.model_path + ": model dimension " + std::to_string(model.dimension) +
                       " differs from the dataset's dimension " + std::to_string(data.dimension));
    run.model_path = opt.model_path;
    progress_phase(progress, "certifying the model of " + opt.model_path, 0);
    if (!opt.softmax) return certify_general_hardmax(data, model, go);
    if (!go.tau) go.tau = loaded.tau;  // the temperature a .safetensors file records
    if (!go.tau) throw InputError("--softmax --model needs --tau: a user's model has no certified tau*");
    return certify_general_softmax(data, model, go);
  }
  progress_phase(progress, "building the transformer (phases S, P, C, I)", 0);
  const Construction built =
      build_interpolating_transformer(data, opt.seed, exec, {!opt.leader_construction, !opt.mean_collapse});
  RunReport report = opt.softmax ? certify_construction_softmax(data, built, so, exec)
                                 : certify_construction_hardmax(data, built, opt.brute, exec);
  if (coop) coop->check_agreement(report, run);  // the last collective step: writing fails alone
  if (!opt.certificate_path.empty()) model_sha256 = sha256_hex(model_json_text(built.model));
  if (!opt.save_model_path.empty() && (!coop || coop->writes_output()))
    save_model(built.model, opt.save_model_path, export_info(report, dataset_sha256, opt.onnx_dtype == "float32"));
  if (!opt.save_property_dir.empty() && (!coop || coop->writes_output()))
    property_note = save_properties(opt, data, built.model, export_info(report, dataset_sha256, false), report.certificate);
  return report;
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
void write_report(const VerifyOptions& opt, const RunReport& report, const RunInfo& run, const Dataset& data,
                  const std::string& dataset_sha256, std::ostream& err) {
  const auto dir = std::filesystem::path(opt.report_path).parent_path();
  std::error_code ec;
  if (!dir.empty()) std::filesystem::create_directories(dir, ec);
  write_latex_certificate(report, run, data, dataset_sha256, today_utc(), opt.report_path);
  if (!opt.pdf) return;
  if (auto problem = compile_pdf(opt.report_path); !problem.empty())
    err << "verify: the certificate " << opt.report_path << " was written but no PDF was made: " << problem << "\n";
}

// The dataset, read once; its SHA-256 is that of exactly the bytes parsed (pipes and stdin
// included), computed only when a certificate or a saved model will record it.
// With `coop`, the first process checks the paths and reads; the others get its bytes.
Dataset read_dataset_once(const VerifyOptions& opt, std::string& sha256, const Cooperation* coop, unsigned threads) {
  const auto read = [&] {
    check_paths(opt);
    return read_file_limited(opt.dataset_path, kMaxDatasetFileBytes, "dataset", " (datasets are .json files)");
  };
  const std::string text = coop ? coop->dataset_text(opt.dataset_path, read) : read();
  if (!opt.report_path.empty() || !opt.save_model_path.empty() || !opt.certificate_path.empty() ||
      !opt.save_property_dir.empty())
    sha256 = sha256_hex(text);
  // verify-mpi: process 0 validates before it stores; the others, given the same bytes, store at once.
  if (coop && coop->sharding().part() != 0) return parse_dataset_json_stored_only(text, opt.dataset_path);
  return parse_dataset_json(text, opt.dataset_path, threads);
}

}  // namespace

std::optional<StatementChoice> parse_float_statements(const std::string& text) {
  if (text == "float64,float32" || text == "float32,float64") return StatementChoice{true, true};
  if (text == "float64") return StatementChoice{true, false};
  if (text == "float32") return StatementChoice{false, true};
  if (text == "none") return StatementChoice{false, false};
  return std::nullopt;
}

int run_verify(const VerifyOptions& opt, std::ostream& out, std::ostream& err, const Cooperation* coop) {
  try {
    std::optional<Progress> progress;  // declared first: its last line ends before any error message
    if (opt.progress)
      progress.emplace(err, opt.progress_terminal, std::chrono::milliseconds(opt.progress_delay_ms));
    progress_phase(progress ? &*progress : nullptr, "reading the dataset", 0);
    const SoftmaxOptions so = checked_softmax_options(opt);
    const StatementChoice stated = checked_statements(opt);  // before the dataset is read
    const GeneralOptions go = general_options(opt);
    std::string dataset_sha256;
    const unsigned threads = opt.threads ? opt.threads : all_cores();
    const Dataset data = read_dataset_once(opt, dataset_sha256, coop, threads);
    if (!opt.property_sequences.empty())
      check_property_sequences(parse_property_sequences(opt.property_sequences), data.pairs.size(), opt.dataset_path);
    RunInfo run{opt.dataset_path, data.name, "", opt.seed,
                opt.softmax ? "exact rationals (GMP) and outward-rounded MPFR intervals (MPFI)" : "exact rationals (GMP)"};
    const Execution exec{progress ? &*progress : nullptr, threads, coop ? &coop->sharding() : nullptr, stated.float64,
                         stated.float32};
    std::string model_sha256, property_note;
    RunReport report = certify(opt, so, go, data, dataset_sha256, run, exec, coop, model_sha256, property_note);
    Certificate& cert = report.certificate;
    cert.checks.insert(cert.checks.begin(), hypotheses_check(data));
    cert.conclude();
    progress.reset();  // its last line ends before the report's messages and the summary
    err << property_note;
    if (!opt.report_path.empty() && (!coop || coop->writes_output())) write_report(opt, report, run, data, dataset_sha256, err);
    if (!opt.certificate_path.empty() && (!coop || coop->writes_output()))
      write_certificate_json(certificate_json(report, data, dataset_sha256, model_sha256), opt.certificate_path);
    if (opt.json)
      out << summary_json(report, run).dump(2) << "\n";
    else
      out << summary_text(report, run);
    out.flush();
    if (!out) {
      err << "verify: error writing the summary to standard output\n";
      return kBadInput;
    }
    return cert.verified ? kVerified : kNotVerified;
  } catch (const InputError& e) {
    err << "verify: bad input: " << e.what() << "\n";
    return kBadInput;
  } catch (const BitLimitExceeded& e) {
    err << "verify: bad input: " << e.what() << "\n";
    return kBadInput;
  } catch (const ConstructionError& e) {
    err << "verify: construction failed: " << e.what() << "\n";
    return kNotVerified;
  } catch (...) {
    return resource_failure_exit(err, "verify",
                                 "Use a smaller input (README: peak memory) or run where more memory is available.");
  }
}

}  // namespace seqi
