# Runs `verify ARGS` and `mpirun -np NP verify-mpi ARGS` (ARGS: a ;-list) and fails unless both
# exit with the same code and print the same standard output, byte for byte. With EXPECT_ERROR,
# also requires that exit code to be 2 and that verify-mpi's standard error holds verify's
# message (mpirun may add its own notice of a non-zero exit).
#   cmake -DVERIFY=.. -DVERIFY_MPI=.. -DMPIEXEC=.. -DNP=2 "-DARGS=--json;--exact;file.json" -P same_as_verify.cmake
foreach(var VERIFY VERIFY_MPI MPIEXEC NP ARGS)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "same_as_verify.cmake: -D${var}=... is required")
  endif()
endforeach()
execute_process(COMMAND ${VERIFY} ${ARGS} RESULT_VARIABLE rc1 OUTPUT_VARIABLE out1 ERROR_VARIABLE err1)
# Open MPI in a container: run as root, oversubscribe, shared memory only (no network).
set(ENV{OMPI_ALLOW_RUN_AS_ROOT} 1)
set(ENV{OMPI_ALLOW_RUN_AS_ROOT_CONFIRM} 1)
execute_process(COMMAND ${MPIEXEC} --allow-run-as-root --oversubscribe --mca btl self,vader -np ${NP}
                        ${VERIFY_MPI} ${ARGS}
                RESULT_VARIABLE rc2 OUTPUT_VARIABLE out2 ERROR_VARIABLE err2 TIMEOUT 120)
message(STATUS "verify: exit ${rc1}; verify-mpi on ${NP} processes: exit ${rc2}")
if(NOT rc1 STREQUAL rc2)
  message(FATAL_ERROR "exit codes differ: verify ${rc1}, verify-mpi ${rc2}\nverify-mpi stderr:\n${err2}")
endif()
if(NOT out1 STREQUAL out2)
  file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/verify.out "${out1}")
  file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/verify-mpi.out "${out2}")
  message(FATAL_ERROR "standard outputs differ (written to verify.out and verify-mpi.out in ${CMAKE_CURRENT_BINARY_DIR})\n"
                      "verify-mpi stderr:\n${err2}")
endif()
string(LENGTH "${out1}" length)
if(EXPECT_ERROR)
  if(NOT rc1 EQUAL 2)
    message(FATAL_ERROR "expected exit code 2 (bad input), got ${rc1}: ${err1}")
  endif()
  string(STRIP "${err1}" message1)
  string(FIND "${err2}" "${message1}" at)
  if(message1 STREQUAL "" OR at EQUAL -1)
    message(FATAL_ERROR "verify-mpi's error output lacks verify's message\nverify: ${err1}\nverify-mpi: ${err2}")
  endif()
  string(REGEX MATCHALL "verify: bad input" copies "${err2}")
  list(LENGTH copies count)
  if(NOT count EQUAL 1)
    message(FATAL_ERROR "the message should come once (from process 0), not ${count} times:\n${err2}")
  endif()
elseif(length EQUAL 0)
  message(FATAL_ERROR "verify printed nothing: ${err1}")
endif()
