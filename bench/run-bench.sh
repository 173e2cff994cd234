#!/usr/bin/env bash
# Runs the benchmark suite (vkcl_bench) with vkcl and the other OpenCL implementations visible
# to one process.
# Usage: bench/run-bench.sh [build-dir] [benchmark options...]
# Builds nothing: build the targets first, e.g.
#   cmake --build build --target vkcl vkcl_bench
# Platforms: by default a private vendors folder with <build-dir>/vkcl.icd and the system's
# rusticl.icd and pocl.icd (Debian 12 packages). VKCL_ICD=/path/to/vkcl.icd overrides vkcl's
# ICD file. VKCL_BENCH_VENDORS=/folder (or --vendors /folder as the first option after the
# build dir) uses that folder of .icd files instead, as it is, e.g. /tmp/vendors holding
# vkcl.icd and nvidia.icd on a GPU machine.
set -euo pipefail

build_dir=${1:-build}
[ $# -gt 0 ] && shift
vendors_given=${VKCL_BENCH_VENDORS:-}
if [ "${1:-}" = "--vendors" ]; then
  [ $# -ge 2 ] || { echo "run-bench.sh: --vendors needs a folder" >&2; exit 2; }
  vendors_given=$2
  shift 2
fi

benchmark="$build_dir/bench/vkcl_bench"
system_vendors=/etc/OpenCL/vendors

problems=()
[ -x "$benchmark" ] || problems+=("$benchmark is missing: cmake --build $build_dir --target vkcl_bench")
# Not grep -q: it leaves ldconfig writing to a closed pipe, a failure under pipefail.
if ! ldconfig -p 2>/dev/null | grep 'libOpenCL\.so\.1' > /dev/null; then
  problems+=("the OpenCL ICD loader is missing: apt-get install ocl-icd-libopencl1")
fi
if [ -n "$vendors_given" ]; then
  ls "$vendors_given"/*.icd > /dev/null 2>&1 || problems+=("$vendors_given holds no .icd file")
else
  vkcl_icd=${VKCL_ICD:-$build_dir/vkcl.icd}
  [ -f "$vkcl_icd" ] || problems+=("$vkcl_icd is missing: cmake --build $build_dir --target vkcl")
  # rusticl and PoCL come from these Debian packages.
  [ -f "$system_vendors/rusticl.icd" ] || problems+=("$system_vendors/rusticl.icd is missing: apt-get install mesa-opencl-icd")
  [ -f "$system_vendors/pocl.icd" ] || problems+=("$system_vendors/pocl.icd is missing: apt-get install pocl-opencl-icd")
fi
if [ ${#problems[@]} -gt 0 ]; then
  printf 'run-bench.sh: %s\n' "${problems[@]}" >&2
  exit 1
fi

if [ -n "$vendors_given" ]; then
  export OCL_ICD_VENDORS="$vendors_given"
else
  # A private vendors folder, so exactly these three platforms are visible whatever else is
  # installed system-wide.
  vendors=$(mktemp -d "${TMPDIR:-/tmp}/vkcl-bench-vendors.XXXXXX")
  trap 'rm -rf "$vendors"' EXIT
  ln -s "$(realpath "$vkcl_icd")" "$vendors/vkcl.icd"
  ln -s "$system_vendors/rusticl.icd" "$vendors/rusticl.icd"
  ln -s "$system_vendors/pocl.icd" "$vendors/pocl.icd"
  export OCL_ICD_VENDORS="$vendors"
fi
# rusticl exposes no device unless a driver is enabled; llvmpipe is its CPU device.
export RUSTICL_ENABLE=${RUSTICL_ENABLE:-llvmpipe}
# The Vulkan loader and lavapipe need a runtime directory.
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp}

"$benchmark" "$@"
