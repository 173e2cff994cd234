#!/usr/bin/env bash
# LibreOffice Calc's OpenCL formula groups on vkcl. Calc compiles a kernel per group of
# formulas (a column of one formula over many rows) and, the first time it meets a device,
# runs its own self-test (opencltest, then a test sheet) and turns OpenCL off if either
# fails. Checked here: that self-test keeps OpenCL on with vkcl, and a generated sheet of
# 42 formula columns over 300 rows (the functions Calc sends to OpenCL by default) gives
# the values Calc computes without OpenCL (relative difference at most 1e-12).
# Usage: bench/run-libreoffice-check.sh [build-dir]
# Needs libreoffice-calc-nogui (or libreoffice-calc) and python3; builds nothing.
set -euo pipefail

build_dir=${1:-build}
vkcl_icd=$(realpath "${VKCL_ICD:-$build_dir/vkcl.icd}")
command -v soffice > /dev/null || { echo "run-libreoffice-check.sh: apt-get install libreoffice-calc-nogui" >&2; exit 1; }
[ -f "$vkcl_icd" ] || { echo "run-libreoffice-check.sh: $vkcl_icd is missing" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/vkcl-libreoffice.XXXXXX")
trap 'rm -rf "$work"' EXIT
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp}

# A user profile with OpenCL on or off. Calc's allow list names AMD, Intel and NVIDIA only:
# vkcl's platform is added. Groups of 2 rows and more go to OpenCL (the default is 100);
# the sheet is recalculated as a whole on load (cells computed one by one on export would
# not be grouped).
profile() {
  local dir=$1 use=$2
  mkdir -p "$dir/user"
  cat > "$dir/user/registrymodifications.xcu" << XCU
<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Common/Misc"><prop oor:name="UseOpenCL" oor:op="fuse"><value>$use</value></prop></item>
<item oor:path="/org.openoffice.Office.Common/Misc"><prop oor:name="OpenCLAllowList" oor:op="fuse"><value oor:separator=";">//vkcl///</value></prop></item>
<item oor:path="/org.openoffice.Office.Calc/Formula/Calculation"><prop oor:name="OpenCLMinimumDataSize" oor:op="fuse"><value>2</value></prop></item>
<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="ODFRecalcMode" oor:op="fuse"><value>0</value></prop></item>
</oor:items>
XCU
}

/usr/bin/python3 - "$work/sheet.fods" << 'EOF'
# One formula per column, {r} the row; A, B, C random, D = row - 1, E = 1.5 D.
import html, random, sys
FORMULAS = """[.A{r}]-[.B{r}]|[.A{r}]/[.B{r}]|[.A{r}]^2|-[.C{r}]|SUM([.A{r}:.C{r}])|PRODUCT([.A{r}:.B{r}])
|AVERAGE([.A$1:.A{r}])|COUNT([.A{r}:.C{r}])|MIN([.A{r}:.C{r}])|MAX([.A{r}:.C{r}])|VAR([.A{r}:.C{r}])
|SUMPRODUCT([.A$1:.A$30];[.B$1:.B$30])+[.C{r}]|CORREL([.A$1:.A$30];[.B$1:.B$30])+[.C{r}]
|PEARSON([.A$1:.A$30];[.B$1:.B$30])+[.C{r}]|COVAR([.A$1:.A$30];[.B$1:.B$30])+[.C{r}]
|SLOPE([.A$1:.A$30];[.B$1:.B$30])+[.C{r}]|SIN([.A{r}])|COS([.A{r}])|TAN([.A{r}])|ATAN([.C{r}])
|EXP([.C{r}])|LN([.A{r}]+0.01)|SQRT([.A{r}])|ROUND([.C{r}];1)|POWER([.B{r}];[.C{r}])
|NORMDIST([.A{r}];5;2;1)|NORMDIST([.A{r}];5;2;0)|NORMSDIST([.C{r}])|NORMSINV(([.A{r}]+0.5)/11)|RAND()*0
|SUMIFS([.B$1:.B$30];[.A$1:.A$30];">"&INT([.A{r}]))|VLOOKUP(INT([.A{r}]);[.D$1:.E$11];2;0)
|SIN([.A{r}])*COS([.B{r}])+EXP([.C{r}]/10)|SQRT([.A{r}]*[.B{r}])+LN([.B{r}]+1)|([.A{r}]+[.B{r}])/([.C{r}]+6)
|SUM([.A$1:.A{r}])|MAX([.A$1:.C{r}])-MIN([.A$1:.C{r}])|AVERAGE([.A{r}:.C{r}])*COUNT([.A$1:.A{r}])
|POWER([.A{r}]+1;1/3)+ATAN([.A{r}]-[.B{r}])|NORMSINV(NORMSDIST([.C{r}]))
|ROUND(SUMPRODUCT([.A{r}:.C{r}];[.A{r}:.C{r}]);4)|TAN([.C{r}]/4)^2-1/COS([.C{r}]/4)^2"""
forms = [f.strip() for f in FORMULAS.split("|")]
random.seed(1)
rows = []
for r in range(1, 301):
    values = (round(random.uniform(0, 10), 3), round(random.uniform(0, 10), 3),
              round(random.uniform(-5, 5), 3), r - 1, (r - 1) * 1.5)
    cells = "".join(f'<table:table-cell office:value-type="float" office:value="{v}"/>' for v in values)
    cells += "".join(f'<table:table-cell table:formula="of:={html.escape(f.format(r=r))}"/>' for f in forms)
    rows.append(f"<table:table-row>{cells}</table:table-row>")
open(sys.argv[1], "w").write(
    '<?xml version="1.0" encoding="UTF-8"?>\n<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
    'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
    'xmlns:of="urn:oasis:names:tc:opendocument:xmlns:of:1.2" office:version="1.2" '
    'office:mimetype="application/vnd.oasis.opendocument.spreadsheet"><office:body><office:spreadsheet>'
    '<table:table table:name="S">' + "".join(rows) + "</table:table></office:spreadsheet></office:body></office:document>\n")
EOF

profile "$work/cpu" false
profile "$work/vkcl" true
mkdir -p "$work/kernels" "$work/out-cpu" "$work/out-vkcl"
soffice -env:UserInstallation="file://$work/cpu" --headless --convert-to csv --outdir "$work/out-cpu" "$work/sheet.fods" > /dev/null 2>&1
# The first start with a new device runs Calc's self-test; SC_FORCE_CALCULATION keeps the
# groups on OpenCL whatever it decided, so its verdict is read from the profile afterwards.
OCL_ICD_VENDORS="$vkcl_icd" SC_FORCE_CALCULATION=opencl VKCL_DUMP_KERNEL_SPIRV="$work/kernels" \
  VKCL_CACHE=0 timeout 900 \
  soffice -env:UserInstallation="file://$work/vkcl" --headless --convert-to csv --outdir "$work/out-vkcl" "$work/sheet.fods" > /dev/null 2>&1 || true

/usr/bin/python3 - "$work" << 'EOF'
import csv, glob, re, sys
work = sys.argv[1]
settings = open(f"{work}/vkcl/user/registrymodifications.xcu").read()
use = re.search(r'"UseOpenCL"[^>]*><value>(\w+)', settings)
device = re.search(r'"SelectedOpenCLDeviceIdentifier"[^>]*><value>([^<]*)', settings)
kept = bool(use and use.group(1) == "true" and device and "llvmpipe" in device.group(1))
print(f"Calc's OpenCL self-test: {'passed, OpenCL stays on' if kept else 'FAILED, OpenCL turned off'}"
      f" (device {device.group(1) if device else 'none'})")
kernels = sum(b"DynamicKernel" in open(f, "rb").read() for f in glob.glob(f"{work}/kernels/*.spv"))
print(f"{kernels} Calc kernel programs built by vkcl")
try:
    cpu = list(csv.reader(open(f"{work}/out-cpu/sheet.csv")))
    gpu = list(csv.reader(open(f"{work}/out-vkcl/sheet.csv")))
except FileNotFoundError as e:
    print(f"FAILED: no result ({e.filename})")
    sys.exit(1)
def same(x, y):
    if x == y:
        return True
    try:
        fx, fy = float(x), float(y)
    except ValueError:
        return False
    return abs(fx - fy) <= 1e-12 * max(abs(fx), abs(fy))
columns = len(cpu[0]) - 5
agree = 0
for j in range(5, len(cpu[0])):
    bad = [i for i in range(len(cpu)) if not same(cpu[i][j], gpu[i][j])]
    agree += not bad
    if bad:
        print(f"column {j - 4} DIFFERS in {len(bad)} rows, e.g. row {bad[0] + 1}: {cpu[bad[0]][j]} vs {gpu[bad[0]][j]}")
print(f"{agree} of {columns} formula columns agree with Calc without OpenCL")
sys.exit(0 if kept and kernels > 0 and agree == columns else 1)
EOF
