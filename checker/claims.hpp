// The certificate's claims (docs/certificate-json.md), each recomputed and compared.
#pragma once
#include "check.hpp"

namespace check {

struct Inputs {
  std::string dataset_bytes, model_bytes;
  Dataset data;
  Model model;
  json cert;  // numbers as decimal text
};

// The claim at `where` equals `value` (counts, as decimal text); refuted names both.
void claim_equal(Report& r, const json& cert, const std::string& section, const std::string& key,
                 const Q& value);
// Hashes, dataset sizes, counts, ||theta||^2 and the theorem bounds.
void check_hashes_and_counts(Report& r, const Inputs& in);
// Every sequence's verdict in the certificate's setting; softmax: tau against tau*.
void check_verdicts(Report& r, const Inputs& in);

}  // namespace check
