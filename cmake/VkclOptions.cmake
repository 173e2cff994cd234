# One place for the compile options every vkcl target uses.
function(vkcl_set_compile_options target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wno-unused-parameter
                         -Wno-missing-field-initializers)
  if(VKCL_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

# Fuzzing: every target is instrumented for libFuzzer's coverage (the fuzz targets alone link
# its main) and built with ASan and UBSan unless other sanitizers are named; UBSan's findings
# abort, so that libFuzzer keeps the input.
if(VKCL_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "VKCL_FUZZ needs clang's libFuzzer: -DCMAKE_C_COMPILER=clang-15 "
                        "-DCMAKE_CXX_COMPILER=clang++-15 (scripts/fuzz.sh does this)")
  endif()
  if(NOT VKCL_SANITIZE)
    set(VKCL_SANITIZE address,undefined)
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link -fno-sanitize-recover=undefined)
endif()

if(VKCL_SANITIZE)
  add_compile_options(-fsanitize=${VKCL_SANITIZE} -fno-omit-frame-pointer)
  add_link_options(-fsanitize=${VKCL_SANITIZE})
endif()
