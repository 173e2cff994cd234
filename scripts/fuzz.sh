#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/, clang-15 with ASan and UBSan) and runs each for a
# bounded time with its seed corpus; any crash, leak, UBSan report or hang ends the run with
# the input kept under <work>/artifacts and a nonzero exit. Not part of ctest's run.
#
# Usage: scripts/fuzz.sh [seconds per target]   (default 120)
#   VKCL_FUZZ_BUILD  the fuzz build folder (default build-fuzz)
#   VKCL_FUZZ_WORK   corpora and artifacts (default <fuzz build>/work); corpora grow across runs
#   VKCL_SEED_BUILD  a normal build whose tests produce the translator's seeds, run once with
#                    VKCL_DUMP_KERNEL_SPIRV (default build; vkcl and the tests are built there)
#   VKCL_SEED_FILTER which runtime tests to run for seeds (a gtest filter; default all, some
#                    minutes)
#   VKCL_FUZZ_TARGETS  which targets to run (default "fuzz_translate fuzz_program_binary")
# A crash is replayed with: <fuzz build>/fuzz/<target> <artifact>
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
SECONDS_EACH=${1:-120}
FUZZ_BUILD=${VKCL_FUZZ_BUILD:-build-fuzz}
SEED_BUILD=${VKCL_SEED_BUILD:-build}
WORK=${VKCL_FUZZ_WORK:-$FUZZ_BUILD/work}
TARGETS=${VKCL_FUZZ_TARGETS:-fuzz_translate fuzz_program_binary}
JOBS=$(nproc)

export VK_ICD_FILENAMES=${VK_ICD_FILENAMES:-/usr/share/vulkan/icd.d/lvp_icd.x86_64.json}
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp}
CACHE_DIR=$(mktemp -d)
trap 'rm -rf "$CACHE_DIR"' EXIT
export VKCL_CACHE_DIR=$CACHE_DIR

cmake -S . -B "$FUZZ_BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang-15 \
  -DCMAKE_CXX_COMPILER=clang++-15 -DVKCL_FUZZ=ON -DVKCL_BUILD_TESTS=OFF >/dev/null
cmake --build "$FUZZ_BUILD" -j"$JOBS" --target fuzz_translate fuzz_program_binary fuzz_program_binary_seeds

# Seeds for the translator: every Kernel SPIR-V module the tests give it, and the
# clCreateProgramWithIL test files. Made once; delete <work>/seeds to make them again.
SEEDS_T=$WORK/seeds/translate
if [ -z "$(ls -A "$SEEDS_T" 2>/dev/null)" ]; then
  mkdir -p "$SEEDS_T"
  [ -f "$SEED_BUILD/CMakeCache.txt" ] || cmake -S . -B "$SEED_BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build "$SEED_BUILD" -j"$JOBS" --target vkcl vkcl_runtime_tests vkcl_translator_tests vkcl_il_test_data
  SEED_ABS=$(cd "$SEED_BUILD" && pwd)
  echo "Dumping the tests' Kernel SPIR-V into $SEEDS_T (a few minutes)"
  # The mutation test's modules are mostly invalid; libFuzzer makes its own.
  VKCL_DUMP_KERNEL_SPIRV=$(cd "$SEEDS_T" && pwd) "$SEED_ABS/tests/vkcl_translator_tests" \
    --gtest_filter=-Mutation.* >/dev/null 2>&1 || true
  VKCL_DUMP_KERNEL_SPIRV=$(cd "$SEEDS_T" && pwd) OCL_ICD_VENDORS=$SEED_ABS/vkcl.icd OCL_ICD_FILENAMES= \
    "$SEED_ABS/tests/vkcl_runtime_tests" --gtest_filter="${VKCL_SEED_FILTER:-*}" >/dev/null 2>&1 || true
  cp "$SEED_ABS"/tests/il/*.spv "$SEEDS_T"/ 2>/dev/null || true
  echo "$(ls "$SEEDS_T" | wc -l) translator seeds"
fi

# Seeds for the binary loader: real binaries of a few kernels from source and of up to 60
# of the translator's seeds.
SEEDS_B=$WORK/seeds/program_binary
if [ -z "$(ls -A "$SEEDS_B" 2>/dev/null)" ]; then
  mkdir -p "$SEEDS_B"
  ASAN_OPTIONS=detect_leaks=0 "$FUZZ_BUILD/fuzz/fuzz_program_binary_seeds" "$SEEDS_B" \
    $(ls -S "$SEEDS_T"/*.spv | tail -n 60)
fi

export LSAN_OPTIONS=suppressions=$ROOT/tests/sanitizers/lsan.supp
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
status=0
for target in $TARGETS; do
  name=${target#fuzz_}
  corpus=$WORK/corpus/$name
  artifacts=$WORK/artifacts/$name
  mkdir -p "$corpus" "$artifacts"
  echo "== $target for $SECONDS_EACH s"
  # -timeout: a translation that takes a minute is a hang (they take milliseconds to a few
  # seconds under ASan). New inputs go to the corpus, the seeds stay as they are.
  set +e
  "$FUZZ_BUILD/fuzz/$target" -max_total_time="$SECONDS_EACH" -timeout=60 -rss_limit_mb=8192 \
    -print_final_stats=1 -artifact_prefix="$artifacts/" "$corpus" "$WORK/seeds/$name" \
    >"$WORK/$name.log" 2>&1
  rc=$?
  set -e
  grep -E "^(#[0-9]+ +(INITED|DONE)|stat::number_of_executed_units|==[0-9]+==ERROR|SUMMARY|.*runtime error)" \
    "$WORK/$name.log" || true
  if [ $rc != 0 ]; then
    echo "$target found a problem (exit $rc): see $WORK/$name.log and $artifacts/"
    status=1
  fi
done
exit $status
