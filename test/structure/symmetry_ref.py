"""pymatgen and spglib, the references the symmetry tests trust (Debian's python3-pymatgen, python3-spglib).

  analyze            reads a JSON list of {cell, scaled, symbols} from stdin and prints, per
                     structure, what pymatgen's SpacegroupAnalyzer (default tolerances), pymatgen's
                     Structure (volume, density, atomic fractions) and spglib find
  ase                prints ASE-built structures (bulk prototypes, supercells, non-standard
                     cells, a rattled cell) as a JSON list of {name, cell, scaled, symbols}
  noisy [sample]     prints rattled (ASE's rattle, seeded, sigma 0.0005-0.008 Å) and strained cells
                     of many prototypes, unrattled ones too, each with the space group pymatgen's
                     SpacegroupAnalyzer finds at its defaults and the lattice type, as a JSON list
                     (with `sample`: two rattled and one strained cell per prototype)
  readcif            reads a JSON list of {structure, path} from stdin and prints what pymatgen
                     and ASE read from each CIF, and whether it is the same crystal as the structure
"""
import io
import json
import sys
import warnings

warnings.filterwarnings("ignore")


def structure_of(item):
    from pymatgen.core import Lattice, Structure
    return Structure(Lattice(item["cell"]), item["symbols"], item["scaled"])


def lattice_type(analyzer):
    """The Setyawan-Curtarolo lattice type (the platform's lattice.type: CUB, FCC, ..., HEX, RHL, MCLC,
    TRI), as pymatgen's KPathSetyawanCurtarolo names the standard primitive cell, without its variant."""
    import re
    from pymatgen.symmetry.kpath import KPathSetyawanCurtarolo
    primitive = analyzer.get_primitive_standard_structure(international_monoclinic=False)
    path = KPathSetyawanCurtarolo(primitive, symprec=analyzer._symprec, angle_tolerance=analyzer._angle_tol)
    name = getattr(path, "name", None)
    if name is None:  # pymatgen names no path for some triclinic cells
        return "TRI" if analyzer.get_crystal_system() == "triclinic" else None
    return re.match(r"ORCF|ORCI|ORCC|ORC|MCLC|MCL|BCT|BCC|FCC|CUB|TET|HEX|RHL|TRI", name).group(0)


def analyze(items):
    import spglib
    from pymatgen.symmetry.analyzer import SpacegroupAnalyzer
    out = []
    for item in items:
        s = structure_of(item)
        symprec = item.get("symprec", 0.01)
        angle_tolerance = item.get("angleTolerance", 5)
        # symprec 0.01 and angle_tolerance 5 unless given, as the platform calls it
        a = SpacegroupAnalyzer(s, symprec=symprec, angle_tolerance=angle_tolerance)
        comp = s.composition
        numbers = [sorted(set(item["symbols"]), key=item["symbols"].index).index(x) + 1 for x in item["symbols"]]
        ds = spglib.get_symmetry_dataset((item["cell"], item["scaled"], numbers), symprec=symprec, angle_tolerance=angle_tolerance)
        conv = a.get_conventional_standard_structure()
        prim = a.get_primitive_standard_structure()
        out.append({
            "latticeType": lattice_type(a),
            "symbol": a.get_space_group_symbol(),
            "number": a.get_space_group_number(),
            "crystalSystem": a.get_crystal_system(),
            "pointGroup": a.get_point_group_symbol(),
            "volume": s.volume,
            "nsites": len(s),
            "density": float(s.density),
            "ratios": [[el.symbol, comp.get_atomic_fraction(el)] for el in comp.elements],
            "spglib": {
                "number": ds["number"],
                "operations": len(ds["rotations"]),
                "international": ds["international"],
                "pointgroup": ds["pointgroup"],
                "wyckoffs": list(ds["wyckoffs"]),
                "siteSymmetries": list(ds["site_symmetry_symbols"]),
                "equivalent": [int(x) for x in ds["equivalent_atoms"]],
                "stdVolume": abs(float(__import__("numpy").linalg.det(ds["std_lattice"]))),
                "stdAtoms": len(ds["std_types"]),
            },
            "conventional": {"volume": conv.volume, "atoms": len(conv), "abc": list(conv.lattice.abc)},
            "primitive": {"volume": prim.volume, "atoms": len(prim)},
        })
    return out


def ase_structures():
    from ase.build import bulk, make_supercell
    from ase.io import write
    out = []

    def add(name, atoms):
        text = io.StringIO()
        write(text, atoms, format="vasp", direct=True)
        out.append({
            "name": name,
            "poscar": text.getvalue(),
            "cell": atoms.cell.array.tolist(),
            "scaled": atoms.get_scaled_positions(wrap=True).tolist(),
            "symbols": atoms.get_chemical_symbols(),
        })

    add("Si diamond (primitive)", bulk("Si", "diamond", a=5.43))
    add("Si diamond (cubic)", bulk("Si", "diamond", a=5.43, cubic=True))
    add("Cu fcc", bulk("Cu", "fcc", a=3.61))
    add("Cu fcc (orthorhombic cell)", bulk("Cu", "fcc", a=3.61, orthorhombic=True))
    add("Fe bcc", bulk("Fe", "bcc", a=2.87))
    add("Mg hcp", bulk("Mg", "hcp", a=3.21, c=5.21))
    add("NaCl rocksalt", bulk("NaCl", "rocksalt", a=5.64))
    add("GaAs zincblende", bulk("GaAs", "zincblende", a=5.65))
    add("ZnO wurtzite", bulk("ZnO", "wurtzite", a=3.25, c=5.2))
    add("CsCl", bulk("CsCl", "cesiumchloride", a=4.12))
    add("CaF2 fluorite", bulk("CaF2", "fluorite", a=5.46))
    add("Si 2x2x1 supercell", bulk("Si", "diamond", a=5.43) * (2, 2, 1))
    add("Cu fcc 3x1x1 supercell (cubic)", bulk("Cu", "fcc", a=3.61, cubic=True) * (3, 1, 1))
    add("GaAs non-diagonal supercell", make_supercell(bulk("GaAs", "zincblende", a=5.65), [[1, 1, 0], [0, 1, 1], [1, 0, 2]]))
    mg = bulk("Mg", "hcp", a=3.21, c=5.21)
    mg.set_cell(mg.cell.array[[2, 0, 1]], scale_atoms=False)  # axes permuted: c first
    mg.set_scaled_positions(bulk("Mg", "hcp", a=3.21, c=5.21).get_scaled_positions()[:, [2, 0, 1]])
    add("Mg hcp (axes permuted)", mg)
    rattled = bulk("Si", "diamond", a=5.43, cubic=True)
    rattled.rattle(stdev=0.05, seed=7)
    add("Si rattled (P1)", rattled)
    return out


def prototypes():
    """Bulk prototypes as ASE builds them (primitive cells, and a few conventional and super cells)."""
    from ase import Atoms
    from ase.build import bulk
    from ase.spacegroup import crystal
    a = 3.905
    srtio3 = Atoms("SrTiO3", cell=[a, a, a], pbc=True,
                   scaled_positions=[(0, 0, 0), (0.5, 0.5, 0.5), (0.5, 0.5, 0), (0.5, 0, 0.5), (0, 0.5, 0.5)])
    return [
        ("NaCl rocksalt", bulk("NaCl", "rocksalt", a=5.64)),
        ("GaAs zincblende", bulk("GaAs", "zincblende", a=5.65)),
        ("Si diamond", bulk("Si", "diamond", a=5.43)),
        ("Si diamond (cubic)", bulk("Si", "diamond", a=5.43, cubic=True)),
        ("ZnO wurtzite", bulk("ZnO", "wurtzite", a=3.25, c=5.2)),
        ("SrTiO3 perovskite", srtio3),
        ("TiO2 rutile", crystal(["Ti", "O"], basis=[(0, 0, 0), (0.305, 0.305, 0)], spacegroup=136, cellpar=[4.59, 4.59, 2.96, 90, 90, 90])),
        ("Cu fcc", bulk("Cu", "fcc", a=3.61)),
        ("Cu fcc (cubic)", bulk("Cu", "fcc", a=3.61, cubic=True)),
        ("Fe bcc", bulk("Fe", "bcc", a=2.87)),
        ("Mg hcp", bulk("Mg", "hcp", a=3.21, c=5.21)),
        ("CsCl", bulk("CsCl", "cesiumchloride", a=4.12)),
        ("CaF2 fluorite", bulk("CaF2", "fluorite", a=5.46)),
        ("Al2O3 corundum", crystal(["Al", "O"], basis=[(0, 0, 0.352), (0.306, 0, 0.25)], spacegroup=167, cellpar=[4.76, 4.76, 12.99, 90, 90, 120], primitive_cell=True)),
        ("NaCl 2x1x1 supercell", bulk("NaCl", "rocksalt", a=5.64) * (2, 1, 1)),
    ]


def noisy(sample=False):
    import numpy as np
    from ase.io import write
    from pymatgen.core import Lattice, Structure
    from pymatgen.symmetry.analyzer import SpacegroupAnalyzer
    out = []

    def add(name, atoms):
        cell = atoms.cell.array.tolist()
        scaled = atoms.get_scaled_positions(wrap=True).tolist()
        symbols = atoms.get_chemical_symbols()
        a = SpacegroupAnalyzer(Structure(Lattice(cell), symbols, scaled), symprec=0.01, angle_tolerance=5)
        text = io.StringIO()
        write(text, atoms, format="vasp", direct=True)
        out.append({"name": name, "cell": cell, "scaled": scaled, "symbols": symbols, "poscar": text.getvalue(), "latticeType": lattice_type(a),
                    "number": a.get_space_group_number(), "symbol": a.get_space_group_symbol()})

    for p, (name, atoms) in enumerate(prototypes()):
        add(f"{name}", atoms)
        for k, sigma in enumerate(np.linspace(0.0005, 0.008, 16)):
            if sample and k not in (5, 12):
                continue
            rattled = atoms.copy()
            rattled.rattle(stdev=float(sigma), seed=1000 * p + k)
            add(f"{name} rattled sigma={sigma:.4f} seed={1000 * p + k}", rattled)
        rng = np.random.default_rng(p)
        for k, size in enumerate([0.0005, 0.001, 0.002, 0.004]):
            if sample and k != 2:
                continue
            strained = atoms.copy()
            e = rng.normal(scale=size, size=(3, 3))
            strained.set_cell(strained.cell.array @ (np.eye(3) + (e + e.T) / 2), scale_atoms=True)
            add(f"{name} strained {size}", strained)
    return out


def readcif(items):
    """Per {structure, path}: what pymatgen and ASE read from the CIF at path, and whether each is
    the same crystal as the structure (pymatgen's StructureMatcher, default tolerances)."""
    from ase.io import read
    from pymatgen.analysis.structure_matcher import StructureMatcher
    from pymatgen.core import Structure
    from pymatgen.io.ase import AseAtomsAdaptor
    from pymatgen.symmetry.analyzer import SpacegroupAnalyzer
    matcher = StructureMatcher(primitive_cell=True, scale=False, attempt_supercell=True)
    out = []
    for item in items:
        original = structure_of(item["structure"])
        by_pymatgen = Structure.from_file(item["path"])
        atoms = read(item["path"])
        by_ase = AseAtomsAdaptor.get_structure(atoms)
        out.append({
            "pymatgen": {"atoms": len(by_pymatgen), "symbol": SpacegroupAnalyzer(by_pymatgen).get_space_group_symbol(),
                         "same": bool(matcher.fit(original, by_pymatgen)), "volume": by_pymatgen.volume},
            "ase": {"atoms": len(atoms), "same": bool(matcher.fit(original, by_ase)),
                    "spacegroup": int(atoms.info["spacegroup"].no) if "spacegroup" in atoms.info else None},
        })
    return out


def main():
    command = sys.argv[1]
    if command == "analyze":
        print(json.dumps(analyze(json.load(sys.stdin))))
    elif command == "ase":
        print(json.dumps(ase_structures()))
    elif command == "noisy":
        print(json.dumps(noisy(sample=sys.argv[2:] == ["sample"])))
    elif command == "readcif":
        print(json.dumps(readcif(json.load(sys.stdin))))
    else:
        raise SystemExit(f"unknown command {command}")


if __name__ == "__main__":
    main()
