// The main of every test driver (tests/CMakeLists.txt): each test_<x>.cpp is a suite of it.
#define BOOST_TEST_MODULE seqi
#include <boost/test/unit_test.hpp>
