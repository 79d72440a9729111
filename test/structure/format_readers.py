"""pymatgen and ASE read the files of every registered structure format (format-registry-readers.test.ts).

  read    reads a JSON list of {structure: {cell, scaled, symbols}, path, ase, pymatgen} from stdin
          and prints, per item, the atom count each reader finds in the file and whether it is the
          same crystal as the structure (pymatgen's StructureMatcher, default tolerances);
          `pymatgen` is pymatgen's name for the format ("poscar", "cif") or null (not read by it)
"""
import json
import sys
import warnings

warnings.filterwarnings("ignore")


def main():
    from ase.io import read
    from pymatgen.analysis.structure_matcher import StructureMatcher
    from pymatgen.core import Lattice, Structure
    from pymatgen.io.ase import AseAtomsAdaptor

    matcher = StructureMatcher(primitive_cell=True, scale=False, attempt_supercell=True)
    out = []
    for item in json.load(sys.stdin):
        s = item["structure"]
        original = Structure(Lattice(s["cell"]), s["symbols"], s["scaled"])
        atoms = read(item["path"], format=item["ase"], index=0)
        result = {"ase": {"atoms": len(atoms), "same": bool(matcher.fit(original, AseAtomsAdaptor.get_structure(atoms)))}}
        if item["pymatgen"]:
            with open(item["path"]) as f:
                by_pymatgen = Structure.from_str(f.read(), fmt=item["pymatgen"])
            result["pymatgen"] = {"atoms": len(by_pymatgen), "same": bool(matcher.fit(original, by_pymatgen))}
        out.append(result)
    print(json.dumps(out))


if __name__ == "__main__":
    if sys.argv[1:] != ["read"]:
        raise SystemExit("usage: format_readers.py read < items.json")
    main()
