#include "float_statement/collapsed_start.hpp"

#include <algorithm>
#include <bit>

#include "seqi/core/sharding.hpp"
#include "seqi/float_statement/float_reference.hpp"
#include "seqi/model/token_state.hpp"

namespace seqi::float_run_detail {
namespace {

// Sequences per chunk: a fixed number, so that the chunks (and the order in which their
// failures and counts are met) do not depend on the processes or threads.
constexpr std::size_t kChunkSequences = 256;

// One chunk's share of CollapsedStart.
struct Chunk {
  std::vector<CollapsedStart::Format> formats;
  std::size_t input_bits = 0;
};

// The chunk of sequences [first, last): start() and the attention layer as FloatRunBound runs
// them, on these sequences' tokens alone (each sequence's bound reads only its own tokens).
Chunk bound_chunk(const Dataset& data, std::size_t first, std::size_t last, const SelfAttention<Rational>& sa,
                  Setting kind, double tau_inv, const std::optional<Point>& next,
                  const std::vector<FloatFormat>& formats) {
  TokenState inputs = inputs_of(data, first, last);
  Chunk c;
  for (const Point& x : inputs.tokens)
    for (Eigen::Index k = 0; k < x.size(); ++k) c.input_bits = std::max(c.input_bits, bit_size(x[k]));
  const std::vector<std::size_t> begin = inputs.begin;
  ExactForward pass(std::move(inputs));
  ExactReference ref(pass);
  UpwardRounding up;
  for (std::size_t f = 0; f < formats.size(); ++f) {
    // One layer of charges: block 0's attention records none (only sparse feed-forward layers do).
    Propagation run(ref, begin, static_cast<std::size_t>(data.dimension), 1, 1, formats[f], f);
    run.number_sequences_from(first);
    CollapsedStart::Format out;
    if (auto why = run.start()) {
      out.failed_layer = "input", out.failure = *why;
    } else {
      run.settle_all(0);
      if (auto failed = run.attention(sa, kind, tau_inv, next))
        out.failed_layer = "attention", out.failure = *failed;
      else
        out.kept = run.per_sequence();
      out.decisions = run.facts().decisions;
    }
    c.formats.push_back(std::move(out));
  }
  return c;
}

void put_double(ByteWriter& w, double x) { w.put(std::bit_cast<std::uint64_t>(x)); }
double get_double(ByteReader& r) { return std::bit_cast<double>(r.u64()); }

void put_chunk(ByteWriter& w, const Chunk& c) {
  w.put(std::uint64_t(c.input_bits)), w.put(std::uint64_t(c.formats.size()));
  for (const auto& f : c.formats) {
    w.put(std::uint64_t(f.decisions)), w.put(std::string_view(f.failed_layer)), w.put(std::string_view(f.failure));
    const auto& k = f.kept;
    w.put(std::uint64_t(k.weight.size()));
    for (std::size_t j = 0; j < k.weight.size(); ++j)
      w.put(std::uint64_t(k.weight[j])), w.put(std::uint64_t(k.stamp[j])), put_double(w, k.e[j]), put_double(w, k.rho[j]);
  }
}

Chunk get_chunk(ByteReader& r) {
  Chunk c;
  c.input_bits = r.size();
  c.formats.resize(r.size());
  for (auto& f : c.formats) {
    f.decisions = r.size(), f.failed_layer = r.string(), f.failure = r.string();
    auto& k = f.kept;
    const std::size_t n = r.size();
    for (std::size_t j = 0; j < n; ++j) {
      k.weight.push_back(r.size()), k.stamp.push_back(r.size());
      k.e.push_back(get_double(r)), k.rho.push_back(get_double(r));
    }
  }
  return c;
}

// Chunk c's format f appended to the whole; once failed, later chunks add nothing. An input
// failure anywhere comes first: start() reads every input before any attention layer.
void append(CollapsedStart::Format& whole, CollapsedStart::Format& part) {
  if (!whole.failed_layer.empty()) return;
  whole.decisions += part.decisions;
  if (!part.failed_layer.empty()) {
    whole.failed_layer = part.failed_layer, whole.failure = part.failure;
    return;
  }
  auto& k = whole.kept;
  k.weight.insert(k.weight.end(), part.kept.weight.begin(), part.kept.weight.end());
  k.stamp.insert(k.stamp.end(), part.kept.stamp.begin(), part.kept.stamp.end());
  k.e.insert(k.e.end(), part.kept.e.begin(), part.kept.e.end());
  k.rho.insert(k.rho.end(), part.kept.rho.begin(), part.kept.rho.end());
}

}  // namespace

CollapsedStart bound_collapsed_start(const Dataset& data, const SelfAttention<Rational>& sa, Setting kind,
                                     double tau_inv, const std::optional<Point>& next,
                                     const std::vector<FloatFormat>& formats, const Execution& exec) {
  const std::size_t n = data.pairs.size(), chunks = (n + kChunkSequences - 1) / kChunkSequences;
  std::vector<Chunk> parts = shard_map<Chunk>(
      chunks, exec,
      [&](std::size_t c) {
        return bound_chunk(data, c * kChunkSequences, std::min(n, (c + 1) * kChunkSequences), sa, kind, tau_inv, next,
                           formats);
      },
      put_chunk, get_chunk);
  CollapsedStart out;
  out.formats.resize(formats.size());
  for (const auto& p : data.pairs) out.represented += p.input.size();
  for (std::size_t f = 0; f < formats.size(); ++f) {
    for (auto& part : parts)  // input failures first, in sequence order
      if (part.formats[f].failed_layer == "input") {
        out.formats[f] = std::move(part.formats[f]);
        out.formats[f].decisions = 0;
        break;
      }
    if (out.formats[f].failed_layer.empty())
      for (auto& part : parts) append(out.formats[f], part.formats[f]);
  }
  for (const auto& part : parts) out.input_bits = std::max(out.input_bits, part.input_bits);
  return out;
}

}  // namespace seqi::float_run_detail
