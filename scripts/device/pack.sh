#!/usr/bin/env bash
# Packs a Debian-built vkcl for a lent GPU machine (the device tool; its image is not Debian
# and reaches no package registry) into .devrun/ (git-ignored; add "/.devrun/" to
# .git/info/exclude). Usage: scripts/device/pack.sh [build-dir], then on the machine, from the
# repository root, with carry [".devrun"]:  . scripts/device/setup.sh; <commands>
set -euo pipefail
build=${1:-build}
root=$(git rev-parse --show-toplevel)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rm -rf "$root/.devrun"
mkdir -p "$tmp/lib" "$tmp/tree" "$root/.devrun"
# Debian's OpenCL clients to compare with the GPU's own OpenCL, where installed here.
clients=$(ls /usr/bin/clpeak /usr/bin/clblast_test_xgemm /usr/bin/clblast_test_xaxpy 2>/dev/null || true)
# The shared libraries vkcl, the tests, the clients and the ICD loader need beyond the C/C++
# runtimes, the Vulkan loader (volk opens it), libclc and clang's OpenCL headers.
for f in "$build/cl_frontend/libvkcl.so" "$build/tests/vkcl_runtime_tests" "$build/tests/math/vkcl_mathtest" $clients; do
  ldd "$f" | awk '/=>/ {print $3}'
done | sort -u | grep -vE '/(libc|libm|libgcc_s|libstdc\+\+)\.so' | xargs -I{} cp -L {} "$tmp/lib/"
cp -L /lib/x86_64-linux-gnu/libvulkan.so.1 /usr/lib/clc/spirv64-mesa3d-.spv "$tmp/lib/"
tar cf - -C "$tmp" lib | xz -T2 -7 > "$root/.devrun/libs.tar.xz"
resource=$(ls -d /usr/lib/llvm-15/lib/clang/*/include)
tar cJf "$root/.devrun/clang-include.tar.xz" -C / "${resource#/}/opencl-c-base.h" "${resource#/}/opencl-c.h"
for f in cl_frontend/libvkcl.so tests/vkcl_runtime_tests tests/vkcl_api_tests tests/math/vkcl_mathtest \
         bench/vkcl_bench_math examples/vkcl_demo; do
  mkdir -p "$tmp/tree/$build/$(dirname "$f")"
  strip --strip-unneeded -o "$tmp/tree/$build/$f" "$build/$f"
done
for f in vkcl_bench vkcl_kernel_time; do
  [ -x "$build/bench/$f" ] && strip --strip-unneeded -o "$tmp/tree/$build/bench/$f" "$build/bench/$f"
done
mkdir -p "$tmp/tree/.devrun/bin"
for f in $clients; do cp "$f" "$tmp/tree/.devrun/bin/"; done
cp -r "$build/tests/il" "$tmp/tree/$build/tests/"
cp "$build/vkcl.icd" "$tmp/tree/$build/"
tar cJf "$root/.devrun/tree.tar.xz" -C "$tmp/tree" .
# The Vulkan loader's companions the machine's NVIDIA driver needs (libglvnd), from Debian.
o="-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=$tmp/lists"
mkdir -p "$tmp/lists/partial" "$root/.devrun/debs"
apt-get $o update >/dev/null
(cd "$root/.devrun/debs" && apt-get $o download libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2 >/dev/null)
du -sh "$root/.devrun"
