# What `cmake --install` writes for other projects (README, "Using Fluxion
# from CMake"): the CMake package in lib/cmake/Fluxion (FluxionConfig.cmake,
# its version file, fluxion_generate_sources) and lib/pkgconfig/fluxion.pc.
# Installed files hold no absolute path: the package computes its prefix from
# its own location, fluxion.pc from ${pcfiledir}. The plugin, fluxion-gen,
# fluxion-config and the runtime headers are installed by plugin/, tool/ and
# runtime/.
include(CMakePackageConfigHelpers)

set(FLUXION_INSTALL_BINDIR bin)
set(FLUXION_INSTALL_LIBDIR lib)
set(FLUXION_INSTALL_INCLUDEDIR include)
set(FLUXION_INSTALL_CMAKEDIR lib/cmake/Fluxion)
set(FLUXION_PLUGIN_FILE_NAME "FluxionPlugin${CMAKE_SHARED_MODULE_SUFFIX}")
set(package_dir ${CMAKE_BINARY_DIR}/package)

configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/FluxionConfig.cmake.in
  ${package_dir}/FluxionConfig.cmake
  INSTALL_DESTINATION ${FLUXION_INSTALL_CMAKEDIR}
  PATH_VARS FLUXION_INSTALL_BINDIR FLUXION_INSTALL_LIBDIR
            FLUXION_INSTALL_INCLUDEDIR)
# 0.x: a minor release may change the interface. Nothing is linked into the
# consumer (the runtime is header-only), so any architecture may use it.
write_basic_package_version_file(${package_dir}/FluxionConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMinorVersion
  ARCH_INDEPENDENT)
install(FILES
  ${package_dir}/FluxionConfig.cmake
  ${package_dir}/FluxionConfigVersion.cmake
  ${PROJECT_SOURCE_DIR}/cmake/FluxionGenerateSources.cmake
  ${PROJECT_SOURCE_DIR}/cmake/FluxionGenerate.cmake
  ${PROJECT_SOURCE_DIR}/cmake/FluxionClangdDatabase.cmake
  DESTINATION ${FLUXION_INSTALL_CMAKEDIR})

configure_file(${PROJECT_SOURCE_DIR}/cmake/fluxion.pc.in
  ${package_dir}/fluxion.pc @ONLY)
install(FILES ${package_dir}/fluxion.pc
  DESTINATION ${FLUXION_INSTALL_LIBDIR}/pkgconfig)
