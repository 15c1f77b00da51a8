// verify-mpi's Cooperation over MPI_COMM_WORLD: process 0 reads the dataset, every process
// receives it, builds the transformer and certifies, each doing its block of the shared steps.
// Precondition: MPI is initialised; every process calls the same collective steps.
#pragma once
#include "seqi/cli/cooperation.hpp"

namespace seqi {

class MpiSharding final : public Sharding {
 public:
  MpiSharding();
  std::size_t parts() const override { return parts_; }
  std::size_t part() const override { return part_; }
  std::vector<std::string> all_gather(const std::string& mine) const override;
  // Collective: process `root`'s bytes, on every process.
  std::string broadcast(std::string bytes, std::size_t root = 0) const;

 private:
  std::size_t parts_ = 1, part_ = 0;
};

class MpiCooperation final : public Cooperation {
 public:
  const Sharding& sharding() const override { return sharding_; }
  bool writes_output() const override { return sharding_.part() == 0; }
  std::string dataset_text(const std::string& path, const std::function<std::string()>& read) const override;
  void check_agreement(const RunReport& report, const RunInfo& run) const override;

 private:
  // Process 0 calls make(); every process gets its bytes, or throws what it threw.
  std::string from_first(const std::function<std::string()>& make) const;
  MpiSharding sharding_;
};

}  // namespace seqi
