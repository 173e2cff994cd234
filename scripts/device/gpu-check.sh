#!/usr/bin/env bash
# The whole check on a lent GPU machine in one call (device time is short): vkcl's runtime and
# API tests on the GPU's Vulkan driver, then Debian's clients (clpeak, CLBlast's SGEMM test) and
# the bench suite against vkcl and the GPU's own OpenCL. Each step has its own time limit so one
# hang costs only its share; logs go to $OUT. Pack first (scripts/device/pack.sh), then call the
# device tool with carry [".devrun"] and: bash scripts/device/gpu-check.sh [steps...]
# Steps: tests bench clpeak clblast gemmstats shapes (default: the first four, in that order; about 5
# minutes on an H100 once the machine is up).
set -u
out=${OUT:-/tmp/gpu-check}
mkdir -p "$out"
. scripts/device/setup.sh > "$out/setup.txt" 2>&1
nvidia-smi -L 2>&1 | tee -a "$out/setup.txt"
steps=${*:-tests bench clpeak clblast}
vendors=$(ls /tmp/vendors)
step() {  # step <name> <seconds> <command...>: runs it with a limit, keeps the log, prints its tail
  local name=$1 limit=$2; shift 2
  local start=$SECONDS
  timeout "$limit" "$@" > "$out/$name.txt" 2>&1
  echo "== $name: exit $? in $((SECONDS - start)) s"
  tail -n 4 "$out/$name.txt"
}
for s in $steps; do
  case $s in
  tests)
    export OCL_ICD_VENDORS=/tmp/vendors/vkcl.icd
    VKCL_PROBE_LOG=1 step demo 30 build/examples/vkcl_demo
    step api 40 build/tests/vkcl_api_tests --gtest_brief=1
    step runtime 150 build/tests/vkcl_runtime_tests --gtest_brief=1
    grep -E '^\[  FAILED|Failure|error' "$out/runtime.txt" | head -n 30
    unset OCL_ICD_VENDORS ;;
  clpeak)
    # vkcl also prints the driver's statistics of each pipeline it makes (VKCL_PIPELINE_STATS).
    for v in $vendors; do
      OCL_ICD_VENDORS=/tmp/vendors/$v VKCL_PIPELINE_STATS=1 step "clpeak-${v%.icd}" 75 clpeak
    done ;;
  clblast)
    OCL_ICD_VENDORS=/tmp/vendors/vkcl.icd step clblast-xgemm 75 clblast_test_xgemm -precision 32 ;;
  gemmstats)
    # The driver's statistics (registers, spills) of the SGEMM kernels, vkcl's own and CLBlast's.
    OCL_ICD_VENDORS=/tmp/vendors/vkcl.icd VKCL_PIPELINE_STATS=1 \
      step gemmstats 60 build/bench/vkcl_bench --only SGEMM --gemm-n 4096 --reps 3 ;;
  shapes)
    # clpeak's float16 bandwidth kernel in several shapes on every platform (docs/not-implemented.md).
    g=1073741824
    for k in v16_local v16_global v16_local_f4 v16_local_f4_ordered; do
      OCL_ICD_VENDORS=/tmp/vendors step "shape-$k" 30 build/bench/vkcl_kernel_time bench/kernels/bandwidth_shapes.cl \
        "$k" $((g / 1024)) 256 $g $((g / 256))
    done ;;
  bench)
    [ -x build/bench/vkcl_bench ] && step bench 240 bench/run-bench.sh build --vendors /tmp/vendors --gemm-n 4096 ;;
  esac
done
