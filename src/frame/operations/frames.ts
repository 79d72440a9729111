// matframe's frames: danfo DataFrame and Series objects whose prototype is matframe's own, one
// step below danfo's. Operations where danfo 1.2 gives another answer than pandas (masks and
// positions after a sort or filter, missing values, groupby) are matframe's, written on the
// columns; every other danfo method still runs, and its result is made a matframe frame again,
// so a chain of calls in any order stays on matframe's side. Only frames matframe made carry
// its behaviour and its notebook display: danfo's own classes are left as they are.
import type * as DanfoModule from "danfojs-node";
import { dtypeOf, type Label, type Value } from "./values";
import { MissingDependencyError } from "../../errors";

type Danfo = typeof DanfoModule;
type Proto = Record<PropertyKey, unknown>;

/** A frame's contents, column by column, with its row labels. */
export interface FrameParts {
  names: string[];
  dtypes: string[];
  columns: Value[][];
  index: Label[];
}

/** The members matframe reads from a danfo frame or column. */
export interface DanfoFrameLike {
  columns: string[];
  dtypes: string[];
  index: Label[];
  values: unknown[];
  shape: number[];
}
export interface DanfoSeriesLike {
  values: Value[];
  index: Label[];
  dtype: string;
  shape: number[];
}

interface Classes {
  danfo: Danfo;
  frameProto: Proto;
  seriesProto: Proto;
  BaseFrame: abstract new (...args: never[]) => object;
  BaseSeries: abstract new (...args: never[]) => object;
}

let classes: Classes | undefined;

function installed(): Classes {
  if (!classes) throw new MissingDependencyError("danfojs-node", "matframe's frames");
  return classes;
}

/**
 * Gives matframe's frame and column methods to danfo, once: `frameMethods` and `seriesMethods`
 * replace danfo's of the same name; every other method of danfo's that returns a frame or a column
 * is wrapped so that its result is matframe's too.
 */
export function installFrames(danfo: Danfo, frameMethods: Proto, seriesMethods: Proto): Classes {
  if (classes) return classes;
  const BaseFrame = Object.getPrototypeOf(danfo.DataFrame) as Classes["BaseFrame"];
  const BaseSeries = Object.getPrototypeOf(danfo.Series) as Classes["BaseSeries"];
  const frameProto = Object.create(danfo.DataFrame.prototype) as Proto;
  const seriesProto = Object.create(danfo.Series.prototype) as Proto;
  classes = { danfo, frameProto, seriesProto, BaseFrame, BaseSeries };
  wrapInherited(frameProto, danfo.DataFrame.prototype);
  wrapInherited(seriesProto, danfo.Series.prototype);
  Object.assign(frameProto, frameMethods);
  // df["lattice.a"] (untyped, but danfo's documented way) reads through $getColumnData: its column
  // gets matframe's operations too.
  const columnData = (danfo.DataFrame.prototype as unknown as Proto).$getColumnData as (...args: unknown[]) => unknown;
  frameProto.$getColumnData = function (this: unknown, ...args: unknown[]): unknown {
    return adopt(columnData.apply(this, args));
  };
  Object.assign(seriesProto, seriesMethods);
  return classes;
}

function wrapInherited(target: Proto, from: object): void {
  const seen = new Set<PropertyKey>(["constructor"]);
  for (let proto: object | null = from; proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      if (seen.has(name) || name.startsWith("$")) continue;
      seen.add(name);
      const descriptor = Object.getOwnPropertyDescriptor(proto, name);
      if (typeof descriptor?.value !== "function") continue; // getters (values, index, ...) stay danfo's
      const original = descriptor.value as (...args: unknown[]) => unknown;
      target[name] = function (this: unknown, ...args: unknown[]): unknown {
        return adopt(original.apply(this, args));
      };
    }
  }
}

/** Makes a frame or column danfo returned a matframe one (anything else passes through). */
export function adopt<T>(value: T): T {
  const { BaseFrame, BaseSeries, frameProto, seriesProto } = installed();
  if (value instanceof BaseFrame && Object.getPrototypeOf(value) !== frameProto)
    Object.setPrototypeOf(value, frameProto);
  else if (value instanceof BaseSeries && Object.getPrototypeOf(value) !== seriesProto)
    Object.setPrototypeOf(value, seriesProto);
  return value;
}

/** Whether a value is a danfo column (matframe's or danfo's own). */
export function isSeries(value: unknown): value is DanfoSeriesLike {
  return value instanceof installed().BaseSeries;
}

/** A matframe frame from its columns: danfo's low-memory frame, rows in column order. */
export function buildFrame(parts: FrameParts): DanfoFrameLike {
  const { danfo } = installed();
  const rows = parts.index.map((_, r) => parts.columns.map((column) => column[r] ?? null));
  const frame = new danfo.DataFrame(rows, {
    columns: [...parts.names],
    dtypes: parts.dtypes.map((dtype, c) => fitDtype(dtype, parts.columns[c])),
    config: { lowMemoryMode: true },
  });
  return adopt(withLabels(frame, parts.index)) as unknown as DanfoFrameLike;
}

/** A matframe column from its values and labels. */
export function buildSeries(values: Value[], index: Label[], dtype?: string): DanfoSeriesLike {
  const { danfo } = installed();
  // danfo refuses dtypes for an empty column.
  const series = new danfo.Series(values, values.length === 0 ? {} : { dtypes: [dtype ?? dtypeOf(values)] });
  return adopt(withLabels(series, index)) as unknown as DanfoSeriesLike;
}

// pandas lets labels repeat (iloc([3, 3]) gives label 3 twice); danfo's constructor refuses them,
// so the labels are set after it, on the field danfo reads them from.
function withLabels<T extends object>(made: T, index: readonly Label[]): T {
  (made as { $index?: Label[] }).$index = [...index];
  return made;
}

// A column keeps its dtype through a sort or filter; an int32 column that gained a missing
// value (a groupby's NaN) becomes float32, as pandas makes int64 float64.
function fitDtype(dtype: string, values: Value[]): string {
  return !dtype || (dtype === "int32" && dtypeOf(values) !== "int32") ? dtypeOf(values) : dtype;
}

/** A frame's contents, column by column. */
export function partsOf(frame: DanfoFrameLike): FrameParts {
  const rows = frame.values as Value[][];
  const names = [...frame.columns];
  return {
    names,
    dtypes: [...frame.dtypes],
    columns: names.map((_, c) => rows.map((row) => row[c])),
    index: [...frame.index],
  };
}

/** The parts with only the rows at these positions, in this order. */
export function takeRows(parts: FrameParts, positions: readonly number[]): FrameParts {
  return {
    names: parts.names,
    dtypes: parts.dtypes,
    columns: parts.columns.map((column) => positions.map((p) => column[p])),
    index: positions.map((p) => parts.index[p]),
  };
}

/**
 * danfo's `inplace: true`: the new contents replace the frame's (or column's) own, and nothing is
 * returned, as danfo does; otherwise the new frame is returned and the old one is left as it was.
 */
export function finish<T extends object>(target: object, options: unknown, result: T): T | undefined {
  if (!(options && typeof options === "object" && (options as { inplace?: unknown }).inplace)) return result;
  const from = result as Record<string, unknown>;
  const to = target as Record<string, unknown>;
  for (const key of INTERNALS) if (key in from) to[key] = from[key];
  // danfo gives each column a property of its name (df["lattice.a"]); a new column needs one too.
  const define = (target as { $setInternalColumnDataProperty?: (name: string) => void }).$setInternalColumnDataProperty;
  for (const name of (from.$columns as string[] | undefined) ?? []) {
    if (define && !Object.hasOwn(target, name)) define.call(target, name);
  }
  return undefined;
}

// The fields a danfo frame or column keeps its contents in (danfojs-base's NDframe).
const INTERNALS = ["$data", "$dataIncolumnFormat", "$index", "$columns", "$dtypes", "$config", "$isSeries"];
