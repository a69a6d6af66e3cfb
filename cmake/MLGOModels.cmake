# mlgo_embed_model(<target> <name> <model.json>)
#
# Compiles a text model into a static library at build time ("release mode";
# see include/mlgo/Model/ModelCodeGen.h). mlgo-codegen writes
#   ${CMAKE_CURRENT_BINARY_DIR}/mlgo-models/include/mlgo/embedded/<id>.h
#   ${CMAKE_CURRENT_BINARY_DIR}/mlgo-models/include/mlgo/embedded/<id>.cpp
# where <id> is <name> with every character outside [A-Za-z0-9_] replaced by
# '_' ("inline-oz" -> "inline_oz"). <target> is a static library holding the
# generated code; linking it puts the header on the include path:
#
#   mlgo_embed_model(MLGOModelInlineOz inline-oz
#                    ${PROJECT_SOURCE_DIR}/models/inline-oz/model.json)
#   target_link_libraries(MyPlugin PRIVATE MLGOModelInlineOz MLGOModel)
#
#   #include "mlgo/embedded/inline_oz.h"
#   auto R = mlgo::EmbeddedRunner::create<mlgo::embedded::inline_oz::Model>(
#       CompilerInputSpecs);
#
# The code is regenerated whenever the model file or the generator changes.
# <target> records the model's <name> and, for a model file that exists at
# configure time (not one the build generates), the MD5 of its bytes
# (target properties MLGO_MODEL_NAME and MLGO_MODEL_MD5; a change to the
# file reconfigures), which mlgo_describe_embedded_models turns into the
# list `mlgo --version` prints.
# It is compiled with -ffp-contract=off, as the interpreter is, so both
# compute bit-identical results. Generated code is never committed.
function(mlgo_embed_model target name model_json)
  string(MAKE_C_IDENTIFIER "${name}" id)
  if(NOT IS_ABSOLUTE "${model_json}")
    set(model_json "${CMAKE_CURRENT_SOURCE_DIR}/${model_json}")
  endif()
  set(inc_dir ${CMAKE_CURRENT_BINARY_DIR}/mlgo-models/include)
  set(out_dir ${inc_dir}/mlgo/embedded)
  add_custom_command(
    OUTPUT ${out_dir}/${id}.h ${out_dir}/${id}.cpp
    COMMAND mlgo-codegen ${model_json} -o ${out_dir} --id ${id}
            --header-include mlgo/embedded/${id}.h
    DEPENDS mlgo-codegen ${model_json}
    COMMENT "Generating C++ for model ${name} from ${model_json}"
    VERBATIM)
  add_library(${target} STATIC ${out_dir}/${id}.cpp ${out_dir}/${id}.h)
  target_include_directories(${target} PUBLIC ${inc_dir})
  target_compile_options(${target} PRIVATE -ffp-contract=off -fno-fast-math)
  set_target_properties(${target} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  # A model the build generates (bench/, unittests/) has no bytes yet at
  # configure time, and no MD5.
  set_target_properties(${target} PROPERTIES MLGO_MODEL_NAME ${name})
  if(EXISTS ${model_json})
    file(MD5 ${model_json} md5)
    set_target_properties(${target} PROPERTIES MLGO_MODEL_MD5 ${md5})
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
      ${model_json})
  endif()
endfunction()

# mlgo_describe_embedded_models(<out-var> [TARGETS <target>...]
#                               [FILES <name> <file>...])
#
# Sets <out-var> to the C++ initializer list of the models a program
# embeds, `{"<name>", "<md5>"},` each on a line (for mlgo/Config.h's
# EmbeddedModels): first those the mlgo_embed_model <target>s compile to
# C++, then each model embedded some other way (as text, like the tune
# ranker) by its <name> and the MD5 of its <file>.
function(mlgo_describe_embedded_models out_var)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "" "TARGETS;FILES")
  set(cxx "")
  foreach(target ${ARG_TARGETS})
    if(NOT TARGET ${target})
      message(FATAL_ERROR "mlgo_describe_embedded_models: no target "
        "${target} (an mlgo_embed_model target)")
    endif()
    get_target_property(name ${target} MLGO_MODEL_NAME)
    get_target_property(md5 ${target} MLGO_MODEL_MD5)
    if(NOT md5)
      message(FATAL_ERROR "mlgo_describe_embedded_models: ${target} embeds "
        "a model generated at build time, which has no MD5 at configure time")
    endif()
    string(APPEND cxx "    {\"${name}\", \"${md5}\"},\n")
  endforeach()
  while(ARG_FILES)
    list(POP_FRONT ARG_FILES name file)
    if(NOT file OR NOT EXISTS "${file}")
      message(FATAL_ERROR "mlgo_describe_embedded_models: the file of model "
        "${name} ('${file}') does not exist")
    endif()
    file(MD5 ${file} md5)
    string(APPEND cxx "    {\"${name}\", \"${md5}\"},\n")
  endwhile()
  set(${out_var} "${cxx}" PARENT_SCOPE)
endfunction()
