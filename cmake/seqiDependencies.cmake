# The external packages of seqi's libraries; shared by the build and by the installed
# package config (find_package(seqi) re-finds them for the exported static libraries).
include(CMakeFindDependencyMacro)
find_package(PkgConfig REQUIRED)
pkg_check_modules(GMP REQUIRED IMPORTED_TARGET gmp)
pkg_check_modules(MPFR REQUIRED IMPORTED_TARGET mpfr)
pkg_check_modules(NETTLE REQUIRED IMPORTED_TARGET nettle)
find_package(MPFI REQUIRED)
find_package(Eigen3 3.3 REQUIRED NO_MODULE)
find_package(Boost 1.74 REQUIRED)
find_package(ZLIB REQUIRED)
find_package(nlohmann_json 3 REQUIRED)
