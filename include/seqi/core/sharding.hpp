// Per-index work split among cooperating processes (verify-mpi), with results that do not
// depend on how many there are: part p computes a contiguous block of the indices (on its
// threads), then every part receives every slot, so all parts continue with the same values.
// No process library here: a Sharding is an interface that verify-mpi implements over MPI.
#pragma once
#include <cstddef>
#include <exception>
#include <functional>
#include <new>
#include <stdexcept>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "seqi/core/byte_codec.hpp"
#include "seqi/core/chunks.hpp"
#include "seqi/core/execution.hpp"
#include "seqi/core/input_error.hpp"
#include "seqi/core/resource_error.hpp"
#include "seqi/core/parallel.hpp"
#include "seqi/numbers/bit_limit.hpp"

namespace seqi {

class Sharding {
 public:
  virtual ~Sharding() = default;
  virtual std::size_t parts() const = 0;
  virtual std::size_t part() const = 0;  // 0 <= part() < parts()
  // Collective: every part calls it with its bytes; returns all parts' bytes in part order.
  virtual std::vector<std::string> all_gather(const std::string& mine) const = 0;
};

// The block [first, last) of [0, n) that part p of `parts` owns: blocks are contiguous,
// increase with p, cover [0, n) and differ in size by at most one.
inline std::pair<std::size_t, std::size_t> owned_range(std::size_t n, std::size_t parts, std::size_t p) {
  return chunk_range(n, parts, p);
}

// The block of [0, n) that part p owns when parts [0, first_part) keep to other work: the
// parts from first_part on split [0, n) as owned_range does, the others own nothing; with no
// more than first_part parts, owned_range(n, parts, p).
inline std::pair<std::size_t, std::size_t> owned_range_from(std::size_t n, std::size_t parts, std::size_t p,
                                                            std::size_t first_part) {
  if (parts <= first_part) return owned_range(n, parts, p);
  if (p < first_part) return {0, 0};
  return owned_range(n, parts - first_part, p - first_part);
}

// Whether exec splits work among two or more parts.
inline bool sharded(const Execution& exec) { return exec.sharding && exec.sharding->parts() > 1; }

namespace sharding_detail {

enum class Thrown : std::uint64_t { none = 0, bit_limit = 1, input = 2, other = 3, resources = 4 };

// What a part threw, as bytes: the kind and the message.
inline void put_thrown(ByteWriter& w, const std::exception_ptr& e) {
  if (!e) return w.put(std::uint64_t(Thrown::none));
  try {
    std::rethrow_exception(e);
  } catch (const BitLimitExceeded& x) {
    w.put(std::uint64_t(Thrown::bit_limit)), w.put(std::string_view(x.what()));
  } catch (const InputError& x) {
    w.put(std::uint64_t(Thrown::input)), w.put(std::string_view(x.what()));
  } catch (const std::bad_alloc&) {  // out of memory or resources: exit 3 on every part
    w.put(std::uint64_t(Thrown::resources)), w.put(std::string_view("out of memory on one of the processes"));
  } catch (const std::length_error& x) {
    w.put(std::uint64_t(Thrown::resources)), w.put(std::string_view(std::string("out of memory: ") + x.what()));
  } catch (const std::system_error& x) {
    w.put(std::uint64_t(Thrown::resources)), w.put(std::string_view(x.what()));
  } catch (const ResourceError& x) {
    w.put(std::uint64_t(Thrown::resources)), w.put(std::string_view(x.what()));
  } catch (const std::exception& x) {
    w.put(std::uint64_t(Thrown::other)), w.put(std::string_view(x.what()));
  } catch (...) {
    w.put(std::uint64_t(Thrown::other)), w.put(std::string_view("unknown exception"));
  }
}

// Rethrows (as the same kind) what a part threw, if it threw.
inline void rethrow_thrown(ByteReader& r) {
  const auto kind = static_cast<Thrown>(r.u64());
  if (kind == Thrown::none) return;
  const std::string what = r.string();
  if (kind == Thrown::bit_limit) throw BitLimitExceeded(what);
  if (kind == Thrown::input) throw InputError(what);
  if (kind == Thrown::resources) throw ResourceError(what);
  throw std::runtime_error(what);
}

}  // namespace sharding_detail

// Like for_each_index(n, exec.threads, f), across the parts of exec.sharding when there is one:
// this part calls f(j) for its owned block only, then between() (when given: other work of this
// part, done before the exchange so that it overlaps the other parts' blocks), then put(writer,
// j) writes each owned slot and get(reader, j) reads every other part's slots. If some f(j)
// throws, every part throws the exception of the smallest such j (as for_each_index does; one
// from between() counts as its part's last index), so no part waits for another.
// Exceptions cross as their kind (BitLimitExceeded, InputError; ResourceError for bad_alloc,
// length_error, system_error and ResourceError, so every part exits 3; else
// std::runtime_error) and message.
// first_part: parts [0, first_part) own no index (owned_range_from) and only run between().
// Without sharding, between() is index n of the same thread pool: the thread that finds no
// index left starts it while the others finish theirs (one thread: after them, in order).
template <class F, class Put, class Get>
void for_each_index_shared(std::size_t n, const Execution& exec, F&& f, Put&& put, Get&& get,
                           const std::function<void()>& between = {}, std::size_t first_part = 0) {
  const Sharding* sh = exec.sharding;
  if (!sharded(exec)) {
    if (!between) return for_each_index(n, exec.threads, f);
    for_each_index(n + 1, exec.threads, [&](std::size_t j) { j < n ? f(j) : between(); });
    return;
  }
  const auto [first, last] = owned_range_from(n, sh->parts(), sh->part(), first_part);
  std::exception_ptr thrown;
  try {
    for_each_index(last - first, exec.threads, [&, first = first](std::size_t k) { f(first + k); });
    if (between) between();
  } catch (...) {
    thrown = std::current_exception();
  }
  ByteWriter w;
  sharding_detail::put_thrown(w, thrown);
  if (!thrown)
    for (std::size_t j = first; j < last; ++j) put(w, j);
  const auto all = sh->all_gather(w.bytes());
  for (std::size_t p = 0; p < all.size(); ++p) {  // in part order: the smallest throwing index first
    ByteReader r(all[p]);
    sharding_detail::rethrow_thrown(r);
    if (p == sh->part()) continue;
    const auto [lo, hi] = owned_range_from(n, sh->parts(), p, first_part);
    for (std::size_t j = lo; j < hi; ++j) get(r, j);
    if (!r.done()) throw ByteCodecError("for_each_index_shared: part " + std::to_string(p) + " sent extra bytes");
  }
}

// The values compute(0), ..., compute(n - 1) in index order, the same on every part: each part
// computes its owned block (as for_each_index_shared, exceptions included), writes each owned
// value with put(writer, value) and reads every other part's with get(reader), which returns it.
// T: default-constructible and movable.
// between, first_part: as for for_each_index_shared.
template <class T, class Compute, class Put, class Get>
std::vector<T> shard_map(std::size_t n, const Execution& exec, Compute&& compute, Put&& put, Get&& get,
                         const std::function<void()>& between = {}, std::size_t first_part = 0) {
  std::vector<T> values(n);
  for_each_index_shared(
      n, exec, [&](std::size_t j) { values[j] = compute(j); }, [&](ByteWriter& w, std::size_t j) { put(w, values[j]); },
      [&](ByteReader& r, std::size_t j) { values[j] = get(r); }, between, first_part);
  return values;
}

// shard_map of exact values.
template <class Compute>
std::vector<Rational> shard_map_rational(std::size_t n, const Execution& exec, Compute&& compute) {
  return shard_map<Rational>(
      n, exec, compute, [](ByteWriter& w, const Rational& q) { w.put(q); }, [](ByteReader& r) { return r.rational(); });
}

}  // namespace seqi
