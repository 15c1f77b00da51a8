#include "seqi/io/hypotheses.hpp"
#include "seqi/core/input_error.hpp"

#include <algorithm>
#include <numeric>
#include <vector>

namespace seqi {
namespace {

using Order = std::vector<std::size_t>;  // token indices of one sequence, sorted by lex_less

// A point for a message, shortened when it is very long (large d or huge coordinates).
std::string show(const Point& p) {
  std::string s = to_string(p);
  constexpr std::size_t kMax = 120;
  if (s.size() > kMax) s = s.substr(0, kMax) + "...)";
  return s;
}

Order sorted_order(const TokenSequence& seq) {
  Order order(seq.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  // Stable: among equal tokens the earlier index comes first.
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return compare_tokens(seq, a, seq, b) < 0; });
  return order;
}

// H1 / H2: after sorting, equal tokens are adjacent. Reports the repeat that appears
// earliest in the sequence (smallest second index), with the index it repeats.
void check_distinct(const TokenSequence& seq, const Order& order, std::size_t pair, bool output,
                    const std::string& source) {
  std::size_t best_first = 0, best_second = seq.size();
  std::size_t run_start = 0;  // order[run_start] is the first occurrence (stable sort)
  for (std::size_t k = 1; k < order.size(); ++k) {
    if (compare_tokens(seq, order[k - 1], seq, order[k]) != 0) {
      run_start = k;
      continue;
    }
    if (order[k] < best_second) best_first = order[run_start], best_second = order[k];
  }
  if (best_second == seq.size()) return;
  const char* which = output ? "output" : "input";
  throw_input_error(source, "pair " + std::to_string(pair + 1) + ": " + which + " tokens " +
                   std::to_string(best_first + 1) + " and " + std::to_string(best_second + 1) +
                   " are equal " + show(seq[best_first]) + "; " + (output ? "H2" : "H1") +
                   " needs the tokens of each " + which +
                   " sequence to be pairwise distinct (sequences are sets). Remove the repeated token.");
}

// Three-way comparison of two token sets given their sorted orders.
int compare_sets(const TokenSequence& a, const Order& oa, const TokenSequence& b, const Order& ob) {
  if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
  for (std::size_t k = 0; k < a.size(); ++k)
    if (const int c = compare_tokens(a, oa[k], b, ob[k]); c != 0) return c;
  return 0;
}

std::string list_pairs(const std::vector<std::size_t>& pairs) {
  constexpr std::size_t kShown = 10;
  std::string s;
  for (std::size_t k = 0; k < pairs.size() && k < kShown; ++k) {
    if (k) s += ", ";
    s += std::to_string(pairs[k] + 1);
  }
  if (pairs.size() > kShown) s += " and " + std::to_string(pairs.size() - kShown) + " more";
  return s;
}

}  // namespace

namespace detail {

std::string token_place(std::size_t pair, bool output, std::size_t token) {
  return "pair " + std::to_string(pair + 1) + ", " + (output ? "output" : "input") + " token " +
         std::to_string(token + 1);
}

void check_dimension_value(long long d, const std::string& source) {
  if (d >= 2) return;
  throw_input_error(source, "\"dimension\" is " + std::to_string(d) +
                   ", but the theorem needs d >= 2 (H4). Embed the tokens in dimension 2 or more, "
                   "e.g. append a coordinate 0 to every token and set \"dimension\" accordingly.");
}

void check_token_size(std::size_t got, int d, std::size_t pair, bool output, std::size_t token,
                      const std::string& source) {
  if (got == static_cast<std::size_t>(d)) return;
  throw_input_error(source, token_place(pair, output, token) + " has the wrong dimension: expected " +
                   std::to_string(d) + " coordinates (\"dimension\": " + std::to_string(d) +
                   "), got " + std::to_string(got) +
                   ". Give every token exactly \"dimension\" coordinates.");
}

}  // namespace detail

void check_hypotheses(Dataset& data, const std::string& source) {
  detail::check_dimension_value(data.dimension, source);
  if (data.pairs.empty())
    throw_input_error(source, "\"pairs\" is empty; a dataset needs at least one input/output pair. "
                 "Add pairs of the form {\"input\": [[...], ...], \"output\": [[...], ...]}.");

  // Per pair: non-empty sequences, dimensions, H1, H2, H5. Keep the sorted orders for H3.
  std::vector<Order> in_order(data.pairs.size()), out_order(data.pairs.size());
  for (std::size_t j = 0; j < data.pairs.size(); ++j) {
    const SequencePair& p = data.pairs[j];
    const std::string pair = "pair " + std::to_string(j + 1);
    if (p.input.empty())
      throw_input_error(source, pair + ": the input sequence is empty; every input needs n >= 1 tokens. "
                          "Add tokens or remove the pair.");
    if (p.output.empty())
      throw_input_error(source, pair + ": the output sequence is empty; every output needs m >= 1 tokens "
                          "(1 <= m <= n). Add target tokens or remove the pair.");
    for (std::size_t t = 0; t < p.input.size(); ++t)
      detail::check_token_size(static_cast<std::size_t>(p.input.dimension(t)), data.dimension, j,
                               false, t, source);
    for (std::size_t t = 0; t < p.output.size(); ++t)
      detail::check_token_size(static_cast<std::size_t>(p.output[t].size()), data.dimension, j,
                               true, t, source);
    in_order[j] = sorted_order(p.input);
    check_distinct(p.input, in_order[j], j, false, source);
    out_order[j] = sorted_order(p.output);
    check_distinct(p.output, out_order[j], j, true, source);
    if (p.output.size() > p.input.size())
      throw_input_error(source, pair + " has m = " + std::to_string(p.output.size()) +
                       " output tokens but only n = " + std::to_string(p.input.size()) +
                       " input tokens; H5 needs m <= n. Remove output tokens or add input tokens.");
  }

  // H3: sort the pairs by input set; equal input sets become adjacent, earliest pair first.
  std::vector<std::size_t> by_input(data.pairs.size());
  std::iota(by_input.begin(), by_input.end(), std::size_t{0});
  auto input_cmp = [&](std::size_t a, std::size_t b) {
    return compare_sets(data.pairs[a].input, in_order[a], data.pairs[b].input, in_order[b]);
  };
  std::stable_sort(by_input.begin(), by_input.end(),
                   [&](std::size_t a, std::size_t b) { return input_cmp(a, b) < 0; });

  std::vector<bool> drop(data.pairs.size(), false);
  for (std::size_t start = 0; start < by_input.size();) {
    std::size_t end = start + 1;
    while (end < by_input.size() && input_cmp(by_input[start], by_input[end]) == 0) ++end;
    const std::size_t keep = by_input[start];
    std::vector<std::size_t> merged;
    for (std::size_t k = start + 1; k < end; ++k) {
      const std::size_t other = by_input[k];
      if (compare_sets(data.pairs[keep].output, out_order[keep], data.pairs[other].output,
                       out_order[other]) != 0)
        throw_input_error(source, "pairs " + std::to_string(keep + 1) + " and " + std::to_string(other + 1) +
                         " have the same input set but different output sets (H3): no "
                         "permutation-equivariant map can send equal inputs to different outputs. "
                         "Remove one of the two pairs or make their outputs agree.");
      drop[other] = true;
      merged.push_back(other);
    }
    if (!merged.empty()) {
      std::sort(merged.begin(), merged.end());
      data.notes.push_back("pair" + std::string(merged.size() > 1 ? "s " : " ") + list_pairs(merged) +
                           (merged.size() > 1 ? " repeat" : " repeats") + " pair " +
                           std::to_string(keep + 1) +
                           " (equal input sets and equal output sets); merged into pair " +
                           std::to_string(keep + 1) + " (H3 deduplication)");
    }
    start = end;
  }
  if (std::find(drop.begin(), drop.end(), true) != drop.end()) {
    std::vector<SequencePair> kept;
    kept.reserve(data.pairs.size());
    for (std::size_t j = 0; j < data.pairs.size(); ++j)
      if (!drop[j]) kept.push_back(std::move(data.pairs[j]));
    data.pairs = std::move(kept);
  }
}

}  // namespace seqi
