"""ASE, the reader the structure tests trust (Debian's python3-ase).

  read FORMAT FILE...   prints one JSON object per file: cell (Å), cartesian positions, symbols
  write DIR             writes ASE-built structures as POSCAR, CIF and extended XYZ into DIR and
                        prints what it wrote as JSON (cell, scaled positions, symbols per name)
"""
import json
import sys

import numpy as np
from ase import Atoms
from ase.build import bulk, mx2
from ase.io import read, write


def describe(atoms):
    return {
        "cell": atoms.cell.array.tolist(),
        "positions": atoms.positions.tolist(),
        "scaled": atoms.get_scaled_positions(wrap=False).tolist(),
        "symbols": atoms.get_chemical_symbols(),
        "cellpar": atoms.cell.cellpar().tolist(),
    }


def main():
    if sys.argv[1] == "read":
        fmt = sys.argv[2]
        out = []
        for path in sys.argv[3:]:
            atoms = read(path, format=fmt, index=0)
            out.append(describe(atoms))
        print(json.dumps(out))
    elif sys.argv[1] == "frames":
        frames = read(sys.argv[2], format="extxyz", index=":")
        print(json.dumps([describe(a) for a in frames]))
    elif sys.argv[1] == "write":
        directory = sys.argv[2]
        rng = np.random.default_rng(7)
        triclinic = Atoms(
            "NaClO3",
            cell=[[5.1, 0.0, 0.0], [1.3, 6.2, 0.0], [-0.8, 0.9, 7.4]],
            scaled_positions=rng.random((5, 3)),
            pbc=True,
        )
        structures = {
            "si": bulk("Si", "diamond", a=5.431),
            "mg": bulk("Mg", "hcp", a=3.21, c=5.21),
            "mos2": mx2("MoS2", kind="2H", a=3.18, thickness=3.19, vacuum=10.0),
            "triclinic": triclinic,
            "interleaved": Atoms("OZnOZn", cell=[4.0, 4.0, 4.0], scaled_positions=[[0, 0, 0], [0.5, 0, 0], [0, 0.5, 0], [0, 0, 0.5]], pbc=True),
        }
        written = {}
        for name, atoms in structures.items():
            write(f"{directory}/{name}.poscar", atoms, format="vasp", direct=True, vasp5=True)
            write(f"{directory}/{name}.cif", atoms, format="cif")
            write(f"{directory}/{name}.xyz", atoms, format="extxyz")
            written[name] = describe(atoms)
        print(json.dumps(written))


if __name__ == "__main__":
    main()
