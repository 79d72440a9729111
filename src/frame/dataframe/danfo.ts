// The only module that touches danfojs-node's types. Nothing public re-exports from here, so
// matframe's published .d.ts never names danfojs-node (an optional peer): see dataframe.ts.
import type * as DanfoModule from "danfojs-node";
import type { BuiltColumns } from "../table/column-builder";
import type { DataFrame, GroupBy, Series } from "./dataframe";
import { MissingDependencyError } from "../../errors";
import { patchFrameDisplay } from "./frame-display";
import { adopt, installFrames } from "../operations/frames";
import { frameMethods } from "../operations/frame-methods";
import { seriesMethods } from "../operations/series-methods";

type Danfo = typeof DanfoModule;

// Compile-time proof that danfo's classes have every member our structural types promise.
type Assert<T extends true> = T;
export type DanfoFrameFits = Assert<InstanceType<Danfo["DataFrame"]> extends DataFrame ? true : false>;
export type DanfoSeriesFits = Assert<InstanceType<Danfo["Series"]> extends Series ? true : false>;
export type DanfoGroupByFits = Assert<
  ReturnType<InstanceType<Danfo["DataFrame"]>["groupby"]> extends GroupBy ? true : false
>;

let danfo: Danfo | undefined;

/**
 * Loads danfojs-node on first use only: its import alone costs 1-1.6 s and ~90 MiB,
 * which a client that never asks for a DataFrame should not pay.
 * @throws MissingDependencyError when danfojs-node is not installed.
 */
export function loadDanfo(): Danfo {
  if (danfo) return danfo;
  try {
    const loaded = require("danfojs-node") as Danfo;
    // matframe's frames: danfo's objects with matframe's operations and display, so that every
    // chain of calls gives pandas' answer (docs/tables.md, "Answers checked against pandas").
    patchFrameDisplay(installFrames(loaded, frameMethods, seriesMethods).frameProto);
    danfo = loaded;
  } catch (error) {
    const missing =
      (error as { code?: unknown }).code === "MODULE_NOT_FOUND" &&
      String((error as Error).message).includes("'danfojs-node'");
    if (missing) {
      throw new MissingDependencyError("danfojs-node", "A DataFrame", {
        cause: error,
        // danfojs-node 1.2.0 does not install as published (an xlsx tarball from a CDN, a native
        // TensorFlow download); docs/tables.md ("Installing danfojs-node") has the overrides that fix it.
        hint: 'Version 1.2.0 also needs "overrides" in your package.json: see "Installing danfojs-node" in matframe\'s docs/tables.md.',
      });
    }
    throw error;
  }
  return danfo;
}

/**
 * Loads danfojs-node now when it is installed, so that the first `toDataFrame` does not pay its
 * load (1-1.6 s of CPU: mathjs alone is most of it). For entries whose users always build frames
 * (`matframe/notebook`); the root entry and the CLI stay lazy. A failure is left for the first
 * `toDataFrame` to report, with its hint, where the user asked for a frame.
 * @returns whether danfojs-node is loaded.
 */
export function preloadDanfo(): boolean {
  try {
    loadDanfo();
    return true;
  } catch {
    return false;
  }
}

/**
 * Builds the DataFrame once, from the built rows (cell arrays in column order, never row objects:
 * danfo maps those by key position, so a row with reordered or missing keys would land in the
 * wrong columns) with explicit names and dtypes, in danfo's low-memory mode, which skips keeping
 * a second, transposed copy. danfo keeps the rows as given.
 */
export function frameFromColumns(built: BuiltColumns): DataFrame {
  const { DataFrame } = loadDanfo();
  const options = { columns: [...built.names], dtypes: [...built.dtypes], config: { lowMemoryMode: true } };
  return adopt(new DataFrame(built.table, options)) as unknown as DataFrame;
}
