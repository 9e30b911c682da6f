# The fuzz harnesses (docs/fuzzing.md): tests/fuzz/<name>_fuzz.cc, each a LLVMFuzzerTestOneInput
# over one parser that takes outside input, seeded from tests/fuzz/corpus/<name>/.
#   - In the normal build (make test) each harness links tests/fuzz/driver.cc, and ctest runs
#     fuzz.<name>: its corpus replayed, then TESSERA_FUZZ_SHORT_RUNS deterministic mutations.
#   - With TESSERA_FUZZ (make fuzz, clang only) each links libFuzzer instead, every target is
#     built with coverage instrumentation, and scripts/run-fuzzers.sh runs the harnesses listed
#     in fuzz-harnesses.txt of the build directory.

set(TESSERA_FUZZ_SHORT_RUNS 2000 CACHE STRING "Mutations per harness in the short runs of make test")

add_library(tessera_fuzz_support STATIC tests/fuzz/fuzz_support.cc tests/fuzz/fuzz_node.cc
  tests/fuzz/request_text.cc tests/fuzz/api_world.cc)
target_link_libraries(tessera_fuzz_support PUBLIC tessera_app)
target_include_directories(tessera_fuzz_support PUBLIC ${CMAKE_SOURCE_DIR}/tests)
target_compile_definitions(tessera_fuzz_support PUBLIC TESSERA_SOURCE_DIR="${CMAKE_SOURCE_DIR}")
target_precompile_headers(tessera_fuzz_support REUSE_FROM tessera_core)
if(NOT TESSERA_FUZZ)
  add_library(tessera_fuzz_driver OBJECT tests/fuzz/driver.cc)
endif()

# Derived seeds: the demo bundle as bundle_yaml inputs (tests/fuzz/extract_seeds.sh).
set(TESSERA_FUZZ_SEEDS ${CMAKE_BINARY_DIR}/fuzz-seeds)
file(GLOB_RECURSE TESSERA_DEMO_BUNDLE_FILES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/demo/tutorial/*.yaml)
add_custom_command(OUTPUT ${TESSERA_FUZZ_SEEDS}/stamp
  COMMAND ${CMAKE_SOURCE_DIR}/tests/fuzz/extract_seeds.sh ${CMAKE_SOURCE_DIR} ${TESSERA_FUZZ_SEEDS}
  COMMAND ${CMAKE_COMMAND} -E touch ${TESSERA_FUZZ_SEEDS}/stamp
  DEPENDS ${CMAKE_SOURCE_DIR}/tests/fuzz/extract_seeds.sh ${TESSERA_DEMO_BUNDLE_FILES}
  COMMENT "Extracting fuzz seeds")
add_custom_target(tessera_fuzz_seeds DEPENDS ${TESSERA_FUZZ_SEEDS}/stamp)

set(TESSERA_FUZZ_LIST ${CMAKE_BINARY_DIR}/fuzz-harnesses.txt)
file(WRITE ${TESSERA_FUZZ_LIST} "")

# tessera_fuzz_harness(<name> MAX_LEN <bytes> [RUNS <short-run mutations>] [EXTRACTED_SEEDS]
#                      [SOURCES <extra>...])
# EXTRACTED_SEEDS: extract_seeds.sh writes seeds for this harness too.
function(tessera_fuzz_harness name)
  cmake_parse_arguments(FUZZ "EXTRACTED_SEEDS" "MAX_LEN;RUNS" "SOURCES" ${ARGN})
  if(NOT FUZZ_RUNS)
    set(FUZZ_RUNS ${TESSERA_FUZZ_SHORT_RUNS})
  endif()
  add_executable(fuzz_${name} tests/fuzz/${name}_fuzz.cc ${FUZZ_SOURCES})
  target_link_libraries(fuzz_${name} PRIVATE tessera_fuzz_support)
  target_precompile_headers(fuzz_${name} REUSE_FROM tessera_core)
  set(corpus ${CMAKE_SOURCE_DIR}/tests/fuzz/corpus/${name})
  if(FUZZ_EXTRACTED_SEEDS)
    add_dependencies(fuzz_${name} tessera_fuzz_seeds)
    list(APPEND corpus ${TESSERA_FUZZ_SEEDS}/${name})
  endif()
  set(dictionary ${CMAKE_SOURCE_DIR}/tests/fuzz/dictionaries/${name}.dict)
  if(TESSERA_FUZZ)
    target_link_options(fuzz_${name} PRIVATE -fsanitize=fuzzer)
    list(JOIN corpus " " corpus_text)
    file(APPEND ${TESSERA_FUZZ_LIST} "${name} ${FUZZ_MAX_LEN} ${dictionary} ${corpus_text}\n")
  else()
    target_sources(fuzz_${name} PRIVATE $<TARGET_OBJECTS:tessera_fuzz_driver>)
    file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/fuzz-artifacts)
    add_test(NAME fuzz.${name}
      COMMAND fuzz_${name} -runs=${FUZZ_RUNS} -seed=1 -max_len=${FUZZ_MAX_LEN} -dict=${dictionary}
        -artifact_prefix=${CMAKE_BINARY_DIR}/fuzz-artifacts/${name}- ${corpus})
    # Short runs start early (COST) so they overlap the long test binaries.
    set_tests_properties(fuzz.${name} PROPERTIES COST 1000 TIMEOUT 300 LABELS fuzz)
  endif()
endfunction()

tessera_fuzz_harness(http_request MAX_LEN 4096)
tessera_fuzz_harness(api_request MAX_LEN 8192 RUNS 1500)
tessera_fuzz_harness(filter MAX_LEN 4096)
tessera_fuzz_harness(element_id MAX_LEN 256 RUNS 5000)
tessera_fuzz_harness(bundle_yaml MAX_LEN 32768 RUNS 600 EXTRACTED_SEEDS)
tessera_fuzz_harness(package_zip MAX_LEN 8192 RUNS 1500
  SOURCES tests/storage/package/package_samples.cc)
tessera_fuzz_harness(multipart MAX_LEN 4096)
tessera_fuzz_harness(toml_config MAX_LEN 4096)
