// The rounding contract (seqi/numbers/upward.hpp): a bound that requires upward rounding checks
// the FPU's mode on entry in checked builds (debug, sanitizers) and refuses to run otherwise.
#include <boost/test/unit_test.hpp>

#include <cfenv>
#include <cmath>
#include <stdexcept>
#include <string>

#include "seqi/float_statement/score_enclosure.hpp"
#include "seqi/numbers/upward.hpp"

BOOST_AUTO_TEST_SUITE(test_rounding_contract)

using namespace seqi;

BOOST_AUTO_TEST_CASE(require_upward_rounding_names_the_caller_unless_the_mode_is_upward) {
  BOOST_REQUIRE(std::fegetround() == FE_TONEAREST);
  try {
    require_upward_rounding("a bound");
    BOOST_FAIL("no exception under round to nearest");
  } catch (const std::logic_error& e) {
    BOOST_TEST(std::string(e.what()).find("a bound requires upward rounding") == 0u, e.what());
  }
  {
    UpwardRounding up;
    BOOST_TEST(std::fegetround() == FE_UPWARD);
    BOOST_CHECK_NO_THROW(require_upward_rounding("a bound"));
  }
  BOOST_TEST(std::fegetround() == FE_TONEAREST);  // restored
}

// A bound called outside UpwardRounding: refused in checked builds; in release builds the check
// is compiled out (kRoundingChecked), so the call returns, and the contract rests on the callers.
BOOST_AUTO_TEST_CASE(bounds_refuse_to_run_in_the_wrong_mode_in_checked_builds) {
  const Rational q(1, 3);
  const MidRad a[2] = {{1, 0}, {2, 0}}, x[2] = {{3, 0}, {4, 0}};
  if (kRoundingChecked) {
    BOOST_CHECK_THROW(mid_rad(q), std::logic_error);
    BOOST_CHECK_THROW(gamma_up(3), std::logic_error);
    BOOST_CHECK_THROW(lower_difference(1.0, 0.5), std::logic_error);
    BOOST_CHECK_THROW(enclose_score(a, x, 2), std::logic_error);
  } else {
    BOOST_CHECK_NO_THROW(mid_rad(q));
  }
  UpwardRounding up;
  const MidRad m = mid_rad(q);
  BOOST_TEST(m.rad > 0);
  BOOST_TEST(std::abs(m.mid - 1.0 / 3) <= m.rad);
  BOOST_CHECK_NO_THROW(enclose_score(a, x, 2));
}

BOOST_AUTO_TEST_SUITE_END()
