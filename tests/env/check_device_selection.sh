#!/bin/sh
# VKCL_DEVICES chooses vkcl's devices: by part of the name (any case) or by Vulkan index;
# names nothing, and vkcl shows no platform. clinfo -l through the ICD loader shows each.
set -eu
devices() { VKCL_DEVICES="$1" clinfo -l 2>/dev/null | grep -c -- "-- Device" || true; }
all=$(VKCL_DEVICES= clinfo -l | grep -c -- "-- Device")
[ "$all" -ge 1 ] || { echo "no vkcl device at all"; exit 1; }
first=$(clinfo -l | grep -m1 -- "-- Device #0" | sed 's/.*Device #0: //; s/ .*//')
check() { got=$(devices "$1"); [ "$got" = "$2" ] || { echo "VKCL_DEVICES='$1': $got devices, want $2"; exit 1; }; }
check "$first" 1
check "$(echo "$first" | tr '[:lower:]' '[:upper:]')" 1
check "no-such-device" 0
check "0" 1
check "999" 0
check "no-such-device,0" 1
echo "VKCL_DEVICES chose as asked among $all device(s) ($first first)"
