// verify-mpi's first collective step: every process must have been started with the same
// arguments (mpirun's MPMD form `-np 1 verify-mpi A : -np 1 verify-mpi B` can differ).
#pragma once
#include <string>
#include <vector>

namespace seqi {

// Collective (MPI initialised): "" when every process has the arguments of process 0;
// otherwise which process differs, at which argument, and what each side holds.
std::string launch_mismatch(const std::vector<std::string>& arguments);

}  // namespace seqi
