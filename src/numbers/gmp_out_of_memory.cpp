#include "seqi/numbers/gmp_out_of_memory.hpp"

#include <gmp.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

namespace seqi {
namespace {

// GMP's allocation functions are plain function pointers, so the program name and exit code
// live here; they are set once by exit_on_gmp_out_of_memory before any GMP call.
const char* g_program = "seqi";
int g_exit_code = 3;

void write_all(const char* s) {
  std::size_t left = std::strlen(s);
  while (left > 0) {
    const ssize_t n = ::write(2, s, left);
    if (n <= 0) return;
    s += n;
    left -= static_cast<std::size_t>(n);
  }
}

// Async-signal-safe: no allocation, only write(2) and _exit(2).
[[noreturn]] void out_of_memory(std::size_t bytes) {
  char digits[24];
  std::size_t k = sizeof digits;
  digits[--k] = '\0';
  do digits[--k] = static_cast<char>('0' + bytes % 10), bytes /= 10;
  while (bytes != 0 && k > 0);
  write_all(g_program);
  write_all(": out of memory (GMP could not allocate ");
  write_all(digits + k);
  write_all(" bytes); the input needs more memory than this machine gives. Use a smaller input, "
            "or run where more memory is available.\n");
  ::_exit(g_exit_code);
}

void* allocate(std::size_t bytes) {
  void* p = std::malloc(bytes);
  if (!p && bytes != 0) out_of_memory(bytes);
  return p;
}

void* reallocate(void* old, std::size_t, std::size_t bytes) {
  void* p = std::realloc(old, bytes);
  if (!p && bytes != 0) out_of_memory(bytes);
  return p;
}

void release(void* p, std::size_t) { std::free(p); }

}  // namespace

void exit_on_gmp_out_of_memory(const char* program, int exit_code) {
  g_program = program;
  g_exit_code = exit_code;
  mp_set_memory_functions(&allocate, &reallocate, &release);
}

}  // namespace seqi
