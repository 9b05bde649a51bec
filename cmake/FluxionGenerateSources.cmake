# fluxion_generate_sources(<target> [SOURCES <file>...])
#
# For compilers that cannot load the plugin (GCC, NVCC, another Clang):
# runs fluxion-gen on the target's C++ sources at build time and compiles its
# output (each source with the derivatives of its [[fluxion::...]] functions
# inserted as C++) instead of the source. Without SOURCES, every C++ source
# of the target (.cpp .cc .cxx .c++ .C) goes through fluxion-gen (a file
# without annotations comes out unchanged); with SOURCES, only those.
#
# fluxion-gen parses each source in place, with the target's include
# directories and compile definitions (its own and those of the targets it
# links, evaluated at generation time), the C++ standard of its
# CXX_STANDARD property and cxx_std_NN compile features (at least C++17), and
# the runtime headers. Flags of target_compile_options are not passed to it.
# The output is in <binary dir>/fluxion-gen/<target>/ under the source's path
# relative to the target's source directory, and is compiled with the
# target's flags plus the source's directory for quoted #includes.
# Dependencies: a source is generated again when it, a header it includes
# (through fluxion-gen's depfile, with the Ninja and Makefile generators) or
# fluxion-gen changes.
#
# Call it in the directory that creates the target (custom commands belong
# to their directory), once per source.
#
# Part of the Fluxion CMake package (FluxionConfig.cmake defines the
# Fluxion::fluxion-gen, Fluxion_GEN_EXECUTABLE and Fluxion_INCLUDE_DIR it
# uses). fluxion_declarations(), for clangd, is at the end of this file.

set(_FLUXION_GENERATE_SCRIPT "${CMAKE_CURRENT_LIST_DIR}/FluxionGenerate.cmake")

# _fluxion_target_sources(<function> <target> <SOURCES given?> <sources...>)
# checks the target and sets in the caller: _fluxion_target_dir, the target's
# source directory; _fluxion_absolute, its sources as absolute paths
# (generator expressions kept as they are); _fluxion_selected, the given
# sources or else every C++ source.
macro(_fluxion_target_sources fn target given)
  if(NOT TARGET "${target}")
    message(FATAL_ERROR "${fn}: '${target}' is not a target")
  endif()
  get_target_property(_fluxion_aliased "${target}" ALIASED_TARGET)
  get_target_property(_fluxion_imported "${target}" IMPORTED)
  get_target_property(_fluxion_type "${target}" TYPE)
  if(_fluxion_aliased OR _fluxion_imported
     OR _fluxion_type STREQUAL "INTERFACE_LIBRARY"
     OR _fluxion_type STREQUAL "UTILITY")
    message(FATAL_ERROR "${fn}: '${target}' must be an executable or a "
      "library built by this project, not an alias, an imported or an "
      "interface target")
  endif()
  get_target_property(_fluxion_target_dir "${target}" SOURCE_DIR)
  if(NOT _fluxion_target_dir STREQUAL CMAKE_CURRENT_SOURCE_DIR)
    message(FATAL_ERROR "${fn}(${target}) must be called in the directory "
      "that creates the target (${_fluxion_target_dir}), not in "
      "${CMAKE_CURRENT_SOURCE_DIR}")
  endif()
  get_target_property(_fluxion_sources "${target}" SOURCES)
  set(_fluxion_absolute)
  foreach(_fluxion_src IN LISTS _fluxion_sources)
    if(_fluxion_src MATCHES "\\$<")
      list(APPEND _fluxion_absolute "${_fluxion_src}")
    else()
      get_filename_component(_fluxion_abs "${_fluxion_src}" ABSOLUTE
        BASE_DIR "${_fluxion_target_dir}")
      list(APPEND _fluxion_absolute "${_fluxion_abs}")
    endif()
  endforeach()
  set(_fluxion_selected)
  if(${given})
    foreach(_fluxion_src IN ITEMS ${ARGN})
      get_filename_component(_fluxion_abs "${_fluxion_src}" ABSOLUTE
        BASE_DIR "${_fluxion_target_dir}")
      if(NOT _fluxion_abs IN_LIST _fluxion_absolute)
        message(FATAL_ERROR "${fn}(${target}): '${_fluxion_src}' is not a "
          "source of ${target}")
      endif()
      list(APPEND _fluxion_selected "${_fluxion_abs}")
    endforeach()
  else()
    foreach(_fluxion_abs IN LISTS _fluxion_absolute)
      if(_fluxion_abs MATCHES "\\.(cpp|cc|cxx|c\\+\\+|C)$"
         AND NOT _fluxion_abs MATCHES "\\$<")
        list(APPEND _fluxion_selected "${_fluxion_abs}")
      endif()
    endforeach()
  endif()
  if(NOT _fluxion_selected)
    message(FATAL_ERROR "${fn}(${target}): no C++ source")
  endif()
endmacro()

# _fluxion_output_path(<var> <root> <target dir> <source>): <root>/ plus the
# source's path relative to the target's directory (or, for a source outside
# it, a directory of its own named by a hash of its directory, keeping the
# file name for quoted #includes and messages).
function(_fluxion_output_path var root target_dir abs)
  file(RELATIVE_PATH rel "${target_dir}" "${abs}")
  if(rel MATCHES "^\\.\\./" OR IS_ABSOLUTE "${rel}")
    get_filename_component(dir "${abs}" DIRECTORY)
    string(MD5 hash "${dir}")
    string(SUBSTRING "${hash}" 0 12 hash)
    get_filename_component(name "${abs}" NAME)
    set(rel "_external/${hash}/${name}")
  endif()
  set(${var} "${root}/${rel}" PARENT_SCOPE)
endfunction()

# _fluxion_gen_command(<var> <target> <input> <output> <depfile> <mode>): the
# custom command's COMMAND arguments running FluxionGenerate.cmake, with the
# target's flags (mode: source or declarations).
function(_fluxion_gen_command var target input output depfile mode)
  # The compiler's own include directories must not become -I flags for
  # fluxion-gen (-I/usr/include breaks <cmath>'s #include_next).
  string(JOIN "|" implicit ${CMAKE_CXX_IMPLICIT_INCLUDE_DIRECTORIES})
  set(${var}
    "${CMAKE_COMMAND}"
    "-DMODE=${mode}"
    "-DFLUXION_GEN=$<TARGET_FILE:Fluxion::fluxion-gen>"
    "-DINPUT=${input}"
    "-DOUTPUT=${output}"
    "-DDEPFILE=${depfile}"
    "-DRUNTIME_INCLUDE_DIR=${Fluxion_INCLUDE_DIR}"
    "-DIMPLICIT_INCLUDE_DIRS=${implicit}"
    "-DINCLUDE_DIRS=$<JOIN:$<TARGET_PROPERTY:${target},INCLUDE_DIRECTORIES>,|>"
    "-DDEFINITIONS=$<JOIN:$<TARGET_PROPERTY:${target},COMPILE_DEFINITIONS>,|>"
    "-DSTANDARD=$<TARGET_PROPERTY:${target},CXX_STANDARD>"
    "-DFEATURES=$<JOIN:$<TARGET_PROPERTY:${target},COMPILE_FEATURES>,|>"
    -P "${_FLUXION_GENERATE_SCRIPT}"
    PARENT_SCOPE)
endfunction()

function(fluxion_generate_sources target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "" "SOURCES")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "fluxion_generate_sources(${target}): unexpected "
      "arguments '${ARG_UNPARSED_ARGUMENTS}' (usage: "
      "fluxion_generate_sources(<target> [SOURCES <file>...]))")
  endif()
  if(DEFINED ARG_SOURCES)
    set(given TRUE)
  else()
    set(given FALSE)
  endif()
  _fluxion_target_sources(fluxion_generate_sources "${target}" given
    ${ARG_SOURCES})
  set(target_dir "${_fluxion_target_dir}")
  set(absolute "${_fluxion_absolute}")
  set(selected "${_fluxion_selected}")
  get_target_property(done "${target}" FLUXION_GENERATED_SOURCES)
  if(NOT done)
    set(done)
  endif()

  file(GLOB runtime_headers "${Fluxion_INCLUDE_DIR}/fluxion/*.hpp")
  if(CMAKE_GENERATOR MATCHES "Ninja|Makefiles")
    set(use_depfile TRUE)
  else()
    set(use_depfile FALSE)
  endif()
  set(out_root "${CMAKE_CURRENT_BINARY_DIR}/fluxion-gen/${target}")

  set(replacements)
  foreach(abs IN LISTS selected)
    if(abs IN_LIST done)
      message(FATAL_ERROR "fluxion_generate_sources(${target}): ${abs} is "
        "generated already")
    endif()
    _fluxion_output_path(generated "${out_root}" "${target_dir}" "${abs}")
    file(RELATIVE_PATH rel "${out_root}" "${generated}")
    set(depfile "${generated}.d")
    get_filename_component(src_dir "${abs}" DIRECTORY)
    get_filename_component(gen_dir "${generated}" DIRECTORY)
    file(MAKE_DIRECTORY "${gen_dir}")

    set(depfile_args)
    if(use_depfile)
      set(depfile_args DEPFILE "${depfile}")
    endif()
    _fluxion_gen_command(command "${target}" "${abs}" "${generated}"
      "${depfile}" source)
    add_custom_command(OUTPUT "${generated}"
      COMMAND ${command}
      DEPENDS "${abs}" "${Fluxion_GEN_EXECUTABLE}" "${_FLUXION_GENERATE_SCRIPT}"
              ${runtime_headers}
      ${depfile_args}
      WORKING_DIRECTORY "${src_dir}"
      COMMENT "fluxion-gen ${rel} (${target})"
      VERBATIM)

    # Quoted #includes of the output are looked up next to the source.
    if(CMAKE_CXX_COMPILER_ID MATCHES "^(GNU|Clang|AppleClang|IntelLLVM)$")
      set_property(SOURCE "${generated}" APPEND PROPERTY
        COMPILE_OPTIONS "-iquote${src_dir}")
    else()
      set_property(SOURCE "${generated}" APPEND PROPERTY
        INCLUDE_DIRECTORIES "${src_dir}")
    endif()
    list(APPEND replacements "${abs}" "${generated}")
    list(APPEND done "${abs}")
    # For fluxion_declarations: the compile database names the output.
    set_property(TARGET "${target}" APPEND PROPERTY
      FLUXION_GENERATED_PAIRS "${abs}|${generated}")
  endforeach()

  # The target compiles the outputs in place of the sources.
  set(new_sources)
  foreach(abs IN LISTS absolute)
    list(FIND replacements "${abs}" index)
    if(index GREATER_EQUAL 0)
      math(EXPR index "${index} + 1")
      list(GET replacements ${index} abs)
    endif()
    list(APPEND new_sources "${abs}")
  endforeach()
  set_property(TARGET "${target}" PROPERTY SOURCES "${new_sources}")
  set_property(TARGET "${target}" PROPERTY FLUXION_GENERATED_SOURCES "${done}")
  # The output includes the runtime headers and needs C++17, whether or not
  # the target links Fluxion::Fluxion.
  target_include_directories("${target}" SYSTEM PRIVATE "${Fluxion_INCLUDE_DIR}")
  target_compile_features("${target}" PRIVATE cxx_std_17)
endfunction()

# fluxion_declarations(<target> [SOURCES <file>...])
#
# For editors: clangd does not load the plugin, so it reports every call to a
# generated function (f_grad, ...) as an error. This writes, at build time, a
# header per source with the declarations of the functions generated from it
# (fluxion-gen --declarations, with the same flags and dependencies as
# fluxion_generate_sources) to <top binary dir>/fluxion-clangd/<target>/, and
# a compile database <top binary dir>/fluxion-clangd/compile_commands.json:
# the project's (CMAKE_EXPORT_COMPILE_COMMANDS is turned on for the target)
# with `-include <header>` added to each such source. The build itself does
# not use either. Point clangd at it, e.g. with a .clangd file at the top of
# the source tree:
#   CompileFlags:
#     CompilationDatabase: build/fluxion-clangd
# The header is included first, before the source's own declarations: a
# generated function whose signature names a type of the source (a struct of
# the user's) cannot be declared there and stays an error in the editor.

set(_FLUXION_CLANGD_SCRIPT "${CMAKE_CURRENT_LIST_DIR}/FluxionClangdDatabase.cmake")

function(fluxion_declarations target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "" "SOURCES")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "fluxion_declarations(${target}): unexpected "
      "arguments '${ARG_UNPARSED_ARGUMENTS}' (usage: "
      "fluxion_declarations(<target> [SOURCES <file>...]))")
  endif()
  if(DEFINED ARG_SOURCES)
    set(given TRUE)
  else()
    set(given FALSE)
  endif()
  get_target_property(declared "${target}" FLUXION_DECLARATIONS)
  if(declared)
    message(FATAL_ERROR "fluxion_declarations(${target}): called already")
  endif()
  set_property(TARGET "${target}" PROPERTY FLUXION_DECLARATIONS ON)
  set(no FALSE)
  _fluxion_target_sources(fluxion_declarations "${target}" no)
  set(target_dir "${_fluxion_target_dir}")
  # Sources that fluxion_generate_sources replaced already: the originals.
  get_target_property(generated_pairs "${target}" FLUXION_GENERATED_PAIRS)
  if(NOT generated_pairs)
    set(generated_pairs)
  endif()
  set(candidates)
  foreach(abs IN LISTS _fluxion_selected)
    foreach(pair IN LISTS generated_pairs)
      string(REPLACE "|" ";" pair "${pair}")
      list(GET pair 1 generated)
      if(abs STREQUAL generated)
        list(GET pair 0 abs)
        break()
      endif()
    endforeach()
    list(APPEND candidates "${abs}")
  endforeach()
  if(given)
    set(selected)
    foreach(src IN LISTS ARG_SOURCES)
      get_filename_component(abs "${src}" ABSOLUTE BASE_DIR "${target_dir}")
      if(NOT abs IN_LIST candidates)
        message(FATAL_ERROR "fluxion_declarations(${target}): '${src}' is "
          "not a C++ source of ${target}")
      endif()
      list(APPEND selected "${abs}")
    endforeach()
  else()
    set(selected "${candidates}")
  endif()

  set_property(TARGET "${target}" PROPERTY EXPORT_COMPILE_COMMANDS ON)
  file(GLOB runtime_headers "${Fluxion_INCLUDE_DIR}/fluxion/*.hpp")
  set(depfile_args)
  set(root "${CMAKE_BINARY_DIR}/fluxion-clangd")
  set(headers)
  set(map)
  foreach(abs IN LISTS selected)
    _fluxion_output_path(header "${root}/${target}" "${target_dir}" "${abs}")
    set(header "${header}.h")
    file(RELATIVE_PATH rel "${root}/${target}" "${header}")
    get_filename_component(header_dir "${header}" DIRECTORY)
    file(MAKE_DIRECTORY "${header_dir}")
    get_filename_component(src_dir "${abs}" DIRECTORY)
    if(CMAKE_GENERATOR MATCHES "Ninja|Makefiles")
      set(depfile_args DEPFILE "${header}.d")
    endif()
    _fluxion_gen_command(command "${target}" "${abs}" "${header}"
      "${header}.d" declarations)
    add_custom_command(OUTPUT "${header}"
      COMMAND ${command}
      DEPENDS "${abs}" "${Fluxion_GEN_EXECUTABLE}" "${_FLUXION_GENERATE_SCRIPT}"
              ${runtime_headers}
      ${depfile_args}
      WORKING_DIRECTORY "${src_dir}"
      COMMENT "fluxion-gen --declarations ${rel} (${target})"
      VERBATIM)
    list(APPEND headers "${header}")
    string(APPEND map "D|${abs}|${header}\n")
  endforeach()
  # The compile database names the outputs of fluxion_generate_sources
  # (called before or after this): known when the build system is generated.
  string(APPEND map "$<$<BOOL:$<TARGET_PROPERTY:${target},FLUXION_GENERATED_PAIRS>>:G|$<JOIN:$<TARGET_PROPERTY:${target},FLUXION_GENERATED_PAIRS>,\nG|>\n>")
  file(GENERATE OUTPUT "${root}/${target}.map" CONTENT "${map}")

  add_custom_target("${target}_fluxion_declarations" ALL DEPENDS ${headers})
  if(NOT TARGET fluxion_clangd_database)
    add_custom_target(fluxion_clangd_database ALL
      COMMAND "${CMAKE_COMMAND}" "-DROOT=${root}"
              "-DDATABASE=${CMAKE_BINARY_DIR}/compile_commands.json"
              -P "${_FLUXION_CLANGD_SCRIPT}"
      COMMENT "Fluxion: the compile database for clangd (${root})"
      VERBATIM)
  endif()
  add_dependencies(fluxion_clangd_database "${target}_fluxion_declarations")
endfunction()
