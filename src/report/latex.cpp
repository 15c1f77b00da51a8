#include "seqi/report/latex.hpp"

#include "seqi/report/conditioning_report.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <vector>

namespace seqi {

namespace {

namespace fs = std::filesystem;

// Per-sequence table: beyond kFullTableLimit sequences, show the first kTableHead ones and the
// failing ones (at most kFailingShown of those, the count of the rest is stated).
constexpr std::size_t kFullTableLimit = 200;
constexpr std::size_t kTableHead = 50;
constexpr std::size_t kFailingShown = 500;
constexpr std::size_t kWidthBound = 4;  // Thm 1.6 / 1.8: width at most 4

// A character typeset literally in the upright typewriter font (right glyph in OT1 and T1;
// \normalfont avoids the pound sign that italic typewriter has at the dollar's slot).
std::string tt_char(int code) { return "{\\normalfont\\ttfamily\\char" + std::to_string(code) + "}"; }

std::string bracketed(const char* fmt, unsigned value) {
  char buf[32];
  std::snprintf(buf, sizeof buf, fmt, value);
  return std::string("{[}") + buf + "{]}";
}

// Length of the valid UTF-8 sequence starting at s[i] (2..4) and its code point, or 0.
std::size_t utf8_sequence(const std::string& s, std::size_t i, unsigned& cp) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char b = byte(i);
  std::size_t len = 0;
  unsigned min = 0;
  if (b >= 0xC2 && b <= 0xDF) len = 2, cp = b & 0x1Fu, min = 0x80;
  else if (b >= 0xE0 && b <= 0xEF) len = 3, cp = b & 0x0Fu, min = 0x800;
  else if (b >= 0xF0 && b <= 0xF4) len = 4, cp = b & 0x07u, min = 0x10000;
  else return 0;
  if (i + len > s.size()) return 0;
  for (std::size_t k = 1; k < len; ++k) {
    if ((byte(i + k) & 0xC0u) != 0x80u) return 0;
    cp = (cp << 6) | (byte(i + k) & 0x3Fu);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return len;
}

// `breakable`: also allow line breaks after some punctuation and inside long runs of digits and
// symbols (for paths, check details and other long strings in narrow table columns).
std::string escape(const std::string& s, bool breakable) {
  std::string out;
  out.reserve(s.size() + s.size() / 4);
  std::size_t run = 0;
  for (std::size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    std::size_t consumed = 1;
    bool space = false;
    switch (c) {
      case '\\': out += "\\textbackslash{}"; break;
      case '{': out += "\\{"; break;
      case '}': out += "\\}"; break;
      case '$': out += tt_char('$'); break;
      case '&': out += "\\&"; break;
      case '#': out += "\\#"; break;
      case '^': out += tt_char('^'); break;
      case '_': out += tt_char('_'); break;
      case '%': out += "\\%"; break;
      case '~': out += tt_char('~'); break;
      case '<': out += "\\textless{}"; break;
      case '>': out += "\\textgreater{}"; break;
      case '|': out += "\\textbar{}"; break;
      case '[': out += "{[}"; break;
      case ']': out += "{]}"; break;
      case ' ': case '\t': case '\n': case '\r': case '\f': case '\v':
        out += ' ';
        space = true;
        break;
      default:
        if (c < 0x20 || c == 0x7F) {
          out += bracketed("0x%02X", c);
        } else if (c < 0x80) {
          out += static_cast<char>(c);
        } else {
          unsigned cp = 0;
          const std::size_t len = utf8_sequence(s, i, cp);
          if (len) {
            out += bracketed("U+%04X", cp);
            consumed = len;
          } else {
            out += bracketed("0x%02X", c);
          }
        }
    }
    i += consumed;
    if (space || std::isalpha(c)) {
      run = 0;  // words break at spaces or by hyphenation
    } else if (breakable && (++run >= 12 || (c && std::strchr("/,;:=_)", static_cast<int>(c))))) {
      out += "\\allowbreak{}";
      run = 0;
    }
  }
  return out;
}

std::string breakable(const std::string& s) { return escape(s, true); }

std::string num(std::size_t n) { return std::to_string(n); }

// Display of a double (never a decision): "%.6g", or "non-finite".
std::string fmt_double(double x, const char* fmt = "%.6g") {
  if (!std::isfinite(x)) return "non-finite";
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, x);
  return buf;
}

std::string rel(bool within) { return within ? "\\le" : ">"; }

std::size_t phase_blocks(const Counts& c, const char* phase) {
  auto it = c.blocks_by_phase.find(phase);
  return it == c.blocks_by_phase.end() ? 0 : it->second;
}

class DataFile {
 public:
  void comment(const std::string& text) { o_ << "% " << text << "\n"; }
  void def(const std::string& name, const std::string& value) {
    o_ << "\\newcommand{\\" << name << "}{" << value << "}\n";
  }
  void flag(const std::string& name, bool on) { o_ << "\\" << name << (on ? "true" : "false") << "\n"; }
  void blank() { o_ << "\n"; }
  std::string str() const { return o_.str(); }

 private:
  std::ostringstream o_;
};

// Axis limits of a snapshot: the data range with a margin, widened when (nearly) degenerate
// so that pgfplots never sees an empty or numerically tiny range.
struct Range {
  double lo = 0, hi = 0;
};

Range padded(double lo, double hi) {
  const double centre = lo / 2 + hi / 2;
  double half = hi / 2 - lo / 2;
  const double floor_half = std::max(1e-3 * std::max(std::fabs(lo), std::fabs(hi)), 1e-12);
  half = std::max(half * 1.15, floor_half);
  return {centre - half, centre + half};
}

std::string snapshot_macro(const PhaseSnapshot& snap) {
  double xlo = std::numeric_limits<double>::infinity(), xhi = -xlo, ylo = xlo, yhi = -xlo;
  std::string seqs;
  std::size_t index = 0;
  for (const auto& seq : snap.sequences) {
    ++index;
    std::string coords;
    for (const auto& [x, y] : seq) {
      if (!std::isfinite(x) || !std::isfinite(y) || std::fabs(x) > 1e300 || std::fabs(y) > 1e300) continue;
      xlo = std::min(xlo, x), xhi = std::max(xhi, x), ylo = std::min(ylo, y), yhi = std::max(yhi, y);
      coords += "(" + fmt_double(x, "%.9g") + "," + fmt_double(y, "%.9g") + ") ";
    }
    if (!coords.empty()) seqs += "\\certSnapshotSequence{" + num(index) + "}{" + coords + "}%\n  ";
  }
  if (seqs.empty()) return "";
  const Range xr = padded(xlo, xhi), yr = padded(ylo, yhi);
  return "\\certSnapshot{" + latex_escape(snap.phase) + "}{" + fmt_double(xr.lo, "%.9g") + "}{" +
         fmt_double(xr.hi, "%.9g") + "}{" + fmt_double(yr.lo, "%.9g") + "}{" + fmt_double(yr.hi, "%.9g") + "}{%\n  " +
         seqs + "}%\n";
}

std::string check_status(const Check& c) {
  if (c.passed) return "passed";
  return c.required ? "FAILED" : "failed (not required)";
}

std::string data_file_text(const Certificate& cert, const RunInfo& run, const Dataset& data,
                           const std::string& dataset_sha256, const std::string& date) {
  const Counts& c = cert.counts;
  const bool softmax = cert.setting == "softmax";
  const bool construction = cert.record.has_value();
  DataFile f;
  f.comment("seqi certificate data: every value of the certificate, each defined once.");
  f.comment("Generated by seqi " + std::string(SEQI_VERSION) + "; the layout file \\input's this file.");
  f.blank();
  f.comment("Run");
  f.def("certVersion", latex_escape(SEQI_VERSION));
  f.def("certDate", latex_escape(date));
  f.def("certSetting", latex_escape(cert.setting));
  f.def("certVerified", cert.verified ? "VERIFIED" : "NOT VERIFIED");
  f.flag("certPassed", cert.verified);
  f.flag("certSoftmax", softmax);
  f.flag("certConstruction", construction);
  f.def("certArithmetic", breakable(run.arithmetic));
  f.def("certSeed", construction ? std::to_string(cert.record->seed) : std::string("none (a given model)"));
  f.def("certModelPath", breakable(run.model_path));
  f.flag("certHasModelPath", !run.model_path.empty());
  f.blank();

  f.comment("Dataset");
  f.def("certDatasetName", latex_escape(run.dataset_name.empty() ? data.name : run.dataset_name));
  f.def("certDatasetPath", breakable(run.dataset_path));
  f.def("certDatasetHash", latex_escape(dataset_sha256));
  f.def("certN", num(c.N));
  f.def("certD", num(c.d));
  f.def("certSumM", num(c.sum_m));
  std::size_t sum_n = 0, min_n = 0, max_n = 0, min_m = 0, max_m = 0;
  for (std::size_t j = 0; j < data.pairs.size(); ++j) {
    const std::size_t n = data.pairs[j].input.size(), m = data.pairs[j].output.size();
    sum_n += n;
    min_n = j ? std::min(min_n, n) : n, max_n = std::max(max_n, n);
    min_m = j ? std::min(min_m, m) : m, max_m = std::max(max_m, m);
  }
  f.def("certSumN", num(sum_n));
  f.def("certMinN", num(min_n));
  f.def("certMaxN", num(max_n));
  f.def("certMinM", num(min_m));
  f.def("certMaxM", num(max_m));
  std::string notes;
  for (const auto& note : data.notes) notes += "\\item " + breakable(note) + "\n";
  f.def("certDatasetNotes", notes);
  f.flag("certHasNotes", !data.notes.empty());
  f.blank();

  f.comment("Theorem vs construction (lem:counts)");
  const std::size_t bound = softmax ? c.blocks_bound_softmax : c.blocks_bound_hardmax;
  f.def("certBlocks", num(c.blocks));
  f.def("certBlocksBound", num(bound));
  f.def("certBlocksRel", rel(c.blocks <= bound));
  f.def("certBlocksSeparation", num(phase_blocks(c, "separation")));
  f.def("certBlocksPlacement", num(phase_blocks(c, "placement")));
  f.def("certBlocksInterpolation", num(phase_blocks(c, "interpolation")));
  f.def("certBlocksUser", num(phase_blocks(c, "user")));
  f.flag("certUserPhase", c.blocks_by_phase.count("user") > 0);
  f.def("certWidth", num(c.width));
  f.def("certWidthBound", num(kWidthBound));
  f.def("certWidthRel", rel(c.width <= kWidthBound));
  f.def("certRankA", num(c.max_rank_A));
  f.def("certRankV", num(c.max_rank_V));
  f.def("certParams", num(c.params));
  f.def("certParamsDense", num(c.params_dense));
  f.def("certParamsBound", num(c.params_bound));
  f.def("certParamsRel", rel(c.params <= c.params_bound));
  f.def("certParamsDenseRel", rel(c.params_dense <= c.params_bound));
  f.def("certLifts", construction ? num(cert.record->separation.lifts) : std::string("0"));
  f.def("certParamNormSq", to_string(c.param_norm_sq));
  f.def("certParamNormSqDecimal", approx_decimal(c.param_norm_sq, 8));
  std::string bits;
  std::vector<std::string> phases{"input", "separation", "placement", "collapse", "interpolation", "user"};
  for (const auto& [phase, b] : cert.max_bits_by_phase)
    if (std::find(phases.begin(), phases.end(), phase) == phases.end()) phases.push_back(phase);
  for (const auto& phase : phases)
    if (auto it = cert.max_bits_by_phase.find(phase); it != cert.max_bits_by_phase.end())
      bits += "\\certBits{" + latex_escape(phase) + "}{" + num(it->second) + "}%\n";
  f.def("certBitsList", "%\n" + bits);
  f.flag("certHasBits", !cert.max_bits_by_phase.empty());
  std::string choices;
  if (construction)
    for (const auto& g : cert.record->choices)
      choices += "\\certChoice{" + breakable(g.what) + "}{" + std::to_string(g.attempts) + "}{" +
                 breakable(g.final_range.str()) + "}%\n";
  f.def("certChoiceList", "%\n" + choices);
  f.flag("certHasChoices", !choices.empty());
  f.blank();

  f.comment("Checks: \\certCheck{index}{name}{lemma label in proofs/construction.tex}{outcome}{required}{detail}");
  std::size_t passed = 0, failed_required = 0, index = 0;
  std::string checks;
  for (const auto& ch : cert.checks) {
    passed += ch.passed;
    failed_required += !ch.passed && ch.required;
    checks += "\\certCheck{" + num(++index) + "}{" + breakable(ch.name) + "}{" + breakable(ch.lemma) + "}{" +
              check_status(ch) + "}{" + (ch.required ? "yes" : "no") + "}{" + breakable(ch.detail) + "}%\n";
  }
  f.def("certChecksTotal", num(cert.checks.size()));
  f.def("certChecksPassed", num(passed));
  f.def("certChecksFailedRequired", num(failed_required));
  f.def("certCheckList", "%\n" + checks);
  f.blank();

  f.comment("Per-sequence outcomes: \\certSequence{j}{n_j}{m_j}{outcome}{tau_j bound (softmax)}{detail}");
  const std::size_t N = data.pairs.size();
  const bool truncated = N > kFullTableLimit;
  std::size_t matched = 0, failing = 0, shown = 0, failing_shown = 0, failing_not_shown = 0;
  std::string rows;
  for (std::size_t j = 0; j < N; ++j) {
    const SequenceOutcome* o = j < cert.sequences.size() ? &cert.sequences[j] : nullptr;
    const bool ok = o && o->matches;
    matched += ok;
    failing += !ok;
    bool show = !truncated || j < kTableHead;
    if (!ok && !show && failing_shown < kFailingShown) show = true, ++failing_shown;
    if (!show) {
      failing_not_shown += !ok;
      continue;
    }
    ++shown;
    std::string tau = "";
    if (cert.softmax && j < cert.softmax->tau_per_sequence.size()) {
      const auto& t = cert.softmax->tau_per_sequence[j];
      tau = t ? approx_decimal(*t) : std::string("none");
    }
    rows += "\\certSequence{" + num(j + 1) + "}{" + num(data.pairs[j].input.size()) + "}{" +
            num(data.pairs[j].output.size()) + "}{" +
            (ok ? std::string("matches") : o ? std::string("MISMATCH") : std::string("not checked")) + "}{" + tau +
            "}{" + (o ? breakable(o->detail) : std::string()) + "}%\n";
  }
  f.def("certSequencesMatched", num(matched));
  f.def("certSequencesFailing", num(failing));
  f.def("certSequencesShown", num(shown));
  f.def("certSequencesOmitted", num(N - shown));
  f.def("certTableLimit", num(kFullTableLimit));
  f.def("certTableHead", num(kTableHead));
  f.def("certFailingNotShown", num(failing_not_shown));
  f.flag("certTruncated", truncated);
  f.def("certSequenceList", "%\n" + rows);
  f.blank();

  f.comment("Softmax (lem:tau-star, lem:softmax-enclosure); the double pass is a contrast, not a certificate");
  const std::string na = "not applicable";
  const SoftmaxFacts* s = cert.softmax ? &*cert.softmax : nullptr;
  const bool tau_known = s && construction && !s->tau_unbounded;
  f.flag("certTauUnbounded", s && s->tau_unbounded);
  const std::string no_tau = !s ? na : !construction ? "not certified (a given model)" : "unbounded";
  f.def("certTauStar", tau_known ? to_string(s->tau_star_lower) : no_tau);
  f.def("certTauStarDecimal", tau_known ? approx_decimal(s->tau_star_lower) : no_tau);
  f.def("certTauBinding", tau_known ? num(s->binding_sequence + 1) : na);
  f.def("certTauChecked", s ? to_string(s->tau_checked) : na);
  f.def("certTauCheckedDecimal", s ? approx_decimal(s->tau_checked) : na);
  f.def("certMaxRadius", s ? to_string(s->max_enclosure_radius) : na);
  f.def("certMaxRadiusDecimal", s ? approx_decimal(s->max_enclosure_radius) : na);
  f.def("certFlatHalfwidth", s ? to_string(s->flat_halfwidth) : na);
  f.def("certFlatHalfwidthDecimal", s ? approx_decimal(s->flat_halfwidth) : na);
  f.def("certRadiusRel", s ? rel(s->max_enclosure_radius <= s->flat_halfwidth) : std::string("?"));
  f.def("certPrecision", s ? std::to_string(s->precision) : na);
  f.def("certSequencesRefined", s ? num(s->sequences_refined) : na);
  f.def("certConditioning", "%\n" + conditioning_latex(cert.conditioning));
  f.blank();

  f.comment("Figures: \\certSnapshot{phase}{xmin}{xmax}{ymin}{ymax}{\\certSnapshotSequence{j}{coordinates 1, 2}...}");
  f.comment("(coordinates in doubles, for the figures only)");
  std::string snaps;
  for (const auto& snap : cert.snapshots) snaps += snapshot_macro(snap);
  f.def("certSnapshotList", "%\n" + snaps);
  f.flag("certHasSnapshots", !snaps.empty());
  return f.str();
}

// The layout: text, tables and figures; every value is a macro of the data file.
constexpr const char* kLayoutHead = R"TEX(% seqi verification certificate (layout). Every value is a macro defined in the data file
% \input below; this file holds no number of the run. Compile with pdflatex (twice).
\documentclass[10pt,a4paper]{article}
\usepackage[margin=2cm]{geometry}
\usepackage{amsmath,amssymb}
\usepackage{array,booktabs,longtable}
\usepackage{seqsplit}
\usepackage{xcolor}
\usepackage{needspace}
\usepackage{pgfplots}
\pgfplotsset{compat=1.16}
\newif\ifcertPassed \newif\ifcertSoftmax \newif\ifcertConstruction \newif\ifcertHasModelPath
\newif\ifcertHasNotes \newif\ifcertUserPhase \newif\ifcertHasBits \newif\ifcertHasChoices
\newif\ifcertTruncated \newif\ifcertTauUnbounded \newif\ifcertHasSnapshots
)TEX";

constexpr const char* kLayoutBody = R"TEX(
% An exact rational, breakable after every character.
\newcommand{\certExact}[1]{{\small\texttt{\expandafter\seqsplit\expandafter{#1}}}}
\newcommand{\certLemma}[1]{\texttt{#1}}
\newcommand{\certOutcome}[1]{\def\certTmp{#1}\def\certTmpOk{passed}\def\certTmpMatch{matches}%
  \ifx\certTmp\certTmpOk\textcolor{green!40!black}{#1}\else\ifx\certTmp\certTmpMatch\textcolor{green!40!black}{#1}%
  \else\textcolor{red!70!black}{\textbf{#1}}\fi\fi}
\pgfplotscreateplotcyclelist{certmarks}{%
  {black,mark=*},{red!75!black,mark=square*},{blue!75!black,mark=triangle*},{green!45!black,mark=diamond*},%
  {orange!90!black,mark=pentagon*},{violet,mark=o},{teal,mark=square},{brown,mark=triangle}}
\setlength{\LTpre}{4pt}\setlength{\LTpost}{4pt}
\pagestyle{plain}

\begin{document}
\sloppy

\begin{center}
{\LARGE\bfseries seqi verification certificate}\\[2ex]
{\Huge\bfseries\ifcertPassed\textcolor{green!40!black}{\certVerified}\else\textcolor{red!70!black}{\certVerified}\fi}\\[2ex]
{\large dataset \emph{\certDatasetName}}\\[0.5ex]
\certSetting{} attention \quad $\cdot$\quad seqi \certVersion{} \quad $\cdot$\quad \certDate
\end{center}

\paragraph{What this document claims.}
\ifcertPassed
Every required check of Section~\ref{sec:checks} passed (\certChecksPassed{} of \certChecksTotal{} checks
passed). Through the lemmas they cite, these checks establish that the transformer
\ifcertConstruction built by seqi\else read from \texttt{\certModelPath}\fi{} maps, with \certSetting{} attention%
\ifcertSoftmax{} at temperature $\tau=$ \certTauCheckedDecimal{} (exactly \certExact{\certTauChecked})\fi,
each input sequence $X_j$ onto its target $Y_j$, compared as sets, for every $j=1,\dots,\certN$ of the
dataset of Section~\ref{sec:data}.
\else
At least one required check failed (\certChecksFailedRequired{} marked FAILED in Section~\ref{sec:checks};
\certChecksPassed{} of \certChecksTotal{} checks passed). This document does \emph{not} certify that the
transformer interpolates the dataset; it records the checks that were run and their outcomes, nothing more.
\fi
The document claims nothing beyond the checks listed. Lemma labels such as \certLemma{lem:P} are the
\texttt{\textbackslash label} names of the lemmas in \texttt{proofs/construction.tex} of the seqi sources, which state
what each check establishes.

The transformer has \certBlocks{} blocks (bound \certBlocksBound{} by the theorem), width \certWidth{} and
\certParams{} stored parameters.

\section{Run}
\begin{tabular}{@{}>{\bfseries}l p{0.72\linewidth}@{}}
engine & seqi \certVersion \\
date & \certDate \\
setting & \certSetting{} attention \\
arithmetic & \certArithmetic \\
model & \ifcertConstruction built by seqi from the dataset (seed \certSeed)\else given model\ifcertHasModelPath{} \texttt{\certModelPath}\fi\fi \\
dataset file & \texttt{\certDatasetPath} \\
SHA-256 & \certExact{\certDatasetHash} \\
\end{tabular}

\section{Dataset}\label{sec:data}
Name: \emph{\certDatasetName}. $N=\certN$ sequence pairs in dimension $d=\certD$;
$\sum_j n_j=\certSumN$ input tokens with $n_j$ from \certMinN{} to \certMaxN;
$\sum_j m_j=\certSumM$ target tokens with $m_j$ from \certMinM{} to \certMaxM.
The values $n_j$ and $m_j$ are listed in Section~\ref{sec:sequences}\ifcertTruncated{} (for the first \certTableHead{}
sequences and the failing ones)\fi. The hypotheses H1--H5 (\certLemma{def:hypotheses}) are checked when the
file is read.
\ifcertHasNotes
Notes on reading:
\begin{itemize}
\certDatasetNotes
\end{itemize}
\fi

\section{Theorem versus construction}
\begin{center}
\begin{tabular}{@{}lrcl@{}}
\toprule
quantity & this transformer & & theorem (\certLemma{lem:counts}) \\
\midrule
blocks & \certBlocks & $\certBlocksRel$ &
  \ifcertSoftmax $2\sum_j m_j+3N$\else $2\sum_j m_j+2N+1$\fi${}=\certBlocksBound$ \\
width & \certWidth & $\certWidthRel$ & \certWidthBound \\
parameters (structured $A$, $V$) & \certParams & $\certParamsRel$ & $(20d+22)\sum_j m_j=\certParamsBound$ \\
parameters (dense $A$, $V$) & \certParamsDense & $\certParamsDenseRel$ & $(20d+22)\sum_j m_j=\certParamsBound$ \\
\bottomrule
\end{tabular}
\end{center}
Blocks by phase: separation \certBlocksSeparation, placement \certBlocksPlacement, interpolation
\certBlocksInterpolation\ifcertUserPhase, unlabelled (given model) \certBlocksUser\fi.
\ifcertConstruction Lifts in the separation phase: $K=\certLifts$.\fi{}
Largest rank of the low-rank parts: $A$ \certRankA, $V$ \certRankV.
The comparison above is a table of counts; the checks of Section~\ref{sec:checks} decide.

\pgfplotsset{certbars/.style={ybar, width=0.7\linewidth, height=5cm, bar width=16pt, ymin=0,
  enlarge y limits={upper, value=0.18}, /pgf/number format/1000 sep={},
  enlarge x limits=0.15, xtick=data, nodes near coords, every node near coord/.append style={font=\footnotesize},
  tick label style={font=\footnotesize}, ylabel={blocks}, title={Blocks by phase, total and theorem bound}}}
\begin{center}
\begin{tikzpicture}
\ifcertUserPhase
\begin{axis}[certbars, symbolic x coords={separation,placement,interpolation,user,total,bound}]
\addplot[fill=gray!40] coordinates {(separation,\certBlocksSeparation) (placement,\certBlocksPlacement)
  (interpolation,\certBlocksInterpolation) (user,\certBlocksUser) (total,\certBlocks) (bound,\certBlocksBound)};
\end{axis}
\else
\begin{axis}[certbars, symbolic x coords={separation,placement,interpolation,total,bound}]
\addplot[fill=gray!40] coordinates {(separation,\certBlocksSeparation) (placement,\certBlocksPlacement)
  (interpolation,\certBlocksInterpolation) (total,\certBlocks) (bound,\certBlocksBound)};
\end{axis}
\fi
\end{tikzpicture}
\end{center}

\ifcertHasBits
\newcommand{\certBits}[2]{#1 & #2 \\}
Largest coordinate size (bits of numerator plus denominator) after each phase:
\begin{center}
\begin{tabular}{@{}lr@{}}
\toprule phase & bits \\ \midrule
\certBitsList
\bottomrule
\end{tabular}
\end{center}
\fi

\ifcertHasChoices
\newcommand{\certChoice}[3]{#1 & #2 & $\pm$#3 \\}
Generic choices (seeded, seed \certSeed; each draw checked exactly):
\begin{center}
\begin{tabular}{@{}>{\raggedright}p{0.5\linewidth}rl@{}}
\toprule choice & draws & last range \\ \midrule
\certChoiceList
\bottomrule
\end{tabular}
\end{center}
\fi

\section{Checks}\label{sec:checks}
\certChecksPassed{} of \certChecksTotal{} checks passed; \certChecksFailedRequired{} required checks failed.
The lemma column gives the \texttt{\textbackslash label} in \texttt{proofs/construction.tex} that the check establishes.
{\small
\newcommand{\certCheck}[6]{#1 & #2 & \certLemma{#3} & \certOutcome{#4} & #5 & #6 \\}
\begin{longtable}{@{}r >{\raggedright}p{0.26\linewidth} >{\raggedright}p{0.13\linewidth} >{\raggedright}p{0.1\linewidth} l >{\raggedright\arraybackslash}p{0.28\linewidth}@{}}
\toprule
\# & check & lemma & outcome & required & detail \\
\midrule
\endhead
\bottomrule
\endfoot
\certCheckList
\end{longtable}
}

\section{Per-sequence verification}\label{sec:sequences}
\certSequencesMatched{} of \certN{} sequences: output set equal to the target set; \certSequencesFailing{} not.
\ifcertTruncated
With $N=\certN>\certTableLimit$ the table lists the first \certTableHead{} sequences and the failing ones
(\certSequencesShown{} rows; \certSequencesOmitted{} sequences not listed, of which \certFailingNotShown{} failing).
\fi
{\small
\ifcertSoftmax
\newcommand{\certSequence}[6]{#1 & #2 & #3 & \certOutcome{#4} & #5 & #6 \\}
\begin{longtable}{@{}rrrlr >{\raggedright\arraybackslash}p{0.42\linewidth}@{}}
\toprule
$j$ & $n_j$ & $m_j$ & outcome & $\tau$ bound of $j$ & detail \\
\midrule
\endhead
\bottomrule
\endfoot
\certSequenceList
\end{longtable}
\else
\newcommand{\certSequence}[6]{#1 & #2 & #3 & \certOutcome{#4} & #6 \\}
\begin{longtable}{@{}rrrl >{\raggedright\arraybackslash}p{0.55\linewidth}@{}}
\toprule
$j$ & $n_j$ & $m_j$ & outcome & detail \\
\midrule
\endhead
\bottomrule
\endfoot
\certSequenceList
\end{longtable}
\fi
}

\ifcertSoftmax
\section{Softmax attention}
\ifcertConstruction
\paragraph{Certified temperature (\certLemma{lem:tau-star}).}
\ifcertTauUnbounded
No sequence constrains the temperature: the collapse bound holds for every $\tau>0$.
\else
Certified lower bound $\tau^*\ge\tau_0$ with, in decimal, $\tau_0\approx{}$\certTauStarDecimal{}
and exactly $\tau_0={}$\certExact{\certTauStar} (rational lower bounds of the gaps, outward-rounded upper
bounds of the logarithms). Binding sequence: $j=$ \certTauBinding. By \certLemma{lem:tau-star} this bound
covers every temperature in $(0,\tau_0)$.
\fi
\fi
\paragraph{Enclosures at the checked temperature (\certLemma{lem:softmax-enclosure}).}
Temperature checked: $\tau=$ \certTauCheckedDecimal{} (exactly \certExact{\certTauChecked}); interval
precision \certPrecision{} bits; \certSequencesRefined{} sequences needed per-token softmax weights.
\ifcertConstruction Largest distance of a collapse enclosure from its leader's value\else Largest enclosure
half-width\fi: \certMaxRadiusDecimal{} $\certRadiusRel$ \certFlatHalfwidthDecimal{} (flat half-width).
Exact values: radius \certExact{\certMaxRadius}, flat half-width \certExact{\certFlatHalfwidth}.

\fi

\section{Conditioning}
See \texttt{proofs/conditioning.tex}. Margins a floating-point run must respect (\certLemma{lem:relative-window}):
\certConditioning

\section{Learning corollary}
Stored parameters $\hat\theta$ of this transformer: $\|\hat\theta\|^2\approx{}$\certParamNormSqDecimal{},
exactly $\|\hat\theta\|^2={}$\certExact{\certParamNormSq}.
\ifcertPassed
By \certLemma{lem:param-norm}, for every $\varepsilon>0$ and every training loss $\ell\ge0$ that vanishes on
interpolating parameters of this architecture, every global minimizer $\theta_\varepsilon$ of the Tikhonov
objective $\ell(\theta)+\varepsilon\|\theta\|^2$ satisfies
\[ \ell(\theta_\varepsilon)\le\varepsilon\,\|\hat\theta\|^2 \quad\text{and}\quad
   \|\theta_\varepsilon\|^2\le\|\hat\theta\|^2 ,\]
with $\|\hat\theta\|^2$ the exact rational above.
\else
\certLemma{lem:param-norm} needs $\ell(\hat\theta)=0$, that is, a verified interpolation; this run did not
verify it, so no bound is claimed.
\fi

\ifcertHasSnapshots
\needspace{0.4\textheight}
\section{Figures}
Tokens of the first sequences after each phase, coordinates 1 and 2 (computed in doubles, for illustration
only; one mark style per sequence).

\newcommand{\certSnapshotSequence}[2]{\addplot+[only marks, mark size=1.6pt] coordinates {#2};
  \addlegendentry{sequence #1}}
\newcommand{\certSnapshot}[6]{%
\begin{minipage}[t]{0.48\linewidth}\centering
\begin{tikzpicture}
\begin{axis}[scale only axis, width=0.78\linewidth, height=0.55\linewidth, title={#1}, cycle list name=certmarks,
  xmin=#2, xmax=#3, ymin=#4, ymax=#5, xlabel={coordinate 1}, ylabel={coordinate 2},
  tick label style={font=\tiny}, label style={font=\footnotesize}, title style={font=\small},
  legend style={font=\tiny, at={(0.5,-0.3)}, anchor=north, draw=none}, legend columns=4,
  scaled ticks=true]
#6
\end{axis}
\end{tikzpicture}\vspace{2ex}
\end{minipage}\hfill\ignorespaces}
\noindent\certSnapshotList
\fi

\end{document}
)TEX";

std::string layout_text(const std::string& data_file_name) {
  return std::string(kLayoutHead) + "\\input{" + data_file_name + "}\n" + kLayoutBody;
}

void write_file(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw InputError(path.string() + ": cannot write the certificate (" + std::strerror(errno) + ")");
  out << text;
  out.close();
  if (!out) throw InputError(path.string() + ": write error while writing the certificate");
}

// First executable `name` on PATH, or "".
std::string find_on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  if (!path) return "";
  std::string dirs(path);
  std::size_t start = 0;
  while (start <= dirs.size()) {
    const std::size_t end = std::min(dirs.find(':', start), dirs.size());
    const std::string dir = end > start ? dirs.substr(start, end - start) : ".";
    const std::string candidate = dir + "/" + name;
    if (::access(candidate.c_str(), X_OK) == 0 && !fs::is_directory(candidate)) return candidate;
    start = end + 1;
  }
  return "";
}

std::string last_lines(const fs::path& file, std::size_t count) {
  std::ifstream in(file);
  if (!in) return "(no log file " + file.string() + ")";
  std::deque<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    lines.push_back(line);
    if (lines.size() > count) lines.pop_front();
  }
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

// Runs `exe args...` in `dir` with stdin, stdout and stderr on /dev/null; returns the exit
// status (or -1 if it could not be started or was killed by a signal).
int run_in_dir(const std::string& exe, const std::vector<std::string>& args, const std::string& dir) {
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(exe.c_str()));
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    const int null = ::open("/dev/null", O_RDWR);
    if (null >= 0) {
      ::dup2(null, 0);
      ::dup2(null, 1);
      ::dup2(null, 2);
    }
    if (::chdir(dir.c_str()) != 0) ::_exit(126);
    ::execv(exe.c_str(), argv.data());
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

std::string latex_escape(const std::string& s) { return escape(s, false); }

void write_latex_certificate(const Certificate& cert, const RunInfo& run, const Dataset& data,
                             const std::string& dataset_sha256, const std::string& date, const std::string& tex_path) {
  const fs::path tex(tex_path);
  if (tex.extension() != ".tex")
    throw InputError(tex_path + ": the certificate file name must end in .tex");
  const std::string data_name = tex.stem().string() + "-data.tex";
  for (char c : data_name)
    if (std::strchr("%#{}\\ $&^~", c))
      throw InputError(tex_path + ": choose a file name without spaces or any of % # { } \\ $ & ^ ~ "
                       "(LaTeX reads it in \\input)");
  write_file(tex.parent_path() / data_name, data_file_text(cert, run, data, dataset_sha256, date));
  write_file(tex, layout_text(data_name));
}

std::string compile_pdf(const std::string& tex_path) {
  const std::string exe = find_on_path("pdflatex");
  if (exe.empty())
    return "pdflatex not found on PATH: install TeX Live (texlive-latex-base, -latex-recommended, "
           "-latex-extra, -pictures) or compile " + tex_path + " by hand";
  std::error_code ec;
  const fs::path tex = fs::absolute(tex_path, ec);
  if (ec || !fs::is_regular_file(tex)) return tex_path + ": no such file to compile";
  const std::string dir = tex.parent_path().string();
  const std::vector<std::string> args{"-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape",
                                      "-output-directory=" + dir, tex.filename().string()};
  fs::path log = tex, pdf = tex;
  log.replace_extension(".log");
  pdf.replace_extension(".pdf");
  for (int pass = 1; pass <= 2; ++pass) {
    const int rc = run_in_dir(exe, args, dir);
    if (rc != 0)
      return "pdflatex failed on " + tex.string() + " (pass " + std::to_string(pass) + ", exit status " +
             std::to_string(rc) + "); end of " + log.string() + ":\n" + last_lines(log, 25);
  }
  if (!fs::is_regular_file(pdf)) return "pdflatex reported success but wrote no " + pdf.string();
  return "";
}

}  // namespace seqi
