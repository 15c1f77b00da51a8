# Sourced by scripts/build.sh and scripts/sanitize-and-fuzz.sh: what every build of the project
# shares. Ninja when installed (it compiles the objects of every library at once; Make waits for
# each library before the next, which leaves a core idle along the chain of layers); ccache when
# installed, with paths relative to the source tree so that a fresh clone elsewhere hits the
# same cache entries.
if [ -z "${CMAKE_GENERATOR:-}" ] && command -v ninja > /dev/null; then
  export CMAKE_GENERATOR=Ninja  # used for a new build tree only; an existing one keeps its own
fi
launcher=()
if command -v ccache > /dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=true
fi
