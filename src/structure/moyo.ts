// Loads moyo (spglib's successor, by spglib's author) as WebAssembly, once, synchronously.
// The package is ESM-only and built for bundlers (`init()` fetches the .wasm by URL); from our
// CommonJS build it loads through Node's require(esm) (Node 20.19+), and the module is
// instantiated from the file's bytes with `initSync`, so no call has to be async.
import { readFileSync } from "node:fs";
import { MissingDependencyError } from "../errors";

export type MoyoModule = typeof import("@spglib/moyo-wasm", { with: { "resolution-mode": "import" } });
export type MoyoDataset = import("@spglib/moyo-wasm", { with: { "resolution-mode": "import" } }).MoyoDataset;
export type MoyoCell = import("@spglib/moyo-wasm", { with: { "resolution-mode": "import" } }).MoyoCell;

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
