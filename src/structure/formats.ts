// The structure file formats, one record each (pymatgen's io/core.py shape: name, extension,
// read, write). The frame's export, the CLI's flags and help, the client's import checks and the
// server's import endpoint all read this list; none of them names a format on its own.
import { toSymmetrizedCif } from "./cif-symmetrized";
import { fromCif, toCif } from "./cif";
import { fromPoscar, toPoscar } from "./poscar";
import type { CellChoice } from "./standard-cell";
import type { PlatformStructure, StructureRecord } from "./structure";
import { fromXyz, toXyz } from "./xyz";

/** One structure file format: what it is called, how its files are named, written and read. */
export interface StructureFileFormat {
  /** The name users pass (`format: "poscar"`, `--format poscar`). */
  readonly name: string;
  /** What the format is called in prose and messages (`POSCAR`). */
  readonly label: string;
  /** The file extension, without the dot. */
  readonly extension: string;
  /** What a file of this format holds, as a predicate of its name (`cif` "is in space group P1"), for help texts. */
  readonly description: string;
  /** The file text of one record (throws a StructureError when its basis and lattice disagree). */
  readonly write: (record: StructureRecord) => string;
  /** The structure of a file's text (throws a StructureError saying what is wrong, and where). */
  readonly read?: (text: string) => PlatformStructure & { name?: string };
  /** The platform's `POST /materials/import` takes it (by this name). */
  readonly importable: boolean;
  /** Files may hold several structures one after another (frames). */
  readonly multiFrame: boolean;
  /** The cells it can be asked to write; `cellsReason` says why one is missing. */
  readonly cells: readonly CellChoice[];
  readonly cellsReason?: string;
}

const ALL_CELLS: readonly CellChoice[] = ["as-is", "conventional", "primitive"];

/** Every structure file format, in the order help texts list them. */
export const STRUCTURE_FILE_FORMATS = [
  {
    name: "poscar",
    label: "POSCAR",
    extension: "vasp",
    description: "is VASP 5 (.vasp files)",
    write: toPoscar,
    read: fromPoscar,
    importable: true,
    multiFrame: false,
    cells: ALL_CELLS,
  },
  {
    name: "cif",
    label: "CIF",
    extension: "cif",
    description: "is in space group P1",
    write: toCif,
    read: fromCif,
    importable: true,
    multiFrame: false,
    cells: ALL_CELLS,
  },
  {
    name: "cif-symmetrized",
    label: "CIF",
    extension: "cif",
    description: "holds the space group, its operations and one atom per orbit, in the conventional standard cell",
    write: toSymmetrizedCif,
    importable: false,
    multiFrame: false,
    // "as-is" is taken as the default it is: the file is in the conventional cell all the same.
    cells: ["as-is", "conventional"],
    cellsReason:
      'writes the conventional standard cell (its operations are those of the standard setting); leave cell out, or use format "cif" for the primitive cell',
  },
  {
    name: "xyz",
    label: "extended XYZ",
    extension: "xyz",
    description: "is extended XYZ",
    write: toXyz,
    read: fromXyz,
    importable: false,
    multiFrame: true,
    cells: ALL_CELLS,
  },
] as const satisfies readonly StructureFileFormat[];

type Registered = (typeof STRUCTURE_FILE_FORMATS)[number];

/** The structure file formats' names. */
export type StructureFormat = "poscar" | "cif" | "cif-symmetrized" | "xyz";
// Spelled out for the API reference, which does not document the registry's inferred type; this
// line fails to compile when the two disagree.
const SAME_NAMES: [StructureFormat, Registered["name"]] extends [Registered["name"], StructureFormat] ? true : never =
  true;
void SAME_NAMES;

/** The formats `POST /materials/import` takes: `"poscar" | "cif"`. */
export type ImportFormat = Extract<Registered, { importable: true }>["name"];

/** The names, in order. */
export const STRUCTURE_FORMATS: readonly StructureFormat[] = Object.freeze(STRUCTURE_FILE_FORMATS.map((f) => f.name));

/** The names of the formats the platform imports, in order. */
export const IMPORT_FORMATS: readonly ImportFormat[] = Object.freeze(
  STRUCTURE_FILE_FORMATS.filter((f): f is Extract<Registered, { importable: true }> => f.importable).map((f) => f.name),
);

/** Whether `name` is a structure format's name. */
export function isStructureFormat(name: unknown): name is StructureFormat {
  return typeof name === "string" && (STRUCTURE_FORMATS as readonly string[]).includes(name);
}

/** Whether `name` is an import format's name. */
export function isImportFormat(name: unknown): name is ImportFormat {
  return typeof name === "string" && (IMPORT_FORMATS as readonly string[]).includes(name);
}

/** The record of a format, by its name. */
export function structureFormat<N extends StructureFormat>(name: N): Extract<Registered, { name: N }> {
  // The names are the union's discriminant, so the lookup always finds one.
  return STRUCTURE_FILE_FORMATS.find((f) => f.name === name) as Extract<Registered, { name: N }>;
}

/** `"a", "b" or "c"`: names for a message, quoted, as a sentence lists them. */
export function quotedList(names: readonly string[], conjunction = "or"): string {
  return listed(
    names.map((name) => `"${name}"`),
    conjunction,
  );
}

/** `a, b or c`: names for a help text, as a sentence lists them. */
export function listed(names: readonly string[], conjunction = "or"): string {
  if (names.length <= 1) return names.join("");
  return `${names.slice(0, -1).join(", ")} ${conjunction} ${names.at(-1)}`;
}
