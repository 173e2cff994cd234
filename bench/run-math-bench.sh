#!/usr/bin/env bash
# Runs the math throughput benchmark with vkcl, Mesa rusticl and PoCL visible to one process.
# Usage: bench/run-math-bench.sh [build-dir] [benchmark options...]
# Builds nothing: build the targets first, e.g.
#   cmake --build build --target vkcl vkcl_bench_math
# VKCL_ICD=/path/to/vkcl.icd overrides the vkcl ICD file (default <build-dir>/vkcl.icd).
set -euo pipefail

build_dir=${1:-build}
[ $# -gt 0 ] && shift

benchmark="$build_dir/bench/vkcl_bench_math"
vkcl_icd=${VKCL_ICD:-$build_dir/vkcl.icd}
system_vendors=/etc/OpenCL/vendors

problems=()
[ -x "$benchmark" ] || problems+=("$benchmark is missing: cmake --build $build_dir --target vkcl_bench_math")
[ -f "$vkcl_icd" ] || problems+=("$vkcl_icd is missing: cmake --build $build_dir --target vkcl")
# The loader reads OCL_ICD_VENDORS; rusticl and PoCL come from these Debian packages.
[ -f "$system_vendors/rusticl.icd" ] || problems+=("$system_vendors/rusticl.icd is missing: apt-get install mesa-opencl-icd")
[ -f "$system_vendors/pocl.icd" ] || problems+=("$system_vendors/pocl.icd is missing: apt-get install pocl-opencl-icd")
# Not grep -q: it leaves ldconfig writing to a closed pipe, a failure under pipefail.
if ! ldconfig -p 2>/dev/null | grep 'libOpenCL\.so\.1' > /dev/null; then
  problems+=("the OpenCL ICD loader is missing: apt-get install ocl-icd-libopencl1")
fi
if [ ${#problems[@]} -gt 0 ]; then
  printf 'run-math-bench.sh: %s\n' "${problems[@]}" >&2
  exit 1
fi

# A private vendors folder, so exactly these three platforms are visible whatever else is
# installed system-wide.
vendors=$(mktemp -d "${TMPDIR:-/tmp}/vkcl-bench-vendors.XXXXXX")
trap 'rm -rf "$vendors"' EXIT
ln -s "$(realpath "$vkcl_icd")" "$vendors/vkcl.icd"
ln -s "$system_vendors/rusticl.icd" "$vendors/rusticl.icd"
ln -s "$system_vendors/pocl.icd" "$vendors/pocl.icd"

export OCL_ICD_VENDORS="$vendors"
# rusticl exposes no device unless a driver is enabled; llvmpipe is its CPU device.
export RUSTICL_ENABLE=llvmpipe
# The Vulkan loader and lavapipe need a runtime directory.
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp}

"$benchmark" "$@"
