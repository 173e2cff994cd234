"""OpenCV's transparent API (cv2.UMat) on the OpenCL platform OCL_ICD_VENDORS selects: each
operation's result beside OpenCV's own CPU code for the same call, and its time per call.

Prints one line per operation: name, the largest difference from the CPU result, how many
elements differ by more than 1 (integer images) or 1e-3 relative (floats), and milliseconds per
call (median of the runs after a warm-up, each ended with cv2.ocl.finish()). Used by
run-opencv-check.sh; OpenCV's OpenCL code does not promise bit-equal results to its CPU code
(warpAffine rounds coordinates differently, Canny decides ties differently), so the check is
that every platform differs alike, not that none differs.
"""
import sys
import time

import cv2
import numpy as np

cv2.ocl.setUseOpenCL(True)
if not cv2.ocl.useOpenCL():
    sys.exit("no OpenCL device for OpenCV (OPENCV_OPENCL_DEVICE=:CPU: selects a CPU device)")

rng = np.random.default_rng(1)
color = rng.integers(0, 256, (1080, 1920, 3), dtype=np.uint8)
color = cv2.GaussianBlur(color, (9, 9), 3)  # edges and gradients, not only noise
gray = cv2.cvtColor(color, cv2.COLOR_BGR2GRAY)
real = rng.random((1024, 1024), dtype=np.float32)
kernel3 = np.ones((3, 3), np.uint8)


def sub(a, rows, cols):
    """The same region of a Mat or a UMat."""
    return a[rows[0]:rows[1], cols[0]:cols[1]].copy() if isinstance(a, np.ndarray) else cv2.UMat(a, rows, cols)


OPERATIONS = [
    ("cvtColor BGR2GRAY", color, lambda a: cv2.cvtColor(a, cv2.COLOR_BGR2GRAY)),
    ("GaussianBlur 7x7", gray, lambda a: cv2.GaussianBlur(a, (7, 7), 1.5)),
    ("boxFilter 5x5", gray, lambda a: cv2.boxFilter(a, -1, (5, 5))),
    ("medianBlur 5", gray, lambda a: cv2.medianBlur(a, 5)),
    ("bilateralFilter 5", gray, lambda a: cv2.bilateralFilter(a, 5, 50, 50)),
    ("filter2D 3x3", gray, lambda a: cv2.filter2D(a, -1, np.float32([[0, -1, 0], [-1, 5, -1], [0, -1, 0]]))),
    ("Sobel dx", gray, lambda a: cv2.Sobel(a, cv2.CV_16S, 1, 0)),
    ("Laplacian", gray, lambda a: cv2.Laplacian(a, cv2.CV_16S)),
    ("erode 3x3", gray, lambda a: cv2.erode(a, kernel3)),
    ("morphology gradient", gray, lambda a: cv2.morphologyEx(a, cv2.MORPH_GRADIENT, kernel3)),
    ("resize linear 1/2", color, lambda a: cv2.resize(a, (960, 540), interpolation=cv2.INTER_LINEAR)),
    ("resize area 1/4", gray, lambda a: cv2.resize(a, (480, 270), interpolation=cv2.INTER_AREA)),
    ("pyrDown", gray, lambda a: cv2.pyrDown(a)),
    ("warpAffine", gray, lambda a: cv2.warpAffine(a, np.float32([[0.9, 0.1, 5], [-0.1, 0.9, 7]]), (1920, 1080))),
    ("threshold", gray, lambda a: cv2.threshold(a, 127, 255, cv2.THRESH_BINARY)[1]),
    ("equalizeHist", gray, lambda a: cv2.equalizeHist(a)),
    ("integral", gray, lambda a: cv2.integral(a)),
    ("Canny", gray, lambda a: cv2.Canny(a, 50, 150)),
    ("cornerHarris", gray, lambda a: cv2.cornerHarris(a, 2, 3, 0.04)),
    ("matchTemplate CCORR_NORMED", gray,
     lambda a: cv2.matchTemplate(a, sub(a, (300, 332), (600, 632)), cv2.TM_CCORR_NORMED)),
    ("addWeighted", color, lambda a: cv2.addWeighted(a, 0.3, a, 0.5, 2.0)),
    ("normalize minmax float", gray, lambda a: cv2.normalize(a, None, 0, 1, cv2.NORM_MINMAX, cv2.CV_32F)),
    ("dft complex 1024^2", real, lambda a: cv2.dft(a, flags=cv2.DFT_COMPLEX_OUTPUT)),
    ("gemm 512^2", real, lambda a: cv2.gemm(sub(a, (0, 512), (0, 512)), sub(a, (512, 1024), (0, 512)), 1.0, None, 0.0)),
    ("exp", real, lambda a: cv2.exp(a)),
    ("magnitude", real, lambda a: cv2.magnitude(a, a)),
]

print("device:", cv2.ocl.Device_getDefault().name(), "|", cv2.ocl.Device_getDefault().version())
only = sys.argv[1] if len(sys.argv) > 1 else ""
for name, src, op in OPERATIONS:
    if only and only.lower() not in name.lower():
        continue
    try:
        cv2.ocl.setUseOpenCL(False)
        want = op(src)
        cv2.ocl.setUseOpenCL(True)
        u = cv2.UMat(src)
        got = op(u)  # warm-up: builds the kernels
        got = got.get() if isinstance(got, cv2.UMat) else got
        times = []
        for _ in range(7):
            start = time.perf_counter()
            op(u)
            cv2.ocl.finish()
            times.append((time.perf_counter() - start) * 1e3)
        diff = np.abs(np.asarray(got, np.float64) - np.asarray(want, np.float64))
        tolerance = 1e-3 * max(1.0, float(np.abs(want).max())) if src.dtype == np.float32 else 1.0
        print(f"{name:28s} maxdiff={diff.max():<10.4g} bad={int((diff > tolerance).sum()):<8d} "
              f"ms={sorted(times)[len(times) // 2]:.3f}")
    except cv2.error as e:
        print(f"{name:28s} ERROR {str(e).splitlines()[-1][:120] if str(e) else ''}")
