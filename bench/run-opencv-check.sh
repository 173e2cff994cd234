#!/usr/bin/env bash
# OpenCV's transparent API (Debian's python3-opencv) on vkcl, rusticl and PoCL, side by side:
# each operation's difference from OpenCV's CPU code and its time per call (opencv_tapi.py).
# Usage: bench/run-opencv-check.sh [build-dir] [operation-name-substring]
# Needs python3-opencv, mesa-opencl-icd and pocl-opencl-icd; builds nothing.
set -euo pipefail

build_dir=${1:-build}
only=${2:-}
vkcl_icd=${VKCL_ICD:-$build_dir/vkcl.icd}
/usr/bin/python3 -c "import cv2" 2> /dev/null || { echo "run-opencv-check.sh: apt-get install python3-opencv" >&2; exit 1; }
[ -f "$vkcl_icd" ] || { echo "run-opencv-check.sh: $vkcl_icd is missing" >&2; exit 1; }
export RUSTICL_ENABLE=${RUSTICL_ENABLE:-llvmpipe} XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp}
# OpenCV takes only GPU devices unless told otherwise; lavapipe, llvmpipe and PoCL are CPUs.
export OPENCV_OPENCL_DEVICE=${OPENCV_OPENCL_DEVICE:-:CPU:}
here=$(dirname "$0")
for impl in "vkcl:$(realpath "$vkcl_icd")" "rusticl:/etc/OpenCL/vendors/rusticl.icd" "PoCL:/etc/OpenCL/vendors/pocl.icd"; do
  echo "== ${impl%%:*}"
  OCL_ICD_VENDORS=${impl#*:} /usr/bin/python3 "$here/opencv_tapi.py" $only 2>&1 | grep -v "warnings generated\|^MESA: warning"
done
