# Runs verify-mpi in mpirun's MPMD form, process 0 and process 1 each with its own working
# directory and arguments, and requires exit code 2 (a usage error, never an internal error)
# and FRAGMENT in standard error. DIR0 and DIR1 are created; DATA0 / DATA1, when given, are
# copied into them as d.json.
#   cmake -DVERIFY_MPI=.. -DMPIEXEC=.. -DDIR0=.. -DDIR1=.. [-DDATA0=..] [-DDATA1=..]
#         "-DARGS0=--exact;d.json" "-DARGS1=--softmax;d.json" "-DFRAGMENT=..." -P launch_mismatch.cmake
foreach(var VERIFY_MPI MPIEXEC DIR0 DIR1 ARGS0 ARGS1 FRAGMENT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "launch_mismatch.cmake: -D${var}=... is required")
  endif()
endforeach()
foreach(k 0 1)
  file(REMOVE_RECURSE ${DIR${k}})
  file(MAKE_DIRECTORY ${DIR${k}})
  if(DEFINED DATA${k})
    configure_file(${DATA${k}} ${DIR${k}}/d.json COPYONLY)
  endif()
endforeach()
set(ENV{OMPI_ALLOW_RUN_AS_ROOT} 1)
set(ENV{OMPI_ALLOW_RUN_AS_ROOT_CONFIRM} 1)
execute_process(COMMAND ${MPIEXEC} --allow-run-as-root --oversubscribe --mca btl self,vader
                        -np 1 -wdir ${DIR0} ${VERIFY_MPI} ${ARGS0} : -np 1 -wdir ${DIR1} ${VERIFY_MPI} ${ARGS1}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 120)
message(STATUS "verify-mpi: exit ${rc}")
if(NOT rc EQUAL 2)
  message(FATAL_ERROR "expected exit code 2 (usage error), got ${rc}\nstderr:\n${err}")
endif()
string(FIND "${err}" "${FRAGMENT}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "standard error lacks \"${FRAGMENT}\":\n${err}")
endif()
string(FIND "${err}" "internal error" internal)
if(NOT internal EQUAL -1)
  message(FATAL_ERROR "a launch mistake reported as an internal error:\n${err}")
endif()
