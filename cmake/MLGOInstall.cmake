# Where mlgo's files live, in the build tree and installed, and how it is
# installed and packaged. The layout, relative to the prefix (GNUInstallDirs'
# defaults; `cmake --install build --prefix P`, or /usr in the .deb):
#
#   bin/               mlgo, mlgo-clang, mlgo-clang++
#   lib/mlgo/          mlgo-plugin.so, and MLGOInliner.so -> mlgo-plugin.so
#                      (the plugin's name until 0.3, kept for one release)
#   lib/mlgo/lld/      ld.lld, lld with the plugin in its LTO backend
#                      (mlgo-clang's -fuse-ld=lld links run it)
#   share/mlgo/        models/ (every shipped model with its README and
#                      recipe) and scripts/ (the package recipes `mlgo eval
#                      package`, `mlgo eval build` and `mlgo tune --package`
#                      run)
#   share/doc/mlgo/    README.md and docs/
#
# The plugin is private to mlgo (nothing links it; clang, opt and llc load
# it by path), so it goes in lib/mlgo/ as LLVM's go in /usr/lib/llvm-19/,
# not in the linker's multiarch directory. The build tree has the same
# bin/ and lib/mlgo/, so mlgo-clang and mlgo find the plugin by one rule
# everywhere: <directory of the running program>/../lib/mlgo/mlgo-plugin.so
# (MLGO_BIN_TO_PLUGIN). Nothing installed names the prefix, so an installed
# tree still works when moved (scripts/check-install.sh checks it).
#
# mlgo-codegen is not installed: it only turns a model into C++ for a build
# of mlgo (mlgo_embed_model, cmake/MLGOModels.cmake), and such a build makes
# its own. An installed plugin takes any model file at run time
# (-mllvm -mlgo-model=FILE).
include(GNUInstallDirs)

set(MLGO_PLUGIN_NAME mlgo-plugin.so)
set(MLGO_OLD_PLUGIN_NAME MLGOInliner.so)
set(MLGO_PLUGIN_SUBDIR mlgo)
set(MLGO_PLUGIN_DIR lib/${MLGO_PLUGIN_SUBDIR})
set(MLGO_DATA_DIR ${CMAKE_INSTALL_DATADIR}/mlgo)
# The plugin this build makes (lit's %plugin).
set(MLGO_PLUGIN_PATH ${PROJECT_BINARY_DIR}/${MLGO_PLUGIN_DIR}/${MLGO_PLUGIN_NAME})
# The plugin and the data directory relative to the programs' directory
# (mlgo/Config.h and the wrappers).
file(RELATIVE_PATH MLGO_BIN_TO_PLUGIN /prefix/${CMAKE_INSTALL_BINDIR}
     /prefix/${MLGO_PLUGIN_DIR}/${MLGO_PLUGIN_NAME})
file(RELATIVE_PATH MLGO_BIN_TO_DATA /prefix/${CMAKE_INSTALL_BINDIR}
     /prefix/${MLGO_DATA_DIR})
if(IS_ABSOLUTE "${CMAKE_INSTALL_BINDIR}" OR IS_ABSOLUTE "${CMAKE_INSTALL_DATADIR}"
   OR NOT MLGO_BIN_TO_PLUGIN STREQUAL "../${MLGO_PLUGIN_DIR}/${MLGO_PLUGIN_NAME}")
  message(FATAL_ERROR "mlgo installs relocatably: CMAKE_INSTALL_BINDIR "
    "(${CMAKE_INSTALL_BINDIR}) must be one directory under the prefix, as "
    "bin/ is in the build tree, and CMAKE_INSTALL_DATADIR "
    "(${CMAKE_INSTALL_DATADIR}) relative to it")
endif()

set(MLGO_PACKAGE_MAINTAINER
  "mlgo maintainers <maintainers@users.noreply.a-seed-88c82093.example>"
  CACHE STRING "The Maintainer field of the .deb cpack makes")

# The install rules and the Debian package (`cpack -G DEB` in the build
# directory makes mlgo_<version>_<arch>.deb). Called once, after the
# targets exist.
function(mlgo_add_install_rules)
  # Installed, mlgo and the plugin keep the build tree's RUNPATH, LLVM's own
  # lib directory, so they load the libLLVM that clang-19 and opt-19 load
  # (the same file `mlgo --version` names in the build tree) rather than
  # whichever copy the loader's default directories hold first.
  set_target_properties(mlgo mlgo-plugin PROPERTIES
    INSTALL_RPATH "${LLVM_LIBRARY_DIR}")
  install(TARGETS mlgo RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  install(PROGRAMS ${PROJECT_BINARY_DIR}/bin/mlgo-clang
                   ${PROJECT_BINARY_DIR}/bin/mlgo-clang++
          DESTINATION ${CMAKE_INSTALL_BINDIR})
  install(TARGETS mlgo-plugin LIBRARY DESTINATION ${MLGO_PLUGIN_DIR})
  install(PROGRAMS ${PROJECT_BINARY_DIR}/${MLGO_LINKER_DIR}/ld.lld
          DESTINATION ${MLGO_LINKER_DIR})
  # A symlink (plugin/CMakeLists.txt makes it), installed as one.
  install(FILES ${PROJECT_BINARY_DIR}/${MLGO_PLUGIN_DIR}/${MLGO_OLD_PLUGIN_NAME}
          DESTINATION ${MLGO_PLUGIN_DIR})

  install(DIRECTORY ${PROJECT_SOURCE_DIR}/models/
          DESTINATION ${MLGO_DATA_DIR}/models)
  # What mlgo runs from share/mlgo (EvalCommands.cpp, TuneCommands.cpp):
  # the recipe runners, their recipes, and the Lua scripts the lua5.4
  # recipe's tests run (scripts/packages/lua5.4.sh finds them under the
  # data directory as it does under the source tree).
  install(PROGRAMS ${PROJECT_SOURCE_DIR}/scripts/eval-package.sh
                   ${PROJECT_SOURCE_DIR}/scripts/eval-build.sh
                   ${PROJECT_SOURCE_DIR}/scripts/fetch-source.sh
                   ${PROJECT_SOURCE_DIR}/scripts/package-recipes.sh
          DESTINATION ${MLGO_DATA_DIR}/scripts)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/scripts/packages
          DESTINATION ${MLGO_DATA_DIR}/scripts)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/test/Eval/Inputs/lua
          DESTINATION ${MLGO_DATA_DIR}/test/Eval/Inputs)

  install(FILES ${PROJECT_SOURCE_DIR}/README.md
          DESTINATION ${CMAKE_INSTALL_DOCDIR})
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs
          DESTINATION ${CMAKE_INSTALL_DOCDIR})

  # The .deb: Debian's own LLVM 19 - libllvm19 (libLLVM.so.19.1, which mlgo
  # and the plugin link), clang-19 (clang and clang++, which mlgo-clang runs
  # and mlgo spawns) and llvm-19 (llc-19 and opt-19) - at the 19.1 ABI the
  # plugin was built for; dpkg-shlibdeps adds the C and C++ runtimes.
  set(CPACK_GENERATOR DEB PARENT_SCOPE)
  set(CPACK_PACKAGE_NAME mlgo PARENT_SCOPE)
  set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION} PARENT_SCOPE)
  set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "machine-learning-guided inlining and register allocation for LLVM 19"
    PARENT_SCOPE)
  set(CPACK_PACKAGE_DESCRIPTION
    "A pass plugin for Debian's stock clang-19, opt-19 and llc-19 that lets \
a model decide inlining (for code size) and register-allocation eviction, \
with mlgo-clang and mlgo-clang++ (clang-19 with the plugin loaded) and the \
mlgo tool, which extracts a corpus from a build, trains and checks models, \
tunes a program's inlining decisions and measures the results on real \
packages. The shipped models are in /usr/share/mlgo/models."
    PARENT_SCOPE)
  set(CPACK_PACKAGING_INSTALL_PREFIX /usr PARENT_SCOPE)
  set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT PARENT_SCOPE)
  set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${MLGO_PACKAGE_MAINTAINER}" PARENT_SCOPE)
  set(CPACK_DEBIAN_PACKAGE_SECTION devel PARENT_SCOPE)
  set(depends
    "libllvm19 (>= 1:19.1.0), clang-19 (>= 1:19.1.0), llvm-19 (>= 1:19.1.0)")
  # `mlgo eval build` builds with CMake or make; `mlgo eval package` fetches
  # Debian sources (apt-get source, dpkg-source).
  set(recommends "cmake, make, dpkg-dev")
  # The Python package (python/CMakeLists.txt): its extension is built for
  # one Python minor version (as dh_python3 says it: >= X.Y~, << X.Y+1) and
  # imports numpy; the PPO example wants PyTorch.
  if(MLGO_HAVE_PYTHON)
    string(REPLACE "." ";" v "${MLGO_PYTHON_VERSION}")
    list(GET v 0 major)
    list(GET v 1 minor)
    math(EXPR next "${minor} + 1")
    string(APPEND depends ", python3 (>= ${major}.${minor}~), "
      "python3 (<< ${major}.${next}), python3-numpy")
    string(APPEND recommends ", python3-torch")
  endif()
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "${depends}" PARENT_SCOPE)
  set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "${recommends}" PARENT_SCOPE)
  find_program(MLGO_DPKG_SHLIBDEPS dpkg-shlibdeps)
  if(MLGO_DPKG_SHLIBDEPS)
    set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON PARENT_SCOPE)
  endif()
endfunction()
