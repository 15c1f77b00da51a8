#include "seqi/distributed/mpi_cooperation.hpp"

#include <mpi.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <fstream>
#include <climits>
#include <ctime>
#include <filesystem>
#include <new>

#include "seqi/io/quote_value.hpp"
#include "seqi/io/sha256.hpp"
#include "seqi/report/summary.hpp"

namespace seqi {
namespace {

constexpr std::size_t kChunk = std::size_t{1} << 30;  // MPI counts are ints

// Waits for `request`, polling at pauses that grow from 10 microseconds to a millisecond
// instead of spinning (Open MPI's blocking wait spins): a process that waits for the others
// leaves its core to them, which matters where processes share cores.
void wait_patiently(MPI_Request& request) {
  long pause_ns = 10000;
  for (int done = 0;;) {
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (done) return;
    timespec pause{0, pause_ns};
    nanosleep(&pause, nullptr);
    pause_ns = std::min(2 * pause_ns, 1000000L);
  }
}

// Broadcasts bytes (already sized on every process) in chunks below INT_MAX.
void broadcast_bytes(std::string& bytes, int root) {
  for (std::size_t at = 0; at < bytes.size(); at += kChunk) {
    MPI_Request request;
    MPI_Ibcast(bytes.data() + at, static_cast<int>(std::min(kChunk, bytes.size() - at)), MPI_CHAR, root, MPI_COMM_WORLD,
               &request);
    wait_patiently(request);
  }
}

// What process 0 threw, as a kind the other processes rethrow with the same message and
// therefore the same exit code.
enum class Kind : std::uint64_t { none, input, bit_limit, out_of_memory, other };

std::pair<Kind, std::string> kind_of(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const InputError& x) {
    return {Kind::input, x.what()};
  } catch (const BitLimitExceeded& x) {
    return {Kind::bit_limit, x.what()};
  } catch (const std::bad_alloc&) {
    return {Kind::out_of_memory, ""};
  } catch (const std::exception& x) {
    return {Kind::other, x.what()};
  } catch (...) {
    return {Kind::other, "unknown exception"};
  }
}

[[noreturn]] void throw_kind(Kind kind, const std::string& what) {
  switch (kind) {
    case Kind::input: throw InputError(what);
    case Kind::bit_limit: throw BitLimitExceeded(what);
    case Kind::out_of_memory: throw std::bad_alloc();
    default: throw std::runtime_error(what);
  }
}

// Broadcasts a word from root (patiently, as every collective step here).
std::uint64_t broadcast_word(std::uint64_t word, int root) {
  MPI_Request request;
  MPI_Ibcast(&word, 1, MPI_UINT64_T, root, MPI_COMM_WORLD, &request);
  wait_patiently(request);
  return word;
}

// Whether the file at `path` holds exactly `text` (read in blocks: no second copy in memory).
bool file_holds(const std::string& path, const std::string& text) {
  std::ifstream in(path, std::ios::binary);
  std::array<char, 1 << 16> buf{};
  std::size_t at = 0;
  while (in) {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    const auto got = static_cast<std::size_t>(in.gcount());
    if (got > text.size() - at || std::memcmp(buf.data(), text.data() + at, got) != 0) return false;
    at += got;
  }
  return !in.bad() && at == text.size();
}

// "" when this process's own `path` is a pipe or device, or a regular file holding `text`;
// otherwise what differs.
std::string dataset_difference(const std::string& path, const std::string& text) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (status.type() == fs::file_type::not_found)
    return "the dataset file " + quote_value(path, 4096) + " does not exist on the machine of process " +
           std::to_string(MpiSharding().part()) + " (process 0 read it)";
  if (ec) return "cannot access the dataset file " + quote_value(path, 4096) + " (" + ec.message() + ")";
  if (!fs::is_regular_file(status)) return "";
  if (file_holds(path, text)) return "";  // compared block by block; hashed only to say how they differ
  const std::string mine = sha256_hex_of_file(path), first = sha256_hex(text);
  if (mine == first) return "";
  return "the dataset file " + quote_value(path, 4096) + " differs from process 0's: SHA-256 " + mine + " here, " + first +
         " on process 0";
}

}  // namespace

MpiSharding::MpiSharding() {
  int size = 1, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  parts_ = static_cast<std::size_t>(size);
  part_ = static_cast<std::size_t>(rank);
}

std::string MpiSharding::broadcast(std::string bytes, std::size_t root) const {
  bytes.resize(broadcast_word(bytes.size(), static_cast<int>(root)));
  broadcast_bytes(bytes, static_cast<int>(root));
  return bytes;
}

// One broadcast per process: simple, and no int overflow of Allgatherv's counts.
std::vector<std::string> MpiSharding::all_gather(const std::string& mine) const {
  std::vector<std::string> all(parts_);
  for (std::size_t p = 0; p < parts_; ++p) all[p] = broadcast(p == part_ ? mine : std::string(), p);
  return all;
}

std::string MpiCooperation::from_first(const std::function<std::string()>& make) const {
  std::string made;
  std::exception_ptr thrown;
  if (sharding_.part() == 0) try {
      made = make();
    } catch (...) {
      thrown = std::current_exception();
    }
  const auto [kind, what] = thrown ? kind_of(thrown) : std::pair{Kind::none, std::string()};
  const auto received = static_cast<Kind>(broadcast_word(std::uint64_t(kind), 0));
  const std::string message = sharding_.broadcast(what);
  if (thrown) std::rethrow_exception(thrown);  // process 0: the original exception
  if (received != Kind::none) throw_kind(received, message);
  return sharding_.broadcast(std::move(made));
}

// Process 0 reads; every other process compares its own file at `path` with those bytes: a
// missing file or other bytes is a launch mistake, reported by every process as the same
// InputError. A pipe or device (/dev/stdin) is read by process 0 alone.
std::string MpiCooperation::dataset_text(const std::string& path, const std::function<std::string()>& read) const {
  std::string text = from_first(read);
  std::string difference;
  if (sharding_.part() != 0) try {
      difference = dataset_difference(path, text);
    } catch (const std::exception& e) {
      difference = e.what();
    }
  const auto all = sharding_.all_gather(difference);
  for (std::size_t p = 1; p < all.size(); ++p)
    if (!all[p].empty())
      throw InputError("verify-mpi process " + std::to_string(p) + ": " + all[p] +
                       ". Start every process with the same dataset, at the same path on every machine.");
  return text;
}

void MpiCooperation::check_agreement(const RunReport& report, const RunInfo& run) const {
  const auto digests = sharding_.all_gather(sha256_hex(summary_json(report, run).dump()));
  for (std::size_t p = 1; p < digests.size(); ++p)
    if (digests[p] != digests[0])
      throw std::runtime_error("process " + std::to_string(p) + " certified differently from process 0 (summary SHA-256 " +
                               digests[p] + " against " + digests[0] + ")");
}

}  // namespace seqi
