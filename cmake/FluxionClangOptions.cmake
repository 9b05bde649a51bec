# Compile options shared by every target that includes Clang/LLVM headers.
# LLVM's and Clang's headers are searched after the standard library's
# (-idirafter, which like -isystem marks them as system headers): Debian's
# libc++abi-19-dev installs its own cxxabi.h into the same directory
# (/usr/lib/llvm-19/include), which must not replace libstdc++'s.
function(fluxion_llvm_includes target scope)
  set(dirs ${LLVM_INCLUDE_DIRS} ${CLANG_INCLUDE_DIRS})
  list(REMOVE_DUPLICATES dirs)
  foreach(dir ${dirs})
    target_compile_options(${target} ${scope} "SHELL:-idirafter ${dir}")
  endforeach()
endfunction()

function(fluxion_use_clang target)
  fluxion_llvm_includes(${target} PRIVATE)
  target_compile_definitions(${target} PRIVATE ${LLVM_DEFINITIONS})
  if(NOT LLVM_ENABLE_RTTI)
    target_compile_options(${target} PRIVATE -fno-rtti)
  endif()
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wno-unused-parameter)
  set_target_properties(${target} PROPERTIES POSITION_INDEPENDENT_CODE ON)
endfunction()

# Compiles SOURCES with clang++ and the Fluxion plugin into an executable.
# With SANITIZE, the program is built with ASan and UBSan when
# FLUXION_SANITIZE_TESTS is on (cmake/FluxionSanitizers.cmake).
function(fluxion_add_plugin_executable name)
  cmake_parse_arguments(ARG "SANITIZE" "" "SOURCES;LIBS;FLAGS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE fluxion_runtime ${ARG_LIBS})
  target_compile_options(${name} PRIVATE
    "-fplugin=$<TARGET_FILE:FluxionPlugin>" ${ARG_FLAGS})
  if(ARG_SANITIZE AND FLUXION_SANITIZE_TESTS)
    fluxion_sanitize(${name})
  endif()
  add_dependencies(${name} FluxionPlugin)
  # Rebuild the program whenever the plugin changes.
  set_property(SOURCE ${ARG_SOURCES} APPEND PROPERTY
    OBJECT_DEPENDS "${CMAKE_BINARY_DIR}/lib/FluxionPlugin.so")
endfunction()

# Compiles SOURCES with clang++ and the Fluxion plugin into an object library,
# for programs that mix plugin-compiled and ordinary sources.
function(fluxion_add_plugin_objects name)
  cmake_parse_arguments(ARG "" "" "SOURCES;FLAGS" ${ARGN})
  add_library(${name} OBJECT ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE fluxion_runtime)
  target_compile_options(${name} PRIVATE
    "-fplugin=$<TARGET_FILE:FluxionPlugin>" ${ARG_FLAGS})
  add_dependencies(${name} FluxionPlugin)
  set_property(SOURCE ${ARG_SOURCES} APPEND PROPERTY
    OBJECT_DEPENDS "${CMAKE_BINARY_DIR}/lib/FluxionPlugin.so")
endfunction()
