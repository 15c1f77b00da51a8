// What passes between verify-mpi's processes when one of them built the lightest candidate
// construction: the bytes of a construction decode to the same model (compared through the
// independent model JSON writer) and the same record, and the decoded construction certifies
// exactly as the built one (so no field that a check reads is lost).
#include <boost/test/unit_test.hpp>

#include "seqi/certification/run_report.hpp"
#include "seqi/core/byte_codec.hpp"
#include "seqi/construction/construction_bytes.hpp"
#include "seqi/io/dataset_json.hpp"
#include "seqi/io/model_json.hpp"
#include "seqi/report/summary.hpp"
#include "build_paths.hpp"

BOOST_AUTO_TEST_SUITE(test_construction_bytes)

using namespace seqi;

namespace {

template <class T, class Same>
void check_all(const std::vector<T>& a, const std::vector<T>& b, Same same) {
  BOOST_TEST_REQUIRE(a.size() == b.size());
  for (std::size_t k = 0; k < a.size(); ++k) BOOST_TEST(same(a[k], b[k]));
}

bool same_point(const Point& p, const Point& q) { return p.size() == q.size() && (p.size() == 0 || p == q); }

}  // namespace

BOOST_AUTO_TEST_CASE(a_construction_decodes_to_what_was_built) {
  // regression/mixed-scale.json: mirrored flat hats (lem:mirrored-flat) and a scaled reading.
  for (const char* name : {"words-300.json", "shared-tokens.json", "mixed-d3.json", "single.json",
                           "regression/mixed-scale.json"}) {
    BOOST_TEST_CONTEXT(name) {
      const Dataset data = read_dataset_file(std::string(SEQI_DATASETS_DIR) + "/" + name);
      const Construction built = build_interpolating_transformer(data, 3);
      const std::string bytes = construction_to_bytes(built);
      const Construction back = construction_from_bytes(bytes);
      BOOST_TEST(model_to_json(back.model).dump() == model_to_json(built.model).dump());
      const ConstructionRecord &a = built.record, &b = back.record;
      BOOST_TEST(a.seed == b.seed);
      BOOST_TEST(a.collapse_block == b.collapse_block);
      BOOST_TEST(a.separation.lifts == b.separation.lifts);
      BOOST_TEST(a.separation.shift_used == b.separation.shift_used);
      check_all(a.choices, b.choices, [](const ChoiceLog& x, const ChoiceLog& y) {
        return x.what == y.what && x.attempts == y.attempts && x.final_range == y.final_range;
      });
      const PlacementRecord &p = a.placement, &q = b.placement;
      BOOST_TEST((p.eps == q.eps && p.C == q.C && p.r0 == q.r0 && same_point(p.reading, q.reading)));
      BOOST_TEST(p.leaders == q.leaders);
      check_all(p.placed, q.placed, [](const auto& x, const auto& y) {
        if (x.size() != y.size()) return false;
        for (std::size_t k = 0; k < x.size(); ++k)
          if (!same_point(x[k], y[k])) return false;
        return true;
      });
      BOOST_TEST((p.R == q.R && p.rho == q.rho && p.circle_t == q.circle_t));
      BOOST_TEST((p.collapse == q.collapse));
      BOOST_TEST((p.split == q.split));
      const InterpolationRecord &s = a.interpolation, &t = b.interpolation;
      BOOST_TEST((same_point(s.a, t.a) && same_point(s.v, t.v) && same_point(s.reading, t.reading)));
      BOOST_TEST((s.gap == t.gap && s.df == t.df && s.z == t.z && s.order == t.order));
      BOOST_TEST((s.runs == t.runs));
      BOOST_TEST((s.mirrored == t.mirrored));
      const RunInfo run{name, data.name, "", 3, "exact rationals (GMP)"};
      BOOST_TEST(summary_json(certify_construction_hardmax(data, back, false), run).dump() ==
                 summary_json(certify_construction_hardmax(data, built, false), run).dump());
      BOOST_CHECK_THROW(construction_from_bytes(bytes.substr(0, bytes.size() - 1)), ByteCodecError);
      BOOST_CHECK_THROW(construction_from_bytes(bytes + "x"), ByteCodecError);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
