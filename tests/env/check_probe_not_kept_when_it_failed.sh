#!/bin/sh
# The precision probe's findings are kept in the build cache; a probe that could not run (every
# device allocation failing, VKCL_FAIL_ALLOCATIONS=1) must not be kept, or the device would
# lose cl_khr_fp64 and cl_khr_fp16 for every later process.
set -eu
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
extensions() { clinfo | grep -E -o "cl_khr_fp(16|64)" | sort -u | tr '\n' ' '; }
VKCL_CACHE_DIR="$dir/fresh" clinfo -l | grep -q "vkcl" || { echo "clinfo shows no vkcl platform"; exit 1; }
want=$(VKCL_CACHE_DIR="$dir/fresh" extensions)
VKCL_CACHE_DIR="$dir/cache" VKCL_FAIL_ALLOCATIONS=1 extensions > /dev/null
got=$(VKCL_CACHE_DIR="$dir/cache" extensions)
[ "$got" = "$want" ] || { echo "after a failed probe: '$got', want '$want'"; exit 1; }
echo "probed extensions after a failed probe: '$got'"
