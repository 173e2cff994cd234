#!/usr/bin/env bash
# GEGL (GIMP's image-processing library) on vkcl: the gegl CLI runs operations that have OpenCL
# versions on a generated 640x480 RGBA noise image, once through vkcl and once through PoCL, and
# the two PNG outputs must agree within 1 level (8-bit). The difference from GEGL's own CPU code
# is printed for information only: some OpenCL versions (vignette, snn-mean, noise-reduction,
# motion-blur, oilify) are not GEGL's CPU algorithm and differ from it on PoCL as on vkcl.
# Usage: bench/run-gegl-check.sh [build-dir]
# Needs gegl, python3-numpy, python3-pil and pocl-opencl-icd; builds nothing.
set -euo pipefail

build_dir=${1:-build}
vkcl_icd=$(realpath "${VKCL_ICD:-$build_dir/vkcl.icd}")
pocl_icd=/etc/OpenCL/vendors/pocl.icd
command -v gegl > /dev/null || { echo "run-gegl-check.sh: apt-get install gegl" >&2; exit 1; }
/usr/bin/python3 -c "import numpy, PIL" 2> /dev/null || { echo "run-gegl-check.sh: apt-get install python3-numpy python3-pil" >&2; exit 1; }
[ -f "$vkcl_icd" ] || { echo "run-gegl-check.sh: $vkcl_icd is missing" >&2; exit 1; }
[ -f "$pocl_icd" ] || { echo "run-gegl-check.sh: apt-get install pocl-opencl-icd" >&2; exit 1; }
export VK_ICD_FILENAMES=${VK_ICD_FILENAMES:-/usr/share/vulkan/icd.d/lvp_icd.x86_64.json}
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp}
work=$(mktemp -d "${TMPDIR:-/tmp}/vkcl-gegl.XXXXXX")
trap 'rm -rf "$work"' EXIT
# A private cache: every run compiles afresh, and a cache left empty shows GEGL never used vkcl.
VKCL_CACHE_DIR=$(mktemp -d "$work/cache.XXXXXX")
export VKCL_CACHE_DIR

/usr/bin/python3 - "$work" "$vkcl_icd" "$pocl_icd" << 'EOF_PY'
import os, subprocess, sys
import numpy as np
from PIL import Image

work, vkcl, pocl = sys.argv[1:4]
source = f"{work}/in.png"
Image.fromarray(np.random.default_rng(7).integers(0, 256, (480, 640, 4), np.uint8), "RGBA").save(source)

# c2g is left out: it samples at random, and two PoCL runs differ by up to 87 levels.
# gaussian-blur needs filter=fir: its default picks the IIR filter above std-dev 1, which has no
# OpenCL version. Every operation here has one in GEGL 0.4.42 (edge-sobel, cartoon and
# mantiuk06 do not: vkcl compiled only GEGL's colour conversions for them).
OPS = [
    "gaussian-blur std-dev-x=4 std-dev-y=4 filter=fir", "box-blur radius=3",
    "brightness-contrast contrast=1.3 brightness=0.1", "levels in-low=0.1 in-high=0.9",
    "invert-linear", "threshold value=0.5", "mono-mixer", "vignette", "pixelize size-x=8 size-y=8",
    "snn-mean radius=4", "stretch-contrast", "noise-reduction iterations=3",
    "bilateral-filter blur-radius=4 edge-preservation=8", "motion-blur length=10",
    "oilify mask-radius=4", "color-temperature intended-temperature=4000",
    "unsharp-mask std-dev=3 scale=1", "opacity value=0.5", "value-invert", "alien-map",
    "weighted-blend", "posterize", "exposure exposure=0.5", "hue-chroma hue=30 chroma=10",
    "shadows-highlights", "red-eye-removal", "color-exchange", "texturize-canvas",
    "video-degradation",
]
# GEGL skips CPU devices unless GEGL_USE_OPENCL=cpu; lavapipe and PoCL are both CPU devices.
PATHS = {"vkcl": {"GEGL_USE_OPENCL": "cpu", "OCL_ICD_VENDORS": vkcl},
         "PoCL": {"GEGL_USE_OPENCL": "cpu", "OCL_ICD_VENDORS": pocl},
         "cpu": {"GEGL_USE_OPENCL": "no"}}

def run(i, op, path):
    out = f"{work}/{i}-{path}.png"
    try:
        p = subprocess.run(["gegl", "-i", source, "-o", out, "--"] + op.split(),
                           env=dict(os.environ, **PATHS[path]), capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        return None, f"{path}: timed out after 300 s"
    # gegl exits 0 and passes the input through for an unknown operation or property, saying
    # "Error: ..."; its other stderr lines are harmless ("EEEEeEeek! N GeglBuffers leaked").
    errors = [l for l in p.stderr.splitlines() if l.startswith("Error:")]
    if p.returncode != 0 or errors or not os.path.exists(out):
        tail = " | ".join(errors or p.stderr.strip().splitlines()[-3:])
        return None, f"{path}: exit status {p.returncode}: {tail}"
    return np.asarray(Image.open(out).convert("RGBA"), np.int16), ""

def max_diff(a, b):
    return int(np.max(np.abs(a - b))) if a.shape == b.shape else None

agree = 0
print(f"{'operation':52s} {'vkcl-PoCL':>9s}      {'vkcl-cpu':>8s}")
for i, op in enumerate(OPS):
    (got, why), (want, why_ref), (cpu, _) = (run(i, op, path) for path in PATHS)
    if got is None or want is None:
        print(f"{op:52s} {'-':>9s} FAIL {why or why_ref}")
        continue
    diff = max_diff(got, want)
    ok = diff is not None and diff <= 1
    agree += ok
    cpu_diff = "-" if cpu is None else max_diff(got, cpu)
    print(f"{op:52s} {str(diff if diff is not None else 'shape'):>9s} {'ok  ' if ok else 'FAIL'} {cpu_diff!s:>8s}")
if not os.listdir(os.environ["VKCL_CACHE_DIR"]):
    print("vkcl compiled nothing: GEGL did not use it")
    agree = -1
print(f"{max(agree, 0)} of {len(OPS)} operations agree with PoCL")
sys.exit(0 if agree == len(OPS) else 1)
EOF_PY
