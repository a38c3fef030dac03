# Every dependency is a Debian package, found through its CMake config.
find_package(FlatBuffers REQUIRED CONFIG)  # libflatbuffers-dev, flatbuffers-compiler
find_package(nlohmann_json 3.10 REQUIRED CONFIG)  # nlohmann-json3-dev
# zlib inflates gzip streams (validators/core/gzip.h): it gives the exact end
# of a member, which a container padding the stream needs checked.
find_package(ZLIB REQUIRED)  # zlib1g-dev
if(ACCELCHECK_BUILD_TESTS)
  find_package(GTest REQUIRED)  # libgtest-dev
  find_package(rapidcheck REQUIRED CONFIG)  # librapidcheck-dev
endif()

find_program(FLATC_EXECUTABLE flatc REQUIRED)
