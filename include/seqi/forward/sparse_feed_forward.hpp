// The one skeleton of every forward engine's feed-forward step (lem:sparse-ff): a layer of
// one-direction form that is the identity outside its breakpoint hull (lo, hi) touches only
// the tokens whose reading meets (lo, hi), found in the reading index; other layers touch every
// token. Runs of equal tokens (equal points have equal readings) are computed once.
#pragma once
#include <cstddef>
#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "seqi/core/chunks.hpp"
#include "seqi/forward/one_direction_ff.hpp"
#include "seqi/forward/reading_index.hpp"

namespace seqi {

struct SparseStep {
  bool sparse = false;                       // only the tokens inside (lo, hi) were touched
  bool rebuilt_index = false;                // the reading index was recomputed for this layer
  std::size_t touched = 0;                   // tokens on which the layer was computed
  std::optional<std::size_t> failed_token;   // image() declined this token; later tokens untouched
};

// Readings of tokens[at[k]] for every k, computed on `threads` threads (reading must be pure).
template <class Token, class Reading>
std::vector<std::pair<Rational, Rational>> readings_of(const std::vector<Token>& tokens,
                                                       const std::vector<std::size_t>& at, const Point& r,
                                                       Reading reading, unsigned threads) {
  std::vector<std::pair<Rational, Rational>> out(at.size());
  for_each_chunk(at.size(), threads, [&](std::size_t, std::size_t first, std::size_t last) {
    for (std::size_t k = first; k < last; ++k) out[k] = reading(tokens[at[k]], r);
  });
  return out;
}

// Makes `index` hold every token's reading along r (no work when it already does); returns
// whether it had to be rebuilt. The readings are computed on `threads` threads and entered in
// token order, so the index does not depend on the thread count.
template <class Token, class Reading>
bool index_readings(const std::vector<Token>& tokens, ReadingIndex& index, const Point& r, Reading reading,
                    unsigned threads = 1) {
  if (index.valid_for(r)) return false;
  std::vector<std::size_t> all(tokens.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  auto t = readings_of(tokens, all, r, reading, threads);
  index.reset(r, tokens.size());
  for (std::size_t i = 0; i < tokens.size(); ++i) index.set(i, std::move(t[i].first), std::move(t[i].second));
  return true;
}

// image() on touched[first, last) in order, in place; runs of equal tokens computed once.
// Returns the first position k whose image() declined (tokens from k on untouched), or last.
template <class Token, class Same, class Image>
std::size_t apply_in_order(std::vector<Token>& tokens, const std::vector<std::size_t>& touched, std::size_t first,
                           std::size_t last, Same same, Image image) {
  std::optional<Token> last_in, last_out;
  for (std::size_t k = first; k < last; ++k) {
    const std::size_t i = touched[k];
    if (!last_in || !same(*last_in, tokens[i])) {
      last_in = tokens[i];
      last_out = image(tokens[i], i);
      if (!last_out) return k;
    }
    tokens[i] = *last_out;
  }
  return last;
}

// Token ops, all pure:
//   reading(token, r) -> std::pair<Rational, Rational>   reading interval of the token along r
//   same(a, b)        -> bool                             a and b are the same token value
//   image(token, i)   -> std::optional<Token>             the layer's image (nullopt: cannot)
// Precondition: `form` is the layer's one-direction form or nullopt; image() may use
// index.reading(i) when form is set (the index is then current for form->r).
// threads > 1: image() and reading() run on that many threads over chunks of the touched tokens
// (image(token, i) must then only read shared state); the tokens, the index and the step are
// those of one thread, and an exception thrown by image() is the one one thread would throw
// (the first throwing token in the touched order). When image() declines (nullopt) with
// threads > 1, touched tokens after the failed one may already hold their image.
template <class Token, class Reading, class Same, class Image>
SparseStep apply_feed_forward_sparsely(std::vector<Token>& tokens, ReadingIndex& index,
                                       const std::optional<OneDirectionForm>& form, Reading reading, Same same,
                                       Image image, unsigned threads = 1) {
  SparseStep step;
  std::vector<std::size_t> touched;
  if (form) {
    step.rebuilt_index = index_readings(tokens, index, form->r, reading, threads);
    step.sparse = form->identity_outside;
    touched = step.sparse ? index.meeting(form->lo, form->hi) : index.all();
  } else {
    index.invalidate();
    touched.resize(tokens.size());
    for (std::size_t i = 0; i < tokens.size(); ++i) touched[i] = i;
  }
  // Each chunk runs in order; a run of equal tokens split by a chunk boundary is computed once
  // per chunk, with the same (pure) image.
  const std::size_t chunks = chunk_count(touched.size(), threads);
  std::vector<std::size_t> stopped(chunks);
  for_each_chunk(touched.size(), threads, [&](std::size_t c, std::size_t first, std::size_t last) {
    stopped[c] = apply_in_order(tokens, touched, first, last, same, image);
  });
  for (std::size_t c = 0; c < chunks; ++c)
    if (stopped[c] < chunk_range(touched.size(), chunks, c).second) {
      step.failed_token = touched[stopped[c]];
      step.touched = stopped[c];
      index.invalidate();
      return step;
    }
  step.touched = touched.size();
  if (form) {
    auto t = readings_of(tokens, touched, form->r, reading, threads);
    for (std::size_t k = 0; k < touched.size(); ++k) index.set(touched[k], std::move(t[k].first), std::move(t[k].second));
  }
  return step;
}

}  // namespace seqi
