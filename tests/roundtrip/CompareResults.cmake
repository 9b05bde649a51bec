# Runs PROGRAM (built from fluxion-gen's output) and REFERENCE (the same test
# sources built with the plugin): both must succeed and pass the same tests.
foreach(which PROGRAM REFERENCE)
  execute_process(COMMAND ${${which}} --gtest_color=no
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${${which}} failed (${rc}):\n${out}\n${err}")
  endif()
  string(REGEX MATCHALL "\\[       OK \\] [A-Za-z0-9_./]+" passed "${out}")
  list(SORT passed)
  set(${which}_passed "${passed}")
  list(LENGTH passed ${which}_count)
endforeach()
if(NOT PROGRAM_passed STREQUAL REFERENCE_passed)
  message(FATAL_ERROR "different tests passed:\n"
    "fluxion-gen + compiler: ${PROGRAM_passed}\nplugin: ${REFERENCE_passed}")
endif()
message(STATUS "${PROGRAM_count} tests passed in both builds")
