// Test helper: assert that an expression throws InputError with a message containing a fragment.
#pragma once
#include <boost/test/unit_test.hpp>

#include <string>

#include "seqi/core/input_error.hpp"

// The message of the InputError thrown by f, or "<no error>".
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const seqi::InputError& e) {
    return e.what();
  }
  return "<no error>";
}

#define EXPECT_INPUT_ERROR(expr, fragment)                                              \
  do {                                                                                  \
    const std::string message_ = error_of([&] { (void)(expr); });                       \
    BOOST_TEST_INFO("message: " << message_);                                           \
    BOOST_TEST(message_.find(fragment) != std::string::npos, "fragment: " << fragment); \
  } while (0)
