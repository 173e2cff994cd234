#!/usr/bin/env bash
# Installs what vkcl needs on Debian 12 (idempotent, non-interactive) and builds it.
# Usage: scripts/setup.sh [build-dir]   (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${1:-build}

PACKAGES=(
  g++ cmake make pkg-config git
  libvulkan-dev libvulkan-volk-dev mesa-vulkan-drivers vulkan-validationlayers
  spirv-headers spirv-tools
  llvm-15-dev libclang-15-dev clang-15 libllvmspirvlib-15-dev llvm-spirv-15
  opencl-c-headers opencl-clhpp-headers ocl-icd-opencl-dev ocl-icd-libopencl1 clinfo
  libgtest-dev libclc-15 libmpfr-dev
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "Installing: ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo ${VKCL_CMAKE_ARGS:-}
cmake --build "$BUILD_DIR" -j"$(nproc)"
