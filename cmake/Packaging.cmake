# `cpack` in the build directory (or the `package` target) makes the Debian
# package of the command: accelcheck_<version>_<arch>.deb with
# /usr/bin/accelcheck, stripped, depending on the shared libraries it really
# links (found by dpkg-shlibdeps, from dpkg-dev). The project's libraries are
# static, so the command runs alone; the libraries and headers (component
# development) are not packaged: `cmake --install` provides them
# (docs/ARCHITECTURE.md "Installing and embedding").
set(ACCELCHECK_PACKAGE_MAINTAINER "accelcheck maintainers <accelcheck@localhost>"
    CACHE STRING "The Maintainer field of the Debian package")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME accelcheck)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "validates ML-accelerator executables (ExecuTorch .pte, Gemini IR, Tensil models)")
# The Description field's long text, after the summary.
string(CONCAT CPACK_DEBIAN_RUNTIME_DESCRIPTION
    "accelcheck checks every invariant of a format, reports every problem in one run with a "
    "stable rule id, the byte offset and the object path, and never crashes on hostile input.")
# One package, of the component runtime, under the project's name.
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL runtime)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME accelcheck)
set(CPACK_DEBIAN_RUNTIME_FILE_NAME DEB-DEFAULT)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER ${ACCELCHECK_PACKAGE_MAINTAINER})
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_COMPRESSION_TYPE xz)
include(CPack)
