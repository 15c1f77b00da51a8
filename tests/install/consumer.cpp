// Builds a transformer for a two-sequence dataset and certifies it through the installed
// headers and libraries; exits 0 only if the certificate is verified.
#include <iostream>

#include "seqi/certification/run_report.hpp"
#include "seqi/io/dataset_json.hpp"

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const seqi::Dataset data = seqi::read_dataset_file(argv[1]);
  const auto built = seqi::build_interpolating_transformer(data, 1);
  const auto cert = seqi::certify_construction_hardmax(data, built, false).certificate;
  std::cout << "blocks " << cert.counts.blocks << (cert.verified ? " verified\n" : " NOT verified\n");
  return cert.verified ? 0 : 1;
}
