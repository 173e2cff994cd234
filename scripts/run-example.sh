#!/usr/bin/env bash
# The main job: set up, build, then run the example OpenCL application through the system ICD
# loader (ocl-icd) on vkcl's default device (lavapipe on a machine without a GPU).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh build
export OCL_ICD_VENDORS="$PWD/build/vkcl.icd"
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp}
exec build/examples/vkcl_demo
