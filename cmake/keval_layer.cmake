# One static library per src/ directory, so that the build refuses an include up the layers
# (docs/decisions/0001-layers-as-cmake-libraries.md).
#
# keval_layer(NAME LAYER N [DEPS dir...] [TEST_DEPS dir...] [LINK item...] [PRIVATE_INCLUDES dir...]
#             [PRECOMPILE header...])
#
# src/NAME becomes keval_NAME, with a slash as an underscore: src/engine/jobs is keval_engine_jobs
# (src/engine is a group of libraries, one a concern, and no library itself). Its include root
# holds a single entry, NAME -> src/NAME, and it sees another directory's headers only through a
# library it links, so `#include "engine/session/run_session.h"` from judge/ fails to compile. A
# dependency must be declared before the library (so there is no circle) and lie on its layer or
# a lower one. The directory's tests (*_test.cc) become an object library that keval_tests
# gathers; TEST_DEPS are what only they need. tests/layers checks that DEPS and TEST_DEPS name
# exactly the directories the files include.
#
# A clean build on a 2-core CI machine spent most of its 13 minutes parsing the same heavy headers
# (nlohmann/json, CLI11, gtest) in every file, so each library reuses one precompiled header:
# keval_pch's, or, with PRECOMPILE, its own of the common headers plus those; and compiles its
# files in unity batches, so the templates they share are instantiated and optimised once per
# batch (a file-local helper therefore needs a name no other file of its directory uses). Tests
# compile at -O0 against their own precompiled header: they are compiled more often than run.

set(KEVAL_COMMON_HEADERS <algorithm> <filesystem> <fstream> <map> <optional> <set> <sstream>
  <stdexcept> <string> <vector> <nlohmann/json.hpp>)

function(keval_precompiled_headers)
  file(WRITE ${CMAKE_BINARY_DIR}/keval_pch.cc "// keval_pch: owns the shared precompiled header.\n")
  add_library(keval_pch STATIC ${CMAKE_BINARY_DIR}/keval_pch.cc)
  target_link_libraries(keval_pch PUBLIC nlohmann_json::nlohmann_json)
  target_precompile_headers(keval_pch PRIVATE ${KEVAL_COMMON_HEADERS})
  add_library(keval_test_pch OBJECT ${CMAKE_BINARY_DIR}/keval_pch.cc)
  target_link_libraries(keval_test_pch PUBLIC nlohmann_json::nlohmann_json GTest::gtest)
  target_compile_options(keval_test_pch PRIVATE -O0)
  target_precompile_headers(keval_test_pch PRIVATE ${KEVAL_COMMON_HEADERS} <gtest/gtest.h>)
endfunction()

function(keval_layer name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "LAYER" "DEPS;TEST_DEPS;LINK;PRIVATE_INCLUDES;PRECOMPILE")
  if(NOT arg_LAYER)
    message(FATAL_ERROR "keval_layer(${name}): LAYER is required")
  endif()
  string(REPLACE "/" "_" id ${name})
  foreach(dep IN LISTS arg_DEPS arg_TEST_DEPS)
    string(REPLACE "/" "_" dep_id ${dep})
    if(NOT TARGET keval_${dep_id})
      message(FATAL_ERROR "src/${name} depends on src/${dep}, which is not declared before it "
        "(a circle, or a library declared out of order)")
    endif()
    get_target_property(dep_layer keval_${dep_id} KEVAL_LAYER)
    if(dep_layer GREATER arg_LAYER)
      message(FATAL_ERROR "src/${name} (layer ${arg_LAYER}) depends on src/${dep} "
        "(layer ${dep_layer}): an include up the layers")
    endif()
  endforeach()
  list(TRANSFORM arg_DEPS REPLACE "/" "_")
  list(TRANSFORM arg_TEST_DEPS REPLACE "/" "_")
  list(TRANSFORM arg_DEPS PREPEND keval_)
  list(TRANSFORM arg_TEST_DEPS PREPEND keval_)

  set(root ${CMAKE_BINARY_DIR}/layer_include/${id})
  get_filename_component(parent ${root}/${name} DIRECTORY)
  file(MAKE_DIRECTORY ${parent})
  file(CREATE_LINK ${CMAKE_SOURCE_DIR}/src/${name} ${root}/${name} SYMBOLIC)

  file(GLOB_RECURSE sources CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/${name}/*.cc)
  set(tests ${sources})
  list(FILTER tests INCLUDE REGEX "_test\\.cc$")
  list(FILTER sources EXCLUDE REGEX "_test\\.cc$")
  # An executable's entry point, not part of the library.
  list(FILTER sources EXCLUDE REGEX "/main\\.cc$")

  add_library(keval_${id} STATIC ${sources})
  set_target_properties(keval_${id} PROPERTIES KEVAL_LAYER ${arg_LAYER} UNITY_BUILD ON)
  target_include_directories(keval_${id} PUBLIC ${root})
  if(arg_PRIVATE_INCLUDES)
    target_include_directories(keval_${id} PRIVATE ${arg_PRIVATE_INCLUDES})
  endif()
  target_link_libraries(keval_${id} PUBLIC ${arg_DEPS} nlohmann_json::nlohmann_json ${arg_LINK})
  if(arg_PRECOMPILE)
    target_precompile_headers(keval_${id} PRIVATE ${KEVAL_COMMON_HEADERS} ${arg_PRECOMPILE})
  else()
    target_precompile_headers(keval_${id} REUSE_FROM keval_pch)
  endif()

  if(tests)
    add_library(keval_${id}_tests OBJECT ${tests})
    target_link_libraries(keval_${id}_tests PUBLIC keval_${id} ${arg_TEST_DEPS} GTest::gtest)
    target_compile_options(keval_${id}_tests PRIVATE -O0)
    set_target_properties(keval_${id}_tests PROPERTIES UNITY_BUILD ON)
    target_precompile_headers(keval_${id}_tests REUSE_FROM keval_test_pch)
    set_property(GLOBAL APPEND PROPERTY KEVAL_TEST_LIBRARIES keval_${id}_tests)
  endif()
endfunction()

# Every entry of src/ is a declared directory, or a group (src/engine) whose every entry is one:
# code outside the layers would escape the check.
function(keval_check_every_directory_has_a_layer)
  file(GLOB entries CONFIGURE_DEPENDS LIST_DIRECTORIES true RELATIVE ${CMAKE_SOURCE_DIR}/src
    ${CMAKE_SOURCE_DIR}/src/*)
  foreach(entry IN LISTS entries)
    if(TARGET keval_${entry})
      continue()
    endif()
    file(GLOB members CONFIGURE_DEPENDS LIST_DIRECTORIES true RELATIVE ${CMAKE_SOURCE_DIR}/src
      ${CMAKE_SOURCE_DIR}/src/${entry}/*)
    set(declared 0)
    foreach(member IN LISTS members)
      string(REPLACE "/" "_" member_id ${member})
      if(TARGET keval_${member_id})
        math(EXPR declared "${declared} + 1")
      else()
        message(FATAL_ERROR "src/${member} belongs to no layer: declare it with keval_layer "
          "in CMakeLists.txt")
      endif()
    endforeach()
    if(declared EQUAL 0)
      message(FATAL_ERROR "src/${entry} belongs to no layer: declare it with keval_layer "
        "in CMakeLists.txt")
    endif()
  endforeach()
endfunction()
