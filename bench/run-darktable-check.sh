#!/usr/bin/env bash
# darktable's OpenCL code on vkcl: every kernel file darktable ships built with darktable's
# options (failures and their logs), then an export of a generated image with OpenCL forced
# against darktable's own CPU path (which modules ran on the device, and the pixel
# differences between the two files).
# Usage: bench/run-darktable-check.sh [build-dir]
# Needs darktable, python3-pyopencl and python3-opencv; builds nothing.
set -euo pipefail

build_dir=${1:-build}
vkcl_icd=${VKCL_ICD:-$build_dir/vkcl.icd}
kernels=/usr/share/darktable/kernels
command -v darktable-cli > /dev/null || { echo "run-darktable-check.sh: apt-get install darktable" >&2; exit 1; }
/usr/bin/python3 -c "import cv2, pyopencl" 2> /dev/null ||
  { echo "run-darktable-check.sh: apt-get install python3-opencv python3-pyopencl" >&2; exit 1; }
[ -f "$vkcl_icd" ] || { echo "run-darktable-check.sh: $vkcl_icd is missing" >&2; exit 1; }
export OCL_ICD_VENDORS=$(realpath "$vkcl_icd") XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp}
work=$(mktemp -d "${TMPDIR:-/tmp}/vkcl-darktable.XXXXXX")
trap 'rm -rf "$work"' EXIT

echo "== darktable's kernel files, built as darktable builds them"
/usr/bin/python3 - "$kernels" << 'EOF'
import glob, os, sys, warnings
import pyopencl as cl
warnings.simplefilter("ignore")
folder = sys.argv[1]
context = cl.Context(cl.get_platforms()[0].get_devices())
failed = 0
files = sorted(glob.glob(os.path.join(folder, "*.cl")))
for path in files:
    try:
        cl.Program(context, open(path).read()).build(options=["-cl-fast-relaxed-math", "-I" + folder])
    except cl.Error as error:
        failed += 1
        print(f"{os.path.basename(path)}: FAILED\n{str(error)[-2000:]}")
print(f"{len(files) - failed} of {len(files)} built")
EOF

echo "== an export with OpenCL forced, against darktable's CPU path"
# darktable drops a CPU device the first time it sees one; the entry it writes for the device
# is then switched on (its eighth field, "disabled").
darktable-cltest --configdir "$work/conf" > /dev/null 2>&1 || true
sed -i -E 's/^(cldevice_v[0-9]+_[a-z0-9]+=([^ ]+ ){7})1 /\10 /' "$work/conf/darktablerc"
cp -r "$work/conf" "$work/cpu"
/usr/bin/python3 - "$work/in.jpg" << 'EOF'
import sys
import cv2, numpy as np
h, w = 480, 640
y, x = np.mgrid[0:h, 0:w]
image = np.stack([x * 255 / w, y * 255 / h, 128 + 100 * np.sin(x / 17.0) * np.cos(y / 23.0)], -1)
image += np.random.default_rng(1).normal(0, 12, image.shape)
cv2.imwrite(sys.argv[1], np.clip(image, 0, 255).astype(np.uint8))
EOF
darktable-cli "$work/in.jpg" "$work/cl.png" --core --configdir "$work/conf" --conf opencl=TRUE \
  --conf opencl_scheduling_profile="very fast GPU" -d perf 2>&1 | grep -o "processed .* on [A-Z]*" || true
darktable-cli "$work/in.jpg" "$work/cpu.png" --core --configdir "$work/cpu" --conf opencl=FALSE > /dev/null 2>&1
/usr/bin/python3 - "$work/cl.png" "$work/cpu.png" << 'EOF'
import sys
import cv2, numpy as np
device, cpu = (cv2.imread(p, cv2.IMREAD_UNCHANGED).astype(np.int64) for p in sys.argv[1:3])
difference = np.abs(device - cpu)
print(f"OpenCL export against CPU export: largest difference {difference.max()} of 255, "
      f"{(difference > 1).sum()} of {difference.size} values differ by more than 1")
EOF
