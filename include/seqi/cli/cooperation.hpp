// How a verify run cooperates with other processes running the same command (verify-mpi).
// Every collective step is taken by all processes in the same order, and a failure on the
// process that does a step alone (reading) reaches the others as the same exception, so no
// process waits for one that has stopped. Every process builds the construction, its costliest
// steps split among them through sharding().
#pragma once
#include <functional>
#include <string>

#include "seqi/construction/construction.hpp"
#include "seqi/core/sharding.hpp"

namespace seqi {

struct RunReport;
struct RunInfo;

class Cooperation {
 public:
  virtual ~Cooperation() = default;
  // Splits the construction's costliest steps and the per-sequence certification work among
  // the processes.
  virtual const Sharding& sharding() const = 0;
  // True on the one process that prints and writes files.
  virtual bool writes_output() const = 0;
  // The first process calls read() (checks and reads the dataset); every process gets its bytes.
  // Throws InputError on every process when another process's own `path` is missing or holds
  // other bytes (a launch mistake, found before any work).
  virtual std::string dataset_text(const std::string& path, const std::function<std::string()>& read) const = 0;
  // Collective: throws unless every process arrived at the same certificate.
  virtual void check_agreement(const RunReport& report, const RunInfo& run) const = 0;
};

}  // namespace seqi
