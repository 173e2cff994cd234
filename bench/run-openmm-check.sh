#!/usr/bin/env bash
# OpenMM (molecular dynamics) on vkcl: forces and potential energies of a solvated peptide from
# OpenMM's own test data (PME in single, mixed and double precision, LJPME in single), computed
# by its OpenCL platform on vkcl, against its Reference platform (double precision C++ on the
# CPU). A system passes
# when the median relative force error is below 1e-4 (OpenMM's testInstallation threshold) and
# the energies agree to 1e-4 relative (1e-6 in double precision); then 20 Langevin steps must
# leave every position finite.
# Usage: bench/run-openmm-check.sh [build-dir]
# Needs python3-simtk and libopenmm-plugins; builds nothing.
set -euo pipefail

build_dir=${1:-build}
vkcl_icd=$(realpath "${VKCL_ICD:-$build_dir/vkcl.icd}")
/usr/bin/python3 -c "import openmm" 2> /dev/null ||
  { echo "run-openmm-check.sh: apt-get install python3-simtk libopenmm-plugins" >&2; exit 1; }
[ -f "$vkcl_icd" ] || { echo "run-openmm-check.sh: $vkcl_icd is missing" >&2; exit 1; }
export OCL_ICD_VENDORS=$vkcl_icd XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp}

/usr/bin/python3 - << 'EOF'
import math, os, sys
import openmm
from openmm import app, unit

data = os.path.join(os.path.dirname(openmm.__file__), "app", "data")
pdb = app.PDBFile(os.path.join(data, "test.pdb"))
nm = unit.nanometer
SYSTEMS = {
    # test.pdb: a peptide in a water box (2269 atoms).
    "PME, HBond constraints": (("amber99sb.xml", "tip3p.xml"),
                               dict(nonbondedMethod=app.PME, nonbondedCutoff=1 * nm, constraints=app.HBonds),
                               ("single", "mixed", "double")),
    "LJPME": (("amber99sb.xml", "tip3p.xml"),
              dict(nonbondedMethod=app.LJPME, nonbondedCutoff=1 * nm, ewaldErrorTolerance=1e-4), ("single",)),
}

# Forces and energy at the start, then whether 20 Langevin steps leave the positions finite.
def evaluate(system, platform, properties, steps=0):
    integrator = openmm.LangevinIntegrator(300, 1, 0.002)
    context = openmm.Context(system, integrator, platform, properties)
    context.setPositions(pdb.positions)
    state = context.getState(getForces=True, getEnergy=True)
    forces = state.getForces(asNumpy=False).value_in_unit(unit.kilojoule_per_mole / nm)
    energy = state.getPotentialEnergy().value_in_unit(unit.kilojoule_per_mole)
    integrator.step(steps)
    positions = context.getState(getPositions=True).getPositions(asNumpy=False).value_in_unit(nm)
    return forces, energy, all(math.isfinite(c) for p in positions for c in p)

def median_force_error(got, want):
    errors = []
    for f, r in zip(got, want):
        d = [f[i] - r[i] for i in range(3)]
        norm = math.sqrt(sum(x * x for x in r))
        errors.append(math.sqrt(sum(x * x for x in d)) / norm if norm > 0 else 0.0)
    return sorted(errors)[len(errors) // 2]

reference = openmm.Platform.getPlatformByName("Reference")
opencl = openmm.Platform.getPlatformByName("OpenCL")
passed = total = 0
for name, (fields, options, precisions) in SYSTEMS.items():
    system = app.ForceField(*fields).createSystem(pdb.topology, **options)
    want_forces, want_energy, _ = evaluate(system, reference, {})
    for precision in precisions:
        total += 1
        try:
            forces, energy, finite = evaluate(system, opencl, {"Precision": precision}, steps=20)
            error = median_force_error(forces, want_forces)
            energy_error = abs(energy - want_energy) / abs(want_energy)
            ok = error < 1e-4 and energy_error < (1e-6 if precision == "double" else 1e-4) and finite
            detail = (f"median force error {error:.1e}, energy {energy:.6g} against {want_energy:.6g} "
                      f"(relative {energy_error:.1e}), 20 steps {'finite' if finite else 'NOT FINITE'}")
        except Exception as e:
            ok, detail = False, f"failed: {str(e).splitlines()[0][:200]}"
        passed += ok
        print(f"{name:24s} {precision:7s} {'ok' if ok else 'FAILED'}  {detail}", flush=True)
print(f"{passed} of {total} agree with the Reference platform")
sys.exit(0 if passed == total else 1)
EOF
