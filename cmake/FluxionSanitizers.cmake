# AddressSanitizer + UndefinedBehaviorSanitizer builds (README, "Sanitizers";
# scripts/sanitize.sh configures build-asan/ with both options and runs the
# sanitized suites).
#
# FLUXION_SANITIZE: the host programs (the engine and everything that links
#   it: fluxion-gen, the engine's unit tests) are instrumented. The plugin is
#   not: it runs inside an uninstrumented clang, which cannot load an ASan
#   module. It links an uninstrumented copy of the engine instead, so both
#   kinds of program can be built and tested in one tree.
# FLUXION_SANITIZE_TESTS: the programs the test suites build from generated
#   code are instrumented: the plugin-built numeric and second-order programs
#   (fluxion_add_plugin_executable(... SANITIZE)), their round trip through
#   fluxion-gen and g++, and the runtime's unit tests. This checks the
#   generated adjoints and the runtime headers (tape, checkpointing).
option(FLUXION_SANITIZE
  "Build the engine, fluxion-gen and the other host programs with ASan and UBSan (the plugin stays uninstrumented)"
  OFF)
option(FLUXION_SANITIZE_TESTS
  "Build the numeric, second-order, round-trip and runtime unit test programs with ASan and UBSan"
  OFF)

# Every report is fatal (UBSan too), and stack traces have frames and lines.
set(FLUXION_SANITIZER_FLAGS
  -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  set(FLUXION_SANITIZER_DEBUG_FLAG -gline-tables-only)
else()
  set(FLUXION_SANITIZER_DEBUG_FLAG -g1)
endif()
# For g++ (the round trip's compiler), which has its own sanitizer runtimes.
set(FLUXION_SANITIZER_FLAGS_GNU ${FLUXION_SANITIZER_FLAGS} -g1)
string(REPLACE ";" " " _fluxion_sanitizer_flags_text "${FLUXION_SANITIZER_FLAGS}")

# fluxion_sanitize(target [PUBLIC]): compiles and links target with the
# sanitizers; PUBLIC also passes them on to what links it.
function(fluxion_sanitize target)
  set(compile_scope PRIVATE)
  set(link_scope PRIVATE)
  if(ARGV1 STREQUAL "PUBLIC")
    set(compile_scope PUBLIC)
    get_target_property(type ${target} TYPE)
    if(type STREQUAL "STATIC_LIBRARY" OR type STREQUAL "OBJECT_LIBRARY")
      set(link_scope INTERFACE)
    else()
      set(link_scope PUBLIC)
    endif()
  endif()
  target_compile_options(${target} ${compile_scope}
    ${FLUXION_SANITIZER_FLAGS} ${FLUXION_SANITIZER_DEBUG_FLAG})
  target_link_options(${target} ${link_scope} ${FLUXION_SANITIZER_FLAGS})
endfunction()

# _fluxion_uninstrumented_copy(original copy): a static library built from
# original's sources with original's settings as they are now (call it before
# instrumenting original). Source-file properties set in original's directory
# do not carry over (the engine sets none).
function(_fluxion_uninstrumented_copy original copy)
  get_target_property(sources ${original} SOURCES)
  get_target_property(dir ${original} SOURCE_DIR)
  set(absolute)
  foreach(src IN LISTS sources)
    if(IS_ABSOLUTE "${src}" OR src MATCHES "^\\$<")
      list(APPEND absolute "${src}")
    else()
      list(APPEND absolute "${dir}/${src}")
    endif()
  endforeach()
  add_library(${copy} STATIC ${absolute})
  foreach(property
      INCLUDE_DIRECTORIES COMPILE_DEFINITIONS COMPILE_OPTIONS COMPILE_FEATURES
      LINK_LIBRARIES POSITION_INDEPENDENT_CODE
      INTERFACE_INCLUDE_DIRECTORIES INTERFACE_SYSTEM_INCLUDE_DIRECTORIES
      INTERFACE_COMPILE_DEFINITIONS INTERFACE_COMPILE_OPTIONS
      INTERFACE_COMPILE_FEATURES INTERFACE_LINK_LIBRARIES INTERFACE_LINK_OPTIONS)
    get_target_property(value ${original} ${property})
    if(NOT value STREQUAL "value-NOTFOUND")
      set_property(TARGET ${copy} PROPERTY ${property} "${value}")
    endif()
  endforeach()
  # A target's private SYSTEM include directories are not a readable
  # property; the engine's are its public ones (LLVM's and Clang's headers).
  get_target_property(system ${original} INTERFACE_SYSTEM_INCLUDE_DIRECTORIES)
  if(system)
    target_include_directories(${copy} SYSTEM PRIVATE ${system})
  endif()
endfunction()

# Called once the engine, the plugin and fluxion-gen are defined (before the
# tests, whose engine tests then link the instrumented engine).
function(fluxion_sanitize_host_programs)
  if(NOT FLUXION_SANITIZE)
    return()
  endif()
  # The plugin links an uninstrumented copy of the engine (unless it is a
  # prebuilt one, FLUXION_PREBUILT_PLUGIN).
  if(NOT FLUXION_PREBUILT_PLUGIN)
    _fluxion_uninstrumented_copy(FluxionEngine FluxionEngineForPlugin)
    foreach(property LINK_LIBRARIES INTERFACE_LINK_LIBRARIES)
      get_target_property(libs FluxionPlugin ${property})
      if(libs)
        list(TRANSFORM libs REPLACE "(^|:)FluxionEngine(>|$)"
          "\\1FluxionEngineForPlugin\\2")
        set_property(TARGET FluxionPlugin PROPERTY ${property} "${libs}")
      endif()
    endforeach()
  endif()
  # Everything else that links the engine (fluxion-gen, the engine tests) is
  # compiled and linked with the sanitizers through it, and compiles in their
  # default options (FluxionSanitizerDefaults.cpp says why).
  fluxion_sanitize(FluxionEngine PUBLIC)
  target_sources(FluxionEngine INTERFACE
    ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/FluxionSanitizerDefaults.cpp)
  message(STATUS "Fluxion: engine and fluxion-gen built with "
    "${_fluxion_sanitizer_flags_text}; the plugin links an uninstrumented "
    "copy of the engine")
endfunction()

# Called after the tests are defined: the runtime's unit tests.
function(fluxion_sanitize_test_programs)
  if(NOT FLUXION_SANITIZE_TESTS)
    return()
  endif()
  if(TARGET fluxion_unit_tests)
    fluxion_sanitize(fluxion_unit_tests)
  endif()
  message(STATUS "Fluxion: numeric, second-order, round-trip and runtime "
    "unit test programs built with ${_fluxion_sanitizer_flags_text}")
endfunction()
