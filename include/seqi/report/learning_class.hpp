// The class of transformers the learning corollary's line speaks of (lem:param-norm): the
// architecture of the certified transformer, stated so that a reader can tell which students
// it bounds.
#pragma once
#include <string>

#include "seqi/certification/certificate.hpp"

namespace seqi {

// "L blocks, feed-forward width W, stored ranks of A and V at most a and v, hardmax attention"
// (or "softmax attention at tau = t"), with what a deeper or wider student adds.
std::string learning_class(const Certificate& cert);

}  // namespace seqi
