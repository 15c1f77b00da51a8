#include <boost/test/unit_test.hpp>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "seqi/certification/run_report.hpp"
#include "seqi/certification/general_models.hpp"
#include "seqi/construction/construction.hpp"
#include "seqi/io/dataset_json.hpp"
#include "seqi/io/sha256.hpp"
#include "seqi/report/latex.hpp"
#include "seqi/report/summary.hpp"
#include "build_paths.hpp"

BOOST_AUTO_TEST_SUITE(test_report)

using namespace seqi;
namespace fs = std::filesystem;

namespace {

constexpr const char* kDate = "2026-01-01";

// A fresh directory under the system temp directory, removed at the end of the test.
struct TempDir {
  fs::path path;
  TempDir() {
    static int counter = 0;
    path = fs::temp_directory_path() /
           ("seqi-report-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_text(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
}

// The value of \newcommand{\<name>}{value} in a data file (single-line values), or "<undefined>".
std::string macro_value(const std::string& data, const std::string& name) {
  const std::string key = "\\newcommand{\\" + name + "}{";
  const auto at = data.find(key);
  if (at == std::string::npos) return "<undefined>";
  const auto start = at + key.size();
  const auto end = data.find("}\n", start);
  return data.substr(start, end - start);
}

// Text of a PDF by pdftotext, with every run of whitespace collapsed to one space.
std::string pdf_text(const fs::path& pdf) {
  const fs::path txt = fs::path(pdf).replace_extension(".txt");
  const std::string cmd = "pdftotext '" + pdf.string() + "' '" + txt.string() + "'";
  BOOST_REQUIRE_MESSAGE(std::system(cmd.c_str()) == 0, "pdftotext failed: " + cmd);
  return std::regex_replace(read_text(txt), std::regex("\\s+"), " ");
}

struct Written {
  fs::path tex, data, pdf;
  std::string data_text;
};

Written write_certificate(const TempDir& dir, const std::string& stem, const RunReport& report, const RunInfo& run,
                          const Dataset& data, const std::string& hash) {
  Written w;
  w.tex = dir.path / (stem + ".tex");
  w.data = dir.path / (stem + "-data.tex");
  w.pdf = dir.path / (stem + ".pdf");
  write_latex_certificate(report, run, data, hash, kDate, w.tex.string());
  BOOST_REQUIRE(fs::is_regular_file(w.tex));
  BOOST_REQUIRE(fs::is_regular_file(w.data));
  w.data_text = read_text(w.data);
  return w;
}

// Compiles; pdflatex must be installed (the suite fails loudly otherwise).
void compile_or_fail(const Written& w) {
  const std::string message = compile_pdf(w.tex.string());
  BOOST_REQUIRE_MESSAGE(message.empty(), "compile_pdf: " + message);
  BOOST_REQUIRE(fs::is_regular_file(w.pdf));
}

RunInfo run_info(const std::string& path, const Dataset& data, bool softmax) {
  return RunInfo{path, data.name, "", 7,
                 softmax ? "exact rationals (GMP) and outward-rounded MPFR intervals (MPFI)" : "exact rationals (GMP)"};
}

// Builds and certifies a shipped dataset, writes and compiles its certificate, checks the PDF.
void certify_and_compile(const std::string& file, bool softmax) {
  const std::string path = std::string(SEQI_DATASETS_DIR) + "/" + file;
  const Dataset data = read_dataset_file(path);
  const Construction built = build_interpolating_transformer(data, 7);
  const RunReport report = softmax ? certify_construction_softmax(data, built, SoftmaxOptions{})
                                   : certify_construction_hardmax(data, built, false);
  const Certificate& cert = report.certificate;
  BOOST_REQUIRE(cert.verified);
  TempDir dir;
  const std::string hash = sha256_hex_of_file(path);
  const auto w = write_certificate(dir, softmax ? "cert-softmax" : "cert-hardmax", report, run_info(path, data, softmax),
                                   data, hash);

  BOOST_TEST(macro_value(w.data_text, "certBlocks") == std::to_string(cert.counts.blocks));
  const std::size_t bound = softmax ? cert.counts.blocks_bound_softmax : cert.counts.blocks_bound_hardmax;
  BOOST_TEST(macro_value(w.data_text, "certBlocksBound") == std::to_string(bound));
  BOOST_TEST(macro_value(w.data_text, "certN") == std::to_string(data.pairs.size()));
  BOOST_TEST(macro_value(w.data_text, "certSumM") == std::to_string(data.sum_m()));
  BOOST_TEST(macro_value(w.data_text, "certParamNormSq") == to_string(cert.counts.param_norm_sq));
  BOOST_TEST(macro_value(w.data_text, "certDatasetHash") == hash);
  BOOST_TEST(macro_value(w.data_text, "certVerified") == "VERIFIED");
  BOOST_TEST(macro_value(w.data_text, "certSetting") == setting_name(cert.setting));
  BOOST_TEST(macro_value(w.data_text, "certSeed") == "7");
  for (const char* name : {"certBlocksSeparation", "certBlocksPlacement", "certBlocksInterpolation", "certWidth",
                           "certParams", "certParamsDense", "certParamsBound", "certD", "certVersion", "certDate",
                           "certArithmetic", "certDatasetName", "certTauStar", "certTauStarDecimal",
                           "certTauChecked", "certMaxRadius", "certFlatHalfwidth", "certTauBinding"})
    BOOST_TEST(macro_value(w.data_text, name) != "<undefined>", name);
  // The layout holds no value of the run: the block count appears only through its macro.
  const std::string layout = read_text(w.tex);
  BOOST_TEST(layout.find(hash) == std::string::npos);
  BOOST_TEST(layout.find("\\input{" + w.data.filename().string() + "}") != std::string::npos);

  compile_or_fail(w);
  const std::string text = pdf_text(w.pdf);
  BOOST_TEST_INFO("PDF text: " << text.substr(0, 3000));
  BOOST_TEST(text.find("VERIFIED") != std::string::npos);
  BOOST_TEST(text.find("NOT VERIFIED") == std::string::npos);
  BOOST_TEST(text.find("The transformer has " + std::to_string(cert.counts.blocks) + " blocks (bound " +
                       std::to_string(bound)) != std::string::npos);
  BOOST_TEST(text.find("lem:P") != std::string::npos);
  BOOST_TEST(text.find("proofs/construction.tex") != std::string::npos);
  BOOST_TEST(text.find("smallest relative window") != std::string::npos);  // conditioning table
  BOOST_TEST(text.find("Not a certificate") != std::string::npos);         // float runs, both settings
  if (softmax) {
    BOOST_REQUIRE(cert.softmax.has_value());
    BOOST_REQUIRE(!cert.softmax->tau_unbounded);
    const std::string tau = approx_decimal(cert.softmax->tau_star_lower);
    BOOST_TEST(macro_value(w.data_text, "certTauStarDecimal") == tau);
    BOOST_TEST(text.find(tau) != std::string::npos, "tau* decimal " << tau << " in the PDF");
    BOOST_TEST(text.find("Not a certificate") != std::string::npos);
  }
}

}  // namespace

BOOST_AUTO_TEST_CASE(latex_escape_every_special_character) {
  BOOST_TEST(latex_escape("plain text 123 (a, b) ok.") == "plain text 123 (a, b) ok.");
  BOOST_TEST(latex_escape("\\") == "\\textbackslash{}");
  BOOST_TEST(latex_escape("{") == "\\{");
  BOOST_TEST(latex_escape("}") == "\\}");
  BOOST_TEST(latex_escape("$") == "{\\normalfont\\ttfamily\\char36}");
  BOOST_TEST(latex_escape("&") == "\\&");
  BOOST_TEST(latex_escape("#") == "\\#");
  BOOST_TEST(latex_escape("^") == "{\\normalfont\\ttfamily\\char94}");
  BOOST_TEST(latex_escape("_") == "{\\normalfont\\ttfamily\\char95}");
  BOOST_TEST(latex_escape("%") == "\\%");
  BOOST_TEST(latex_escape("~") == "{\\normalfont\\ttfamily\\char126}");
  BOOST_TEST(latex_escape("<") == "\\textless{}");
  BOOST_TEST(latex_escape(">") == "\\textgreater{}");
  BOOST_TEST(latex_escape("|") == "\\textbar{}");
  BOOST_TEST(latex_escape("[x]") == "{[}x{]}");
  BOOST_TEST(latex_escape("a_b") == "a{\\normalfont\\ttfamily\\char95}b");
  // Non-ASCII: valid UTF-8 becomes its code point, invalid bytes their value; control bytes too.
  BOOST_TEST(latex_escape("caf\xC3\xA9") == "caf{[}U+00E9{]}");
  BOOST_TEST(latex_escape("\xE2\x82\xAC") == "{[}U+20AC{]}");
  BOOST_TEST(latex_escape("\xF0\x9F\x98\x80") == "{[}U+1F600{]}");
  BOOST_TEST(latex_escape("\xFF") == "{[}0xFF{]}");
  BOOST_TEST(latex_escape("\xC3") == "{[}0xC3{]}");           // truncated sequence
  BOOST_TEST(latex_escape("\xC0\xAF") == "{[}0xC0{]}{[}0xAF{]}");  // overlong encoding
  BOOST_TEST(latex_escape("\x01") == "{[}0x01{]}");
  BOOST_TEST(latex_escape("a\nb\tc") == "a b c");
  BOOST_TEST(latex_escape("") == "");

  // Every byte value escapes to printable ASCII in which no special character is left bare.
  for (int b = 0; b < 256; ++b) {
    const std::string out = latex_escape(std::string(1, static_cast<char>(b)));
    BOOST_TEST_CONTEXT("byte " << b << " -> " << out) {
      BOOST_TEST(!out.empty());
      for (std::size_t i = 0; i < out.size(); ++i) {
        const unsigned char c = static_cast<unsigned char>(out[i]);
        BOOST_TEST((c >= 0x20 && c < 0x7F));
        if (std::string("$&#%^_~<>|").find(static_cast<char>(c)) != std::string::npos)
          BOOST_TEST((i > 0 && out[i - 1] == '\\'));
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(sha256_of_files) {
  TempDir dir;
  write_text(dir.path / "abc.txt", "abc");
  BOOST_TEST(sha256_hex_of_file((dir.path / "abc.txt").string()) ==
             "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  write_text(dir.path / "empty.txt", "");
  BOOST_TEST(sha256_hex_of_file((dir.path / "empty.txt").string()) ==
             "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  // Longer than one read buffer (64 KiB): one million "a" (the FIPS 180-2 test vector).
  write_text(dir.path / "long.txt", std::string(1000000, 'a'));
  BOOST_TEST(sha256_hex_of_file((dir.path / "long.txt").string()) ==
             "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  BOOST_CHECK_THROW(sha256_hex_of_file((dir.path / "missing.json").string()), InputError);
  BOOST_CHECK_THROW(sha256_hex_of_file(dir.path.string()), InputError);
}

BOOST_AUTO_TEST_CASE(hardmax_tiny_certificate_compiles) { certify_and_compile("tiny-d2.json", false); }

BOOST_AUTO_TEST_CASE(hardmax_shared_tokens_certificate_compiles) { certify_and_compile("shared-tokens.json", false); }

BOOST_AUTO_TEST_CASE(softmax_certificate_compiles_and_shows_tau_star) { certify_and_compile("tiny-d2.json", true); }

// A given model (lem:general-verdict): the claim names the tolerance, each row its verdict and
// squared-distance enclosure, and the learning bound is the tolerance form (lem:param-norm-tolerance)
// unless every sequence is exact.
BOOST_AUTO_TEST_CASE(given_model_certificate_shows_verdicts_and_the_tolerance_bound) {
  const std::string path = std::string(SEQI_DATASETS_DIR) + "/tiny-d2.json";
  Dataset data = read_dataset_file(path);
  const Construction built = build_interpolating_transformer(data, 7);
  const Certificate built_cert = certify_construction_softmax(data, built, SoftmaxOptions{}).certificate;
  BOOST_REQUIRE(built_cert.softmax.has_value());
  Sequence ys = data.pairs[0].output.points();
  ys[0][0] += Rational(1, 1000000000);  // 1e-9 off: within 1e-6, not exact
  data.pairs[0].output = TokenSequence(ys);
  GeneralOptions opt;
  opt.tau = built_cert.softmax->tau_checked;
  opt.tolerance = Rational(1, 1000000);
  const RunReport given = certify_general_softmax(data, built.model, opt);
  const Certificate& cert = given.certificate;
  BOOST_REQUIRE(cert.verified);
  BOOST_REQUIRE(cert.general.has_value());
  BOOST_TEST(cert.general->sequences[0].verdict == "within delta");
  TempDir dir;
  RunInfo run = run_info(path, data, true);
  run.model_path = "given-model.json";
  const auto w = write_certificate(dir, "given", given, run, data, sha256_hex_of_file(path));
  BOOST_TEST(w.data_text.find("\\certGeneraltrue") != std::string::npos);
  BOOST_TEST(w.data_text.find("\\certExactInterpolationfalse") != std::string::npos);
  BOOST_TEST(macro_value(w.data_text, "certLossHi") == to_string(cert.general->loss_hi));
  compile_or_fail(w);
  const std::string text = pdf_text(w.pdf);
  BOOST_TEST_INFO("PDF text: " << text.substr(0, 4000));
  BOOST_TEST(text.find("within Hausdorff distance") != std::string::npos);
  BOOST_TEST(text.find("compared as sets") == std::string::npos);
  BOOST_TEST(text.find("within delta") != std::string::npos);  // the first row's verdict
  BOOST_TEST(text.find("The given model") != std::string::npos);
  BOOST_TEST(text.find("for information only") != std::string::npos);
  BOOST_TEST(text.find("lem:param-norm-tolerance") != std::string::npos);
  BOOST_TEST(text.find("not every one is certified exact") != std::string::npos);

  // Hardmax, exact targets: every verdict exact, so the exact learning bound.
  const Dataset exact_data = read_dataset_file(path);
  const RunReport hard_run = certify_general_hardmax(exact_data, built.model, GeneralOptions{});
  const Certificate& hard = hard_run.certificate;
  BOOST_REQUIRE(hard.verified);
  const auto h = write_certificate(dir, "given-hard", hard_run, run, exact_data, sha256_hex_of_file(path));
  BOOST_TEST(h.data_text.find("\\certExactInterpolationtrue") != std::string::npos);
  compile_or_fail(h);
  const std::string hard_text = pdf_text(h.pdf);
  BOOST_TEST(hard_text.find("compared as sets") != std::string::npos);
  BOOST_TEST(hard_text.find("lem:param-norm-tolerance") == std::string::npos);
  BOOST_TEST(hard_text.find("lem:param-norm") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(special_characters_in_the_name_and_a_failed_check) {
  TempDir dir;
  const std::string name = "a_b & c % $x$ #1 {~^\\} <|> [caf\xC3\xA9] \xFF";
  const std::string json = R"({"name": "a_b & c % $x$ #1 {~^\\} <|> [caf\u00e9] X", "dimension": 2,
    "pairs": [{"input": [["0", "0"], ["1", "0"]], "output": [["3", "1/2"]]},
              {"input": [["0", "1"]], "output": [["-1", "2"]]}]})";
  const fs::path json_path = dir.path / "odd #name_%.json";
  write_text(json_path, json);
  Dataset data = read_dataset_file(json_path.string());
  data.name = name;  // also an invalid byte, which JSON cannot carry
  const Construction built = build_interpolating_transformer(data, 3);
  RunReport report = certify_construction_hardmax(data, built, false);
  Certificate& cert = report.certificate;
  BOOST_REQUIRE(cert.verified);
  // Record a failed required check whose detail carries special characters, as a failing run would.
  cert.add({"injected failure & 100% {test}_1", "lem:interpolation", false, true, "x^2 > $y$ ~ #3 \\ok | <z>"});
  cert.conclude();
  BOOST_REQUIRE(!cert.verified);
  const RunInfo run{json_path.string(), name, "", 3, "exact rationals (GMP)"};
  const auto w = write_certificate(dir, "special", report, run, data, sha256_hex_of_file(json_path.string()));
  BOOST_TEST(macro_value(w.data_text, "certDatasetName") == latex_escape(name));
  BOOST_TEST(macro_value(w.data_text, "certVerified") == "NOT VERIFIED");
  BOOST_TEST(w.data_text.find("{FAILED}") != std::string::npos);
  BOOST_TEST(w.data_text.find("\\ifcertPassed") == std::string::npos);
  BOOST_TEST(w.data_text.find("\\certPassedfalse") != std::string::npos);

  compile_or_fail(w);
  const std::string text = pdf_text(w.pdf);
  BOOST_TEST_INFO("PDF text: " << text.substr(0, 3000));
  BOOST_TEST(text.find("NOT VERIFIED") != std::string::npos);
  BOOST_TEST(text.find("FAILED") != std::string::npos);
  BOOST_TEST(text.find("a_b & c % $x$ #1") != std::string::npos);
  BOOST_TEST(text.find("U+00E9") != std::string::npos);
  BOOST_TEST(text.find("does not certify") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(large_runs_show_the_first_sequences_and_the_failing_ones) {
  // A certificate assembled by hand (no compile): 250 sequences, three of them failing.
  Dataset data;
  data.name = "many";
  data.dimension = 2;
  RunReport report;
  Certificate& cert = report.certificate;
  cert.setting = Setting::hardmax;
  for (std::size_t j = 0; j < 250; ++j) {
    Point p(2);
    p << Rational(static_cast<long>(j)), Rational(1);
    data.pairs.push_back({{p}, {p}});
    const bool ok = j != 10 && j != 120 && j != 249;
    cert.sequences.push_back({1, 1, ok, ok ? "" : "target (" + std::to_string(j) + ", 1) is not produced"});
  }
  cert.counts.N = 250;
  cert.counts.d = 2;
  cert.counts.sum_m = 250;
  cert.add({"exact forward pass: T(X_j) = Y_j as sets for every j", "lem:interpolation", false, true, "3 differ"});
  cert.conclude();
  TempDir dir;
  const RunInfo run{"many.json", "many", "", 0, "exact rationals (GMP)"};
  const auto w = write_certificate(dir, "many", report, run, data, std::string(64, '0'));
  BOOST_TEST(macro_value(w.data_text, "certSequencesShown") == "52");  // 1..50, then 121 and 250
  BOOST_TEST(macro_value(w.data_text, "certSequencesOmitted") == "198");
  BOOST_TEST(macro_value(w.data_text, "certSequencesMatched") == "247");
  BOOST_TEST(macro_value(w.data_text, "certSequencesFailing") == "3");
  BOOST_TEST(w.data_text.find("\\certTruncatedtrue") != std::string::npos);
  BOOST_TEST(w.data_text.find("\\certSequence{11}{1}{1}{MISMATCH}") != std::string::npos);
  BOOST_TEST(w.data_text.find("\\certSequence{121}{1}{1}{MISMATCH}") != std::string::npos);
  BOOST_TEST(w.data_text.find("\\certSequence{250}{1}{1}{MISMATCH}") != std::string::npos);
  BOOST_TEST(w.data_text.find("\\certSequence{50}{") != std::string::npos);
  BOOST_TEST(w.data_text.find("\\certSequence{51}{") == std::string::npos);
  BOOST_TEST(macro_value(w.data_text, "certSeed") == "none (a given model)");

  // Same inputs, same files.
  TempDir again;
  const auto w2 = write_certificate(again, "many", report, run, data, std::string(64, '0'));
  BOOST_TEST(w2.data_text == w.data_text);
  BOOST_TEST(read_text(w2.tex) == read_text(w.tex));
}

BOOST_AUTO_TEST_CASE(compile_pdf_reports_latex_errors_and_a_missing_pdflatex) {
  TempDir dir;
  const fs::path bad = dir.path / "bad.tex";
  write_text(bad, "\\documentclass{article}\\begin{document}\\undefinedcommandxyz\\end{document}\n");
  const std::string message = compile_pdf(bad.string());
  BOOST_TEST(!message.empty());
  BOOST_TEST(message.find("Undefined control sequence") != std::string::npos, message);

  const char* old = std::getenv("PATH");
  const std::string saved = old ? old : "";
  ::setenv("PATH", dir.path.string().c_str(), 1);
  const std::string missing = compile_pdf(bad.string());
  ::setenv("PATH", saved.c_str(), 1);
  BOOST_TEST(missing.find("pdflatex not found") != std::string::npos, missing);

  BOOST_CHECK_THROW(write_latex_certificate(RunReport{}, RunInfo{}, Dataset{}, "", kDate,
                                            (dir.path / "no-such-dir" / "c.tex").string()),
                    InputError);
}

BOOST_AUTO_TEST_SUITE_END()
