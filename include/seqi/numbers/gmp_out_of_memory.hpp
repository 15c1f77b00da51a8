// GMP (and MPFR, which allocates through GMP) aborts the process when an allocation fails.
// An exception cannot cross GMP's C code safely, so instead the process ends at once with a
// clear message and a documented exit code: never an abort, never a partial output file
// (every output is written to a temporary file and renamed only when complete).
#pragma once

namespace seqi {

// Installs GMP memory functions that, when malloc or realloc fails, write
// "<program>: out of memory (GMP could not allocate N bytes) ..." to stderr and _exit(exit_code).
// `program` must outlive the process (a string literal). Call once, at the start of main.
void exit_on_gmp_out_of_memory(const char* program, int exit_code);

}  // namespace seqi
