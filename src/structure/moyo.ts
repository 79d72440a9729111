// Loads moyo (spglib's successor, by spglib's author) as WebAssembly, once, synchronously.
// The package is ESM-only and built for bundlers (`init()` fetches the .wasm by URL); from our
// CommonJS build it loads through Node's require(esm) (Node 20.19+), and the module is
// instantiated from the file's bytes with `initSync`, so no call has to be async.
import { readFileSync } from "node:fs";
import { MissingDependencyError } from "../errors";

// The parts of moyo-wasm's API used here, written out: its own .d.ts is an ES module, which a
// CommonJS file can name only with import attributes that older TypeScript compilers refuse.
type Nine = [number, number, number, number, number, number, number, number, number];
type Three = [number, number, number];

/** A cell as moyo takes it: row-major lattice (rows a, b, c), fractional positions, species numbers. */
export interface MoyoCell {
  lattice: { basis: Nine };
  positions: Three[];
  numbers: number[];
}

/** moyo's symmetry dataset (the fields matframe reads). */
export interface MoyoDataset {
  number: number;
  hall_number: number;
  hm_symbol: string;
  operations: { rotation: Nine; translation: Three }[];
  orbits: number[];
  wyckoffs: string[];
  site_symmetry_symbols: string[];
  std_cell: MoyoCell;
  prim_std_cell: MoyoCell;
  pearson_symbol: string;
}

export interface MoyoModule {
  initSync(module: { module: Uint8Array }): unknown;
  analyze_cell(cellJson: string, symprec: number, setting: string): MoyoDataset;
  hall_symbol_entry(hallNumber: number): { number: number; hm_short: string; hm_full: string; centering: string };
  space_group_type(number: number): { crystal_system: string; geometric_crystal_class: string };
  wyckoff_positions(
    hallNumber: number,
  ): { multiplicity: number; letter: string; site_symmetry: string; coordinates: string }[];
  operations_from_number(
    number: number,
    setting: { type: "HallNumber"; value: number },
    primitive: boolean,
  ): { rotation: Nine; translation: Three }[];
}

/** A rotation as moyo serializes it (nalgebra: column-major) as rows. */
export const rotationRows = ([a, b, c, d, e, f, g, h, i]: Nine): [Three, Three, Three] => [
  [a, d, g],
  [b, e, h],
  [c, f, i],
];

let moyo: MoyoModule | undefined;

/** The initialized moyo module (loaded and compiled on the first call, about 10 ms). */
export function loadMoyo(): MoyoModule {
  if (moyo) return moyo;
  let module: MoyoModule;
  let bytes: Buffer;
  try {
    module = require("@spglib/moyo-wasm") as MoyoModule;
    bytes = readFileSync(require.resolve("@spglib/moyo-wasm/moyo_wasm_bg.wasm"));
  } catch (error) {
    throw new MissingDependencyError("@spglib/moyo-wasm", "Crystal symmetry", { cause: error });
  }
  module.initSync({ module: bytes });
  moyo = module;
  return moyo;
}
