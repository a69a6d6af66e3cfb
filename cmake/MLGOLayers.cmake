# How mlgo's libraries are declared, and the boundary that keeps the core
# free of LLVM IR (docs/design.md, "Layers").
#
# Every area (include/mlgo/<Area>, lib/<Area>) is one static library, added
# with mlgo_add_library and linking exactly the areas it includes. A library
# is one of two kinds:
#
#   LLVM_FREE   compiled against an include directory that holds only the
#               parts of LLVM that are a library and not a compiler: ADT,
#               Support, Config, Demangle and the llvm-c headers those use.
#               `#include "llvm/IR/Module.h"` (or Analysis, Passes, Object,
#               Bitcode...) in such a library does not compile. The core -
#               Support, Tensor, Runner, Log, Protocol, Model - is LLVM_FREE,
#               and so are Learn and InlinePolicy.
#   LLVM_BOUND  sees all of /usr/lib/llvm-19/include.
#
# Linking cannot draw the same line. Debian builds LLVM 19 as one shared
# library (libLLVM-19.so; LLVM_LINK_LLVM_DYLIB=ON, LLVM_DYLIB_COMPONENTS=all)
# and llvm_config(USE_SHARED) maps every component to it. llvm-19-dev also
# ships static component archives (libLLVMSupport.a...), but no mlgo program
# can use them: the plugin runs inside opt-19/clang-19, which have
# libLLVM-19.so loaded already, and mlgo itself needs libLLVM for IR, so a
# static Support would be a second copy of Support's global state (the
# cl::opt registry: "Option ... registered more than once!"). So every
# target, the LLVM-free ones included, links libLLVM-19.so; the LLVM
# components a library names in mlgo_add_library record what it uses (and
# would select static archives on an LLVM built without the dylib). The
# boundary is what a library can include, and test/Layering checks it.

set(MLGO_LLVM_INCLUDE_DIR ${LLVM_INCLUDE_DIR})
if(NOT EXISTS ${MLGO_LLVM_INCLUDE_DIR}/llvm/ADT/StringRef.h)
  message(FATAL_ERROR "no LLVM headers in ${MLGO_LLVM_INCLUDE_DIR} "
    "(LLVM_INCLUDE_DIR); install llvm-${MLGO_LLVM_MAJOR}-dev")
endif()

# <build>/llvm-free-include: symbolic links to the allowed parts of LLVM's
# include directory. llvm-c is linked file by file: Core.h and its
# neighbours are LLVM IR through the C API.
set(MLGO_LLVM_FREE_INCLUDE_DIR ${PROJECT_BINARY_DIR}/llvm-free-include)
set(MLGO_LLVM_FREE_PARTS
  llvm/ADT llvm/Config llvm/Demangle llvm/Support
  llvm-c/DataTypes.h llvm-c/Deprecated.h llvm-c/Error.h
  llvm-c/ErrorHandling.h llvm-c/ExternC.h llvm-c/Support.h llvm-c/Types.h
  llvm-c/blake3.h)
file(MAKE_DIRECTORY ${MLGO_LLVM_FREE_INCLUDE_DIR}/llvm
                    ${MLGO_LLVM_FREE_INCLUDE_DIR}/llvm-c)
foreach(part ${MLGO_LLVM_FREE_PARTS})
  set(link ${MLGO_LLVM_FREE_INCLUDE_DIR}/${part})
  if(NOT IS_SYMLINK ${link})
    file(CREATE_LINK ${MLGO_LLVM_INCLUDE_DIR}/${part} ${link} SYMBOLIC)
  endif()
endforeach()

add_library(MLGOLLVMFreeHeaders INTERFACE)
target_include_directories(MLGOLLVMFreeHeaders SYSTEM INTERFACE
  ${MLGO_LLVM_FREE_INCLUDE_DIR})
add_library(MLGOLLVMHeaders INTERFACE)
target_include_directories(MLGOLLVMHeaders SYSTEM INTERFACE
  ${MLGO_LLVM_INCLUDE_DIR})

# mlgo_add_library(<name> LLVM_FREE|LLVM_BOUND
#                  SOURCES <file>...
#                  [DEPENDS <mlgo library>...]
#                  [LIBS <other library>...]
#                  [LLVM_COMPONENTS <component>...])
#
# A static library of one area. DEPENDS are the mlgo libraries whose
# headers it includes (linked PUBLIC, as its headers may include theirs);
# test/Layering checks that they are exactly those and that they form a
# DAG.
function(mlgo_add_library name)
  cmake_parse_arguments(ARG "LLVM_FREE;LLVM_BOUND" ""
    "SOURCES;DEPENDS;LIBS;LLVM_COMPONENTS" ${ARGN})
  if((ARG_LLVM_FREE AND ARG_LLVM_BOUND) OR
     (NOT ARG_LLVM_FREE AND NOT ARG_LLVM_BOUND))
    message(FATAL_ERROR "${name}: say LLVM_FREE or LLVM_BOUND, not both")
  endif()
  add_library(${name} STATIC ${ARG_SOURCES})
  if(ARG_LLVM_FREE)
    set(kind llvm-free)
    target_link_libraries(${name} PUBLIC MLGOLLVMFreeHeaders)
  else()
    set(kind llvm-bound)
    target_link_libraries(${name} PUBLIC MLGOLLVMHeaders)
  endif()
  target_link_libraries(${name} PUBLIC ${ARG_DEPENDS} ${ARG_LIBS})
  llvm_config(${name} USE_SHARED ${ARG_LLVM_COMPONENTS})
  set_target_properties(${name} PROPERTIES MLGO_KIND ${kind}
    MLGO_DEPENDS "${ARG_DEPENDS}")
  set_property(GLOBAL APPEND PROPERTY MLGO_LIBRARIES ${name})
endfunction()

# mlgo_link_program(<program> [<mlgo library>...])
#
# A program (tool, plugin, test, benchmark): it sees all of LLVM's headers,
# links libLLVM-19.so and the mlgo libraries given, and is checked by
# test/Layering like a library (it links exactly the mlgo libraries it
# includes).
function(mlgo_link_program target)
  target_link_libraries(${target} PRIVATE ${ARGN} MLGOLLVMHeaders)
  llvm_config(${target} USE_SHARED)
  set_property(TARGET ${target} APPEND PROPERTY MLGO_DEPENDS ${ARGN})
  set_property(GLOBAL APPEND PROPERTY MLGO_PROGRAMS ${target})
endfunction()

# Writes <build>/mlgo-layers.json, what test/Layering checks: every mlgo
# library and program with its kind, its sources (relative to the source
# tree) and the mlgo libraries it declares, and the parts of LLVM's include
# directory LLVM-free code may use. Called once, after every target exists.
function(mlgo_write_layers)
  get_property(libs GLOBAL PROPERTY MLGO_LIBRARIES)
  get_property(programs GLOBAL PROPERTY MLGO_PROGRAMS)
  list(REMOVE_DUPLICATES programs)
  set(entries "")
  foreach(t ${libs} ${programs})
    get_target_property(kind ${t} MLGO_KIND)
    if(NOT kind)
      set(kind program)
    endif()
    get_target_property(dir ${t} SOURCE_DIR)
    get_target_property(srcs ${t} SOURCES)
    get_target_property(deps ${t} MLGO_DEPENDS)
    if(NOT deps)
      set(deps "")
    endif()
    set(files "")
    foreach(s ${srcs})
      if(NOT IS_ABSOLUTE ${s})
        set(s ${dir}/${s})
      endif()
      # Generated sources (embedded models) are not checked.
      string(FIND ${s} "${PROJECT_BINARY_DIR}/" generated)
      if(NOT generated EQUAL 0)
        file(RELATIVE_PATH s ${PROJECT_SOURCE_DIR} ${s})
        list(APPEND files "\"${s}\"")
      endif()
    endforeach()
    set(quoted "")
    foreach(d ${deps})
      list(APPEND quoted "\"${d}\"")
    endforeach()
    list(JOIN files ", " files)
    list(JOIN quoted ", " quoted)
    list(APPEND entries
      "  \"${t}\": {\"kind\": \"${kind}\", \"sources\": [${files}], \"depends\": [${quoted}]}")
  endforeach()
  set(parts "")
  foreach(p ${MLGO_LLVM_FREE_PARTS})
    list(APPEND parts "\"${p}\"")
  endforeach()
  list(JOIN parts ", " parts)
  list(APPEND entries "  \"llvm_free_parts\": [${parts}]")
  list(JOIN entries ",\n" entries)
  file(WRITE ${PROJECT_BINARY_DIR}/mlgo-layers.json "{\n${entries}\n}\n")
endfunction()
