# Runs fluxion-gen for one source at build time: the command of the custom
# commands that fluxion_generate_sources()
# and fluxion_declarations() (FluxionGenerateSources.cmake) add.
# cmake -P FluxionGenerate.cmake with
#   MODE                   source: OUTPUT is the output translation unit;
#                          declarations: OUTPUT is the declarations header
#   FLUXION_GEN            fluxion-gen
#   INPUT, OUTPUT          the source and what fluxion-gen writes
#   DEPFILE                the dependency file to write (Makefile syntax)
#   RUNTIME_INCLUDE_DIR    Fluxion's runtime headers
#   INCLUDE_DIRS, DEFINITIONS, FEATURES   the target's, separated by '|'
#   STANDARD               the target's CXX_STANDARD (may be empty)
#   IMPLICIT_INCLUDE_DIRS  the compiler's own include directories ('|'),
#                          left out of the -I flags
cmake_minimum_required(VERSION 3.20)

foreach(var FLUXION_GEN INPUT OUTPUT DEPFILE RUNTIME_INCLUDE_DIR)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "FluxionGenerate.cmake: ${var} is not set")
  endif()
endforeach()
foreach(var INCLUDE_DIRS DEFINITIONS FEATURES IMPLICIT_INCLUDE_DIRS)
  string(REPLACE "|" ";" ${var} "${${var}}")
endforeach()

# The C++ standard: the highest of CXX_STANDARD, cxx_std_NN features and 17.
set(standard 17)
set(candidates)
if(STANDARD MATCHES "^[0-9]+$")
  list(APPEND candidates "${STANDARD}")
endif()
foreach(feature IN LISTS FEATURES)
  if(feature MATCHES "^cxx_std_([0-9]+)$")
    list(APPEND candidates "${CMAKE_MATCH_1}")
  endif()
endforeach()
foreach(candidate IN LISTS candidates)
  # 98 is the oldest; the others grow.
  if(NOT candidate EQUAL 98 AND candidate GREATER standard)
    set(standard "${candidate}")
  endif()
endforeach()

set(flags "-std=c++${standard}")
set(seen)
foreach(dir IN LISTS INCLUDE_DIRS RUNTIME_INCLUDE_DIR)
  if(dir STREQUAL "" OR dir IN_LIST IMPLICIT_INCLUDE_DIRS OR dir IN_LIST seen)
    continue()
  endif()
  list(APPEND seen "${dir}")
  list(APPEND flags "-I${dir}")
endforeach()
foreach(definition IN LISTS DEFINITIONS)
  if(NOT definition STREQUAL "")
    list(APPEND flags "-D${definition}")
  endif()
endforeach()

get_filename_component(output_dir "${OUTPUT}" DIRECTORY)
file(MAKE_DIRECTORY "${output_dir}")
if(MODE STREQUAL "declarations")
  set(output_args "--declarations=${OUTPUT}")
else()
  set(output_args -o "${OUTPUT}")
endif()
execute_process(
  COMMAND "${FLUXION_GEN}" "${INPUT}" ${output_args}
          --extra-arg=-MD "--extra-arg=-MF${DEPFILE}"
          --extra-arg=-MT "--extra-arg=${OUTPUT}"
          -- ${flags}
  RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  file(REMOVE "${OUTPUT}")
  string(REPLACE ";" " " command_line "${flags}")
  message(FATAL_ERROR "fluxion-gen failed (${result}) on ${INPUT}, with "
    "the flags: ${command_line}")
endif()
if(NOT EXISTS "${DEPFILE}")
  # At least the source itself.
  string(REPLACE " " "\\ " escaped_output "${OUTPUT}")
  string(REPLACE " " "\\ " escaped_input "${INPUT}")
  file(WRITE "${DEPFILE}" "${escaped_output}: ${escaped_input}\n")
endif()
