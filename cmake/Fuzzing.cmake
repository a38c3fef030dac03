# libFuzzer builds: every target is instrumented for coverage and built with
# AddressSanitizer + UndefinedBehaviorSanitizer; only the fuzz targets link
# the libFuzzer driver. Under OSS-Fuzz and ClusterFuzzLite, which pass the
# engine in LIB_FUZZING_ENGINE, their CFLAGS and CXXFLAGS choose the
# sanitizer and the coverage instrumentation instead.
if(ACCELCHECK_BUILD_FUZZERS)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "ACCELCHECK_BUILD_FUZZERS needs clang (CXX=clang++)")
  endif()
  add_compile_definitions(FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION)
  # Kept in the cache, so that a reconfigure without the variable (ninja
  # re-runs CMake when a CMakeLists.txt changes) keeps the build's flags.
  if(DEFINED ENV{LIB_FUZZING_ENGINE})
    set(ACCELCHECK_LIB_FUZZING_ENGINE "$ENV{LIB_FUZZING_ENGINE}" CACHE STRING
        "The fuzzing engine OSS-Fuzz gave (LIB_FUZZING_ENGINE)" FORCE)
  endif()
  if(ACCELCHECK_LIB_FUZZING_ENGINE)
    set(ACCELCHECK_FUZZ_ENGINE ${ACCELCHECK_LIB_FUZZING_ENGINE})
  else()
    add_compile_options(-fsanitize=fuzzer-no-link,address,undefined
                        -fno-sanitize-recover=undefined -fno-omit-frame-pointer -gline-tables-only)
    add_link_options(-fsanitize=address,undefined)
    set(ACCELCHECK_FUZZ_ENGINE -fsanitize=fuzzer)
  endif()
endif()
