#!/bin/sh
# cmake --install into a fresh prefix: the ICD file it writes names the installed library,
# and the ICD loader finds vkcl through that file alone (clinfo lists the platform).
set -eu
build=$1
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" > /dev/null
icd="$prefix/etc/OpenCL/vendors/vkcl.icd"
[ -f "$icd" ] || { echo "no $icd"; exit 1; }
lib=$(cat "$icd")
case "$lib" in
  "$prefix"/*) ;;
  *) echo "vkcl.icd names $lib, not a file under $prefix"; exit 1 ;;
esac
[ -f "$lib" ] || { echo "vkcl.icd names $lib, which is missing"; exit 1; }
OCL_ICD_VENDORS="$prefix/etc/OpenCL/vendors" clinfo -l > "$prefix/clinfo.txt"
grep -q "Platform #0: vkcl" "$prefix/clinfo.txt" || { cat "$prefix/clinfo.txt"; exit 1; }
echo "installed $lib, found through $icd"
