// The one skeleton of every forward engine's feed-forward step (lem:sparse-ff): a layer of
// one-direction form that is the identity outside its breakpoint hull (lo, hi) touches only
// the tokens whose reading meets (lo, hi), found in the reading index; other layers touch every
// token. Runs of equal tokens (equal points have equal readings) are computed once.
#pragma once
#include <cstddef>
#include <optional>
#include <vector>

#include "seqi/forward/one_direction_ff.hpp"
#include "seqi/forward/reading_index.hpp"

namespace seqi {

struct SparseStep {
  bool sparse = false;                       // only the tokens inside (lo, hi) were touched
  bool rebuilt_index = false;                // the reading index was recomputed for this layer
  std::size_t touched = 0;                   // tokens on which the layer was computed
  std::optional<std::size_t> failed_token;   // image() declined this token; later tokens untouched
};

// Makes `index` hold every token's reading along r (no work when it already does); returns
// whether it had to be rebuilt.
template <class Token, class Reading>
bool index_readings(const std::vector<Token>& tokens, ReadingIndex& index, const Point& r, Reading reading) {
  if (index.valid_for(r)) return false;
  index.reset(r, tokens.size());
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const auto [lo, hi] = reading(tokens[i], r);
    index.set(i, lo, hi);
  }
  return true;
}

// Token ops, all pure:
//   reading(token, r) -> std::pair<Rational, Rational>   reading interval of the token along r
//   same(a, b)        -> bool                             a and b are the same token value
//   image(token, i)   -> std::optional<Token>             the layer's image (nullopt: cannot)
// Precondition: `form` is the layer's one-direction form or nullopt; image() may use
// index.reading(i) when form is set (the index is then current for form->r).
template <class Token, class Reading, class Same, class Image>
SparseStep apply_feed_forward_sparsely(std::vector<Token>& tokens, ReadingIndex& index,
                                       const std::optional<OneDirectionForm>& form, Reading reading, Same same,
                                       Image image) {
  SparseStep step;
  std::vector<std::size_t> touched;
  if (form) {
    step.rebuilt_index = index_readings(tokens, index, form->r, reading);
    step.sparse = form->identity_outside;
    touched = step.sparse ? index.meeting(form->lo, form->hi) : index.all();
  } else {
    index.invalidate();
    touched.resize(tokens.size());
    for (std::size_t i = 0; i < tokens.size(); ++i) touched[i] = i;
  }
  std::optional<Token> last_in, last_out;
  for (std::size_t i : touched) {
    if (!last_in || !same(*last_in, tokens[i])) {
      last_in = tokens[i];
      last_out = image(tokens[i], i);
      if (!last_out) {
        step.failed_token = i;
        index.invalidate();
        return step;
      }
    }
    tokens[i] = *last_out;
    ++step.touched;
  }
  if (form)
    for (std::size_t i : touched) {
      const auto [lo, hi] = reading(tokens[i], form->r);
      index.set(i, lo, hi);
    }
  return step;
}

}  // namespace seqi
