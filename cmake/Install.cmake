# What `cmake --install` puts under the prefix (docs/ARCHITECTURE.md
# "Installing and embedding"), <libdir> being CMAKE_INSTALL_LIBDIR:
#   bin/accelcheck                          the command (component runtime)
#   include/accelcheck/accelcheck.h         the embedding interface
#   include/accelcheck/<source path>.h      the libraries' headers and .def tables,
#                                           and the flatc-generated headers
#   <libdir>/libaccelcheck_*.a              the libraries (static)
#   <libdir>/cmake/accelcheck/              find_package(accelcheck): accelcheck::<name>
#   <libdir>/pkgconfig/accelcheck.pc        the embedding interface for pkg-config
# Everything but the command is the component development.
include(CMakePackageConfigHelpers)

set(ACCELCHECK_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/accelcheck)

# The libraries, each before those it links: the order of static libraries on
# a link line.
function(accelcheck_installed_libraries out)
  set(targets accelcheck_api accelcheck_cli accelcheck_conformance conformance_schema)
  foreach(format IN LISTS ACCELCHECK_FORMATS)
    if(TARGET accelcheck_${format}_exec)
      list(APPEND targets accelcheck_${format}_exec)
    endif()
  endforeach()
  list(APPEND targets accelcheck_exec_core accelcheck_formats)
  foreach(format IN LISTS ACCELCHECK_FORMATS)
    list(APPEND targets accelcheck_${format})
    if(TARGET ${format}_schema)
      list(APPEND targets ${format}_schema)
    endif()
  endforeach()
  list(APPEND targets accelcheck_core)
  set(${out} ${targets} PARENT_SCOPE)
endfunction()

# Installs the headers and .def tables under each source folder at their
# source paths, which the libraries include them by.
function(accelcheck_install_headers)
  foreach(folder IN LISTS ARGN)
    file(GLOB_RECURSE headers RELATIVE ${PROJECT_SOURCE_DIR} CONFIGURE_DEPENDS
         ${PROJECT_SOURCE_DIR}/${folder}/*.h ${PROJECT_SOURCE_DIR}/${folder}/*.def)
    foreach(header IN LISTS headers)
      get_filename_component(header_dir ${header} DIRECTORY)
      install(FILES ${header} DESTINATION ${ACCELCHECK_INSTALL_INCLUDEDIR}/${header_dir}
              COMPONENT development)
    endforeach()
  endforeach()
endfunction()

accelcheck_installed_libraries(installed_libraries)
# accelcheck::core, accelcheck::pte, ...; every format's validator together is
# accelcheck::validators.
foreach(target IN LISTS installed_libraries)
  string(REGEX REPLACE "^accelcheck_" "" export_name ${target})
  if(target STREQUAL "accelcheck_formats")
    set(export_name validators)
  endif()
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${export_name})
endforeach()

install(TARGETS accelcheck ${installed_libraries}
  EXPORT accelcheckTargets
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT development)
install(EXPORT accelcheckTargets NAMESPACE accelcheck::
  DESTINATION ${ACCELCHECK_INSTALL_CMAKEDIR} COMPONENT development)

install(FILES ${PROJECT_SOURCE_DIR}/api/include/accelcheck/accelcheck.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/accelcheck COMPONENT development)
accelcheck_install_headers(validators reference_exec conformance tools/accelcheck)
install(DIRECTORY ${ACCELCHECK_GENERATED_ROOT}/ DESTINATION ${ACCELCHECK_INSTALL_INCLUDEDIR}
  COMPONENT development FILES_MATCHING PATTERN "*_generated.h")

configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/accelcheckConfig.cmake.in
  ${PROJECT_BINARY_DIR}/accelcheckConfig.cmake
  INSTALL_DESTINATION ${ACCELCHECK_INSTALL_CMAKEDIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/accelcheckConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/accelcheckConfig.cmake
              ${PROJECT_BINARY_DIR}/accelcheckConfigVersion.cmake
  DESTINATION ${ACCELCHECK_INSTALL_CMAKEDIR} COMPONENT development)

# accelcheck.pc: the static libraries in link order, and the prefix found
# from the file's own place, so that the prefix can move.
set(ACCELCHECK_PC_LIBS "")
foreach(target IN LISTS installed_libraries)
  get_target_property(type ${target} TYPE)
  if(type STREQUAL "STATIC_LIBRARY")
    string(APPEND ACCELCHECK_PC_LIBS " -l${target}")
  endif()
endforeach()
file(RELATIVE_PATH ACCELCHECK_PC_TO_PREFIX /${CMAKE_INSTALL_LIBDIR}/pkgconfig /)
string(REGEX REPLACE "/$" "" ACCELCHECK_PC_TO_PREFIX ${ACCELCHECK_PC_TO_PREFIX})
configure_file(${CMAKE_CURRENT_LIST_DIR}/accelcheck.pc.in ${PROJECT_BINARY_DIR}/accelcheck.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/accelcheck.pc
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT development)
