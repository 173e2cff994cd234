#!/usr/bin/env bash
# UFO (ufo-core and ufo-filters, tomography pipelines) on vkcl: ufo-launch pipelines run on a
# generated phantom and on its analytic sinogram. Filters on buffers are compared with PoCL
# (max |difference| / max |PoCL| at most 1e-3); filters that read CL_INTENSITY images (as UFO
# keeps every image) are checked against numpy: cases with an exact answer, and a filtered
# back-projection and a forward projection against the phantom and its analytic sinogram.
# Usage: bench/run-ufo-check.sh [build-dir]
# Needs ufo-filters, libufo-bin, python3-numpy and pocl-opencl-icd; builds nothing.
set -euo pipefail

build_dir=${1:-build}
vkcl_icd=$(realpath "${VKCL_ICD:-$build_dir/vkcl.icd}")
pocl_icd=/etc/OpenCL/vendors/pocl.icd
command -v ufo-launch > /dev/null || { echo "run-ufo-check.sh: apt-get install ufo-filters libufo-bin" >&2; exit 1; }
/usr/bin/python3 -c "import numpy" 2> /dev/null || { echo "run-ufo-check.sh: apt-get install python3-numpy" >&2; exit 1; }
[ -f "$vkcl_icd" ] || { echo "run-ufo-check.sh: $vkcl_icd is missing" >&2; exit 1; }
[ -f "$pocl_icd" ] || { echo "run-ufo-check.sh: apt-get install pocl-opencl-icd" >&2; exit 1; }
# UFO looks for GPUs unless told otherwise; lavapipe is a CPU device.
export UFO_DEVICE_TYPE=${UFO_DEVICE_TYPE:-cpu} XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp}
work=$(mktemp -d "${TMPDIR:-/tmp}/vkcl-ufo.XXXXXX")
trap 'rm -rf "$work"' EXIT

/usr/bin/python3 - "$work" "$vkcl_icd" "$pocl_icd" << 'EOF'
import os, subprocess, sys
import numpy as np

work, vkcl, pocl = sys.argv[1:4]
N, ANGLES = 256, 180
DISKS = [(0, 0, 100, 1.0), (-28, -18, 30, 0.5), (32, 22, 20, -0.3), (0, -68, 10, 2.0)]  # from the centre

def phantom(noise):
    y, x = np.mgrid[0:N, 0:N].astype(np.float32) - N / 2
    img = np.zeros((N, N), np.float32)
    for cx, cy, r, v in DISKS:
        img[(x - cx) ** 2 + (y - cy) ** 2 < r * r] += v
    return img + np.random.default_rng(7).normal(0, noise, img.shape).astype(np.float32)

def radon(angles):
    # Line integrals of the disks over [0, pi): the chord length at each offset.
    s = np.arange(N) - N / 2 + 0.5
    out = np.zeros((angles, N), np.float32)
    for a in range(angles):
        t = np.pi * a / angles
        for cx, cy, r, v in DISKS:
            d = s - (cx * np.cos(t) + cy * np.sin(t))
            out[a] += v * 2 * np.sqrt(np.clip(r * r - d * d, 0, None))
    return out

inputs = {"img": phantom(0.05), "sino": radon(ANGLES)}
for name, a in inputs.items():
    a.tofile(f"{work}/{name}.raw")

def run(icd, src, tasks, out):
    h, w = inputs[src].shape
    env = dict(os.environ, OCL_ICD_VENDORS=icd)
    command = (f"ufo-launch -q read path={work}/{src}.raw raw-width={w} raw-height={h} raw-bitdepth=32 "
               f"! {tasks} ! write filename={out}")
    try:
        p = subprocess.run(command, shell=True, env=env, capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        return None, "timed out after 300 s"
    messages = [l for l in (p.stdout + p.stderr).splitlines() if "CRITICAL" in l or "rror" in l]
    if p.returncode != 0 or messages or not os.path.exists(out):
        return None, (messages or [f"exit status {p.returncode}"])[0]
    return np.fromfile(out, np.float32), ""

# Filters on buffers: vkcl against PoCL.
AGAINST_POCL = [
    ("blur", "img", "blur size=9 sigma=2"), ("flip", "img", "flip direction=horizontal"),
    ("median-filter", "img", "median-filter size=3"), ("gradient", "img", "gradient direction=both"),
    ("fft, ifft 2D", "img", "fft dimensions=2 ! ifft dimensions=2"),
    ("power-spectrum", "img", "fft dimensions=2 ! power-spectrum"),
    ("crop", "img", "crop x=10 y=20 width=100 height=120"), ("binarize", "img", "binarize threshold=0.6"),
    ("clip", "img", "clip min=0.2 max=0.9"), ("denoise", "img", "denoise matrix-size=5"),
    ("remove-outliers", "img", "remove-outliers size=3 threshold=0.2"),
    ("calculate", "img", 'calculate expression="sqrt(fabs(v))*sin(v)+x*0.001f"'), ("bin", "img", "bin size=2"),
    ("filter-stripes", "sino", "fft dimensions=2 ! filter-stripes sigma=2 ! ifft dimensions=2"),
    ("filter-stripes1d", "sino", "fft dimensions=1 ! filter-stripes1d strength=2 ! ifft dimensions=1"),
    ("med-mad-reject-2d", "img", "med-mad-reject-2d threshold=2 box-size=3"), ("mask", "img", "mask"),
]
agree = total = 0
print("== filters on buffers, against PoCL")
for i, (name, src, tasks) in enumerate(AGAINST_POCL):
    got, why = run(vkcl, src, tasks, f"{work}/{i}-vkcl.raw")
    want, why_ref = run(pocl, src, tasks, f"{work}/{i}-pocl.raw")
    if want is None:
        print(f"{name:22s} (PoCL failed: {why_ref})")
        continue
    total += 1
    if got is None:
        print(f"{name:22s} FAILED: {why}")
        continue
    if got.size != want.size:
        print(f"{name:22s} DIFFERS: {got.size} values, PoCL {want.size}")
        continue
    diff = float(np.max(np.abs(got - want))) / max(float(np.max(np.abs(want))), 1e-30)
    verdict = "ok" if diff <= 1e-3 else "DIFFERS"
    agree += verdict == "ok"
    print(f"{name:22s} {verdict:8s} max |vkcl - PoCL| / max |PoCL| = {diff:.1e} ({got.size} values)")

# Filters on images, against numpy.
print("== filters reading CL_INTENSITY images, against numpy")
img = inputs["img"]
def pad_reference():
    # pad.cl: normalized nearest CLK_ADDRESS_CLAMP reads at pixel / (size - 1); beyond the
    # last texel, the border (0).
    s = (np.arange(N, dtype=np.float32) / np.float32(N - 1)).astype(np.float32)
    i = np.floor(s * np.float32(N)).astype(int)
    ref = np.zeros((N, N), np.float32)
    inside = i < N
    ref[np.ix_(inside, inside)] = img[np.ix_(i[inside], i[inside])]
    return ref

def correlation(a, b):
    return float(np.corrcoef(a.ravel(), b.ravel())[0, 1])

IMAGE_CHECKS = [
    ("rotate by 0", "img", "rotate angle=0 interpolation=linear", lambda a: float(np.max(np.abs(a - img.ravel()))) == 0.0),
    ("rescale by 1", "img", "rescale factor=1", lambda a: float(np.max(np.abs(a - img.ravel()))) == 0.0),
    ("pad (nearest, clamp)", "img", "pad", lambda a: float(np.max(np.abs(a - pad_reference().ravel()))) == 0.0),
    ("filtered back-projection", "sino", "fft dimensions=1 ! filter ! ifft dimensions=1 ! backproject axis-pos=128",
     lambda a: correlation(a, phantom(0.0)) > 0.98),
    ("forward projection", "img", "forwardproject number=90 axis-pos=128", lambda a: correlation(a, radon(90)) > 0.999),
]
for i, (name, src, tasks, check) in enumerate(IMAGE_CHECKS):
    total += 1
    got, why = run(vkcl, src, tasks, f"{work}/image-{i}.raw")
    ok = got is not None and check(got)
    agree += ok
    print(f"{name:24s} {'ok' if ok else 'FAILED'} {why}")
print(f"{agree} of {total} pipelines agree")
sys.exit(0 if agree == total else 1)
EOF
