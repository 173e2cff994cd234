#!/usr/bin/env bash
# Set up, build, and run the whole test suite with ctest (on lavapipe, validation layers on).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh build
cd build
ctest --output-on-failure -j"$(nproc)" --timeout 600
