# Generates C++ headers from .fbs schemas at build time with the system flatc,
# so the headers always match the installed flatbuffers library version.
#
#   accelcheck_flatc(<target> OUTPUT_DIR <dir> SCHEMAS <a.fbs> ...)
# creates an INTERFACE library <target> whose include path reaches the headers
# as "<dir relative to the generated root>/<name>_generated.h".
set(ACCELCHECK_GENERATED_ROOT ${CMAKE_BINARY_DIR}/generated)

function(accelcheck_flatc target)
  cmake_parse_arguments(ARG "" "OUTPUT_DIR" "SCHEMAS" ${ARGN})
  set(out_dir ${ACCELCHECK_GENERATED_ROOT}/${ARG_OUTPUT_DIR})
  set(headers)
  foreach(schema ${ARG_SCHEMAS})
    get_filename_component(name ${schema} NAME_WE)
    list(APPEND headers ${out_dir}/${name}_generated.h)
  endforeach()
  add_custom_command(
    OUTPUT ${headers}
    COMMAND ${FLATC_EXECUTABLE} --cpp --scoped-enums -o ${out_dir} ${ARG_SCHEMAS}
    DEPENDS ${ARG_SCHEMAS}
    COMMENT "flatc: generating ${ARG_OUTPUT_DIR}"
    VERBATIM)
  add_custom_target(${target}_headers DEPENDS ${headers})
  add_library(${target} INTERFACE)
  add_dependencies(${target} ${target}_headers)
  target_include_directories(${target} INTERFACE $<BUILD_INTERFACE:${ACCELCHECK_GENERATED_ROOT}>
                                                 $<INSTALL_INTERFACE:${ACCELCHECK_INSTALL_INCLUDEDIR}>)
  target_link_libraries(${target} INTERFACE flatbuffers::flatbuffers)
endfunction()
