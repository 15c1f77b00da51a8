// verify-mpi: `mpirun -np R verify-mpi [verify's arguments]`. Process 0 prints and writes
// every output, exactly as verify would; the other processes print nothing unless they fail.
#include <mpi.h>

#include <cstdio>
#include <exception>
#include <iostream>
#include <sstream>
#include <string>

#include "seqi/cli/run.hpp"
#include "seqi/distributed/launch_check.hpp"
#include "seqi/distributed/mpi_cooperation.hpp"

namespace {

int rank_of_world() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

// Ends every process of the job (no process is left waiting in a collective step).
[[noreturn]] void abort_job(const std::string& why, int code) {
  std::fprintf(stderr, "verify-mpi: process %d: %s; ending every process\n", rank_of_world(), why.c_str());
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);
}

// The verify command on every process; returns its exit code.
int run(int argc, char** argv) {
  // Before anything else: processes started with different arguments would take different
  // collective steps.
  if (const std::string why = seqi::launch_mismatch({argv + 1, argv + argc}); !why.empty()) {
    std::cerr << "verify-mpi: bad usage: " << why << "\n";
    return seqi::kBadInput;
  }
  if (argc >= 2 && std::string(argv[1]) == "import") {
    std::cerr << "verify-mpi: import runs on one machine; use `verify import ...`\n";
    return seqi::kBadInput;
  }
  for (int k = 1; k < argc; ++k)
    if (std::string(argv[k]).starts_with("--model") && !std::string(argv[k]).starts_with("--model-")) {
      std::cerr << "verify-mpi: --model is certified on one machine; use `verify --model ...`\n";
      return seqi::kBadInput;
    }
  const seqi::MpiCooperation coop;
  return seqi::verify_main(argc, argv, &coop);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  std::set_terminate([] { abort_job("terminated", 70); });
  const int rank = rank_of_world();
  // Processes other than 0 keep what they would print, shown only if they fail alone.
  std::ostringstream kept_out, kept_err;
  std::streambuf* const out_buf = std::cout.rdbuf();
  std::streambuf* const err_buf = std::cerr.rdbuf();
  if (rank != 0) {
    std::cout.rdbuf(kept_out.rdbuf());
    std::cerr.rdbuf(kept_err.rdbuf());
  }
  int code = 0;
  try {
    code = run(argc, argv);
  } catch (const std::exception& e) {  // an internal error, on every process or on this one
    abort_job(std::string("internal error: ") + e.what(), 70);
  }
  if (code == seqi::kOutOfMemory)  // possibly this process alone: the others may be waiting for it
    abort_job("out of memory" + (rank != 0 ? ": " + kept_err.str() : std::string()), code);
  std::cout.flush();
  std::cerr.flush();
  std::cout.rdbuf(out_buf);
  std::cerr.rdbuf(err_buf);
  MPI_Barrier(MPI_COMM_WORLD);  // process 0 has written everything before any process ends
  MPI_Finalize();
  return code;
}
