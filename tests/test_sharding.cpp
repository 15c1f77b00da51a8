// Sequences split among cooperating parts (seqi/core/sharding.hpp, what verify-mpi does over
// MPI), here with the parts as threads of one process: every part's certificate equals the
// certificate of one part alone, and a failure in any part reaches every part.
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <barrier>
#include <chrono>
#include <cstdint>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include "seqi/certification/run_report.hpp"
#include "seqi/construction/construction_bytes.hpp"
#include "seqi/core/sharding.hpp"
#include "seqi/io/dataset_json.hpp"
#include "seqi/numbers/thread_caches.hpp"
#include "seqi/report/summary.hpp"
#include "build_paths.hpp"
#include "thread_sharding.hpp"

BOOST_AUTO_TEST_SUITE(test_sharding)

using namespace seqi;
using namespace seqi_test;

namespace {

// What each of `count` parts throws from a shared loop over n indices (on `threads` threads)
// whose index j runs body(j): "resources: ", "bit limit: " or "other: " and the message, or
// "no exception".
template <class Body>
std::vector<std::string> thrown_on_parts(std::size_t count, std::size_t n, unsigned threads, Body body) {
  return on_parts(count, [&](const Sharding& s) -> std::string {
    std::vector<std::uint64_t> slot(n, 0);
    try {
      for_each_index_shared(
          n, Execution{nullptr, threads, &s}, [&](std::size_t j) { slot[j] = body(j); },
          [&](ByteWriter& w, std::size_t j) { w.put(slot[j]); }, [&](ByteReader& r, std::size_t j) { slot[j] = r.u64(); });
    } catch (const ResourceError& e) {
      return std::string("resources: ") + e.what();
    } catch (const BitLimitExceeded& e) {
      return std::string("bit limit: ") + e.what();
    } catch (const std::exception& e) {
      return std::string("other: ") + e.what();
    }
    return "no exception";
  });
}

std::string certificate_json(const Dataset& data, const Construction& built, bool softmax, const Sharding* sharding) {
  const Execution exec{nullptr, 1, sharding};
  const RunReport report = softmax ? certify_construction_softmax(data, built, {}, exec)
                                   : certify_construction_hardmax(data, built, false, exec);
  return summary_json(report, RunInfo{"d.json", data.name, "", 1, "exact"}).dump();
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_part_certifies_what_one_part_alone_certifies) {
  for (const char* name : {"words-300.json", "shared-tokens.json", "mixed-d3.json", "single.json", "tiny-d2.json"}) {
    const Dataset data = read_dataset_file(std::string(SEQI_DATASETS_DIR) + "/" + name);
    const Construction built = build_interpolating_transformer(data, 1);
    for (bool softmax : {false, true}) {
      const std::string alone = certificate_json(data, built, softmax, nullptr);
      BOOST_TEST(alone.find("\"verified\":true") != std::string::npos, name);
      for (std::size_t count : {2, 3}) {
        const auto results = on_parts(count, [&](const Sharding& s) { return certificate_json(data, built, softmax, &s); });
        for (std::size_t p = 0; p < count; ++p)
          BOOST_TEST(results[p] == alone, name << (softmax ? " softmax" : " exact") << ", part " << p << " of " << count);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(every_part_builds_what_one_part_alone_builds) {
  std::size_t mean_collapses = 0;
  for (const char* name : {"words-300.json", "shared-tokens.json", "mixed-d3.json", "single.json", "tiny-d2.json",
                           "regression/mixed-scale.json"}) {
    const Dataset data = read_dataset_file(std::string(SEQI_DATASETS_DIR) + "/" + name);
    const Construction built = build_interpolating_transformer(data, 1);
    mean_collapses += built.record.mean_collapse;
    const std::string alone = construction_to_bytes(built);
    for (std::size_t count : {2, 3}) {
      const auto results = on_parts(count, [&](const Sharding& s) {
        return construction_to_bytes(build_interpolating_transformer(data, 1, Execution{nullptr, 1, &s}));
      });
      for (std::size_t p = 0; p < count; ++p)
        BOOST_TEST((results[p] == alone), name << ", part " << p << " of " << count);
    }
  }
  BOOST_TEST(mean_collapses > 0u);  // the candidates built on distinct parts, the lightest sent to the others
}

// Every m_j = 1 and the means 1e-6 apart while the tokens are far apart: the leaders are lighter
// than the mean collapse. Under sharding process 0 builds them alone and sends their bytes.
BOOST_AUTO_TEST_CASE(leaders_kept_beside_the_mean_collapse_reach_every_part) {
  const Dataset data = parse_dataset_json(R"({"name": "near means", "dimension": 2, "pairs": [
    {"input": [["0","0"],["2","0"]], "output": [["1","1"]]},
    {"input": [["1","5"],["1","-4999999/1000000"]], "output": [["-1","1"]]},
    {"input": [["5","5"],["7","1"]], "output": [["1","-1"]]}]})", "near-means.json");
  const Construction built = build_interpolating_transformer(data, 1);
  BOOST_TEST(!built.record.mean_collapse);
  BOOST_TEST(built.record.choices.back().what.starts_with("construction by least ||theta||^2: leaders"));
  const std::string alone = construction_to_bytes(built);
  for (std::size_t count : {2, 3}) {
    const auto results = on_parts(count, [&](const Sharding& s) {
      return construction_to_bytes(build_interpolating_transformer(data, 1, Execution{nullptr, 1, &s}));
    });
    for (std::size_t p = 0; p < count; ++p) BOOST_TEST((results[p] == alone), "part " << p << " of " << count);
  }
}

// Out of memory on one part is a resource failure on every part (exit 3), not an internal error.
BOOST_AUTO_TEST_CASE(out_of_memory_on_one_part_is_a_resource_failure_on_every_part) {
  const auto results = thrown_on_parts(2, 8, 1, [](std::size_t j) -> std::uint64_t {
    if (j == 5) throw std::bad_alloc();
    return j;
  });
  for (const auto& r : results) BOOST_TEST(r == "resources: out of memory on one of the processes");
}

BOOST_AUTO_TEST_CASE(the_smallest_failing_index_fails_every_part) {
  // 12 indices on 3 parts: blocks [0,4), [4,8), [8,12). Index 6 (part 1) and 9 (part 2) fail.
  const auto results = thrown_on_parts(3, 12, 2, [](std::size_t j) -> std::uint64_t {
    if (j == 6) throw BitLimitExceeded("index 6 is too large");
    if (j == 9) throw InputError("index 9 is bad");
    return j * j;
  });
  for (const auto& r : results) BOOST_TEST(r == "bit limit: index 6 is too large");
  // Without failures every part ends with every slot.
  const auto sums = on_parts(3, [](const Sharding& s) {
    std::vector<std::uint64_t> slot(10, 0);
    for_each_index_shared(
        10, Execution{nullptr, 1, &s}, [&](std::size_t j) { slot[j] = j * j + 1; },
        [&](ByteWriter& w, std::size_t j) { w.put(slot[j]); }, [&](ByteReader& r, std::size_t j) { slot[j] = r.u64(); });
    std::uint64_t sum = 0;
    for (auto v : slot) sum += v;
    return std::to_string(sum);
  });
  for (const auto& s : sums) BOOST_TEST(s == "295");  // sum of j^2 + 1 for j < 10: 285 + 10
}

// The exact value of index j in shard_map's tests: distinct for every j.
Rational value_of(std::size_t j) { return Rational(static_cast<long>(j * j) + 1, static_cast<long>(j) + 3); }

std::string values_text(const std::vector<Rational>& values) {
  std::string text;
  for (const auto& v : values) text += v.str() + " ";
  return text;
}

// shard_map of value_of over n indices on the parts of `s` (none: unsharded), on `threads` threads.
std::string mapped_values(std::size_t n, const Sharding* s, unsigned threads, std::size_t failing = SIZE_MAX) {
  try {
    const auto values = shard_map<Rational>(
        n, Execution{nullptr, threads, s},
        [&](std::size_t j) {
          if (j >= failing) throw InputError("index " + std::to_string(j) + " fails");
          return value_of(j);
        },
        [](ByteWriter& w, const Rational& q) { w.put(q); }, [](ByteReader& r) { return r.rational(); });
    return values_text(values);
  } catch (const InputError& e) {
    return std::string("input error: ") + e.what();
  }
}

BOOST_AUTO_TEST_CASE(shard_map_gives_every_part_the_unsharded_values) {
  std::vector<Rational> expected;
  for (std::size_t j = 0; j < 11; ++j) expected.push_back(value_of(j));
  BOOST_TEST(mapped_values(11, nullptr, 1) == values_text(expected));
  BOOST_TEST(mapped_values(11, nullptr, 1).starts_with("1/3 1/2 1 5/3 "));  // (j^2 + 1) / (j + 3), reduced
  for (std::size_t count : {2, 3})
    for (unsigned threads : {1u, 2u})
      for (std::size_t n : {0, 1, 2, 11}) {
        const std::vector<Rational> head(expected.begin(), expected.begin() + static_cast<std::ptrdiff_t>(n));
        const auto results = on_parts(count, [&](const Sharding& s) { return mapped_values(n, &s, threads); });
        for (std::size_t p = 0; p < count; ++p)
          BOOST_TEST(results[p] == values_text(head), "n " << n << ", part " << p << " of " << count);
      }
}

BOOST_AUTO_TEST_CASE(shard_map_fails_every_part_at_the_smallest_failing_index) {
  // 11 indices on 3 parts: blocks [0,4), [4,8), [8,11); indices from 5 on fail (parts 1 and 2).
  const auto results = on_parts(3, [](const Sharding& s) { return mapped_values(11, &s, 2, 5); });
  for (const auto& r : results) BOOST_TEST(r == "input error: index 5 fails");
  BOOST_TEST(mapped_values(11, nullptr, 2, 5) == "input error: index 5 fails");
}

// between() runs on every part before the values are exchanged, and the values are then those of
// one part alone; what it throws reaches every part, as a failure of that part's last index would.
BOOST_AUTO_TEST_CASE(between_runs_after_the_own_block_and_its_failure_fails_every_part) {
  for (std::size_t count : {1, 2, 3}) {
    const auto seen = on_parts(count, [&](const Sharding& s) {
      std::vector<Rational> values;
      std::string at_between;
      values = shard_map<Rational>(
          7, Execution{nullptr, 1, &s}, [](std::size_t j) { return value_of(j); },
          [](ByteWriter& w, const Rational& q) { w.put(q); }, [](ByteReader& r) { return r.rational(); },
          [&] {
            const auto [first, last] = owned_range(7, s.parts(), s.part());
            at_between = std::to_string(last - first) + " own";
          });
      return at_between + ", then " + values_text(values);
    });
    for (std::size_t p = 0; p < count; ++p) {
      const auto [first, last] = owned_range(7, count, p);
      BOOST_TEST(seen[p] == std::to_string(last - first) + " own, then " + mapped_values(7, nullptr, 1),
                 "part " << p << " of " << count);
    }
  }
  const auto failed = on_parts(3, [](const Sharding& s) -> std::string {
    try {
      shard_map<Rational>(
          7, Execution{nullptr, 1, &s}, [](std::size_t j) { return value_of(j); },
          [](ByteWriter& w, const Rational& q) { w.put(q); }, [](ByteReader& r) { return r.rational(); },
          [&] {
            if (s.part() == 1) throw InputError("part 1 fails between");
          });
    } catch (const InputError& e) {
      return e.what();
    }
    return "no exception";
  });
  for (const auto& r : failed) BOOST_TEST(r == "part 1 fails between");
}

// With first_part = 1, part 0 owns no index and only runs between(); the others split the
// indices; every part ends with the values of one part alone. With one part, it owns them all.
BOOST_AUTO_TEST_CASE(first_part_keeps_part_zero_to_between) {
  BOOST_TEST((owned_range_from(7, 1, 0, 1) == std::pair<std::size_t, std::size_t>{0, 7}));
  BOOST_TEST((owned_range_from(7, 3, 0, 1) == std::pair<std::size_t, std::size_t>{0, 0}));
  BOOST_TEST((owned_range_from(7, 3, 1, 1) == std::pair<std::size_t, std::size_t>{0, 4}));
  BOOST_TEST((owned_range_from(7, 3, 2, 1) == std::pair<std::size_t, std::size_t>{4, 7}));
  for (std::size_t count : {1, 2, 3}) {
    const auto seen = on_parts(count, [&](const Sharding& s) {
      std::size_t computed = 0;
      bool between_ran = false;
      const auto values = shard_map<Rational>(
          7, Execution{nullptr, 1, &s},
          [&](std::size_t j) {
            ++computed;
            return value_of(j);
          },
          [](ByteWriter& w, const Rational& q) { w.put(q); }, [](ByteReader& r) { return r.rational(); },
          [&] { between_ran = true; }, 1);
      return std::to_string(computed) + (between_ran ? " and between, then " : ", then ") + values_text(values);
    });
    for (std::size_t p = 0; p < count; ++p) {
      const std::size_t own = count == 1 ? 7 : p == 0 ? 0 : count == 2 ? 7 : p == 1 ? 4 : 3;
      BOOST_TEST(seen[p] == std::to_string(own) + " and between, then " + mapped_values(7, nullptr, 1),
                 "part " << p << " of " << count);
    }
  }
}

// Without sharding, between() is the pool's last index: with two threads it starts while an index
// is still running (index 0 here waits for it; run after the indices, it would never start), with
// one thread after every index; a failure of an index wins over one of between(), as a smaller
// index would.
BOOST_AUTO_TEST_CASE(unsharded_between_overlaps_the_last_indices) {
  std::atomic<bool> started{false};
  bool waited_for_between = false;
  std::vector<int> done(2, 0);
  for_each_index_shared(
      2, Execution{nullptr, 2, nullptr},
      [&](std::size_t j) {
        if (j == 0) {
          const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
          while (!started && std::chrono::steady_clock::now() < until) std::this_thread::yield();
          waited_for_between = started;
        }
        done[j] = 1;
      },
      [](ByteWriter&, std::size_t) {}, [](ByteReader&, std::size_t) {}, [&] { started = true; });
  BOOST_TEST(waited_for_between);
  BOOST_TEST((done == std::vector<int>{1, 1}));
  std::string order;
  for_each_index_shared(
      3, Execution{nullptr, 1, nullptr}, [&](std::size_t j) { order += std::to_string(j); },
      [](ByteWriter&, std::size_t) {}, [](ByteReader&, std::size_t) {}, [&] { order += "b"; });
  BOOST_TEST(order == "012b");
  for (unsigned threads : {1u, 2u}) {
    std::string what;
    try {
      for_each_index_shared(
          3, Execution{nullptr, threads, nullptr},
          [&](std::size_t j) {
            if (j == 2) throw InputError("index 2 fails");
          },
          [](ByteWriter&, std::size_t) {}, [](ByteReader&, std::size_t) {},
          [&] { throw InputError("between fails"); });
    } catch (const InputError& e) {
      what = e.what();
    }
    BOOST_TEST(what == "index 2 fails", "threads " << threads);
  }
}

BOOST_AUTO_TEST_SUITE_END()
