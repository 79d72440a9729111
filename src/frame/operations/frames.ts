// matframe's frames: danfo's DataFrame and Series objects, made by danfo's public constructors
// and methods, each seen through a handle (a Proxy) that gives it matframe's operations and
// display. Operations where danfo 1.2 gives another answer than pandas (masks and positions after
// a sort or filter, missing values, groupby) are matframe's, written on the columns; every other
// danfo method still runs on the danfo object, and its result is given a handle too, so a chain
// of calls in any order stays on matframe's side. Nothing of danfo is changed: its classes and
// prototypes are left as they are, and matframe reads and builds its objects through their
// public members only. The handle is what lets matframe do, through danfo's public API, what
// danfo's public API cannot (test/frame/danfo-contract.test.ts pins why):
// - danfo's methods make objects of danfojs-base's own class, so a subclass would be lost at the
//   first call: the handle wraps each result instead, without a copy;
// - danfo's constructor refuses repeated row labels, which pandas keeps (iloc([3, 3])): the handle
//   keeps such labels and answers `index` with them;
// - `inplace: true` replaces a frame's contents: the handle points at the new danfo object;
// - `df[name]` is a non-configurable accessor that gives danfo's column: the handle answers it
//   with `df.column(name)`.
import { inspect } from "node:util";
import type * as DanfoModule from "danfojs-node";
import { type FrameParts, labelsAt } from "./lookup";
import { dtypeOf, type Label, type Value } from "./values";
import { FrameOperationError, MissingDependencyError } from "../../errors";

type Danfo = typeof DanfoModule;
type Proto = Record<PropertyKey, unknown>;

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
  /** matframe's frame methods and display: the prototype a frame's handle reports. */
  frameProto: Proto;
  seriesProto: Proto;
  BaseFrame: abstract new (...args: never[]) => object;
  BaseSeries: abstract new (...args: never[]) => object;
}

/** What a handle stands for: the danfo object it shows, and labels danfo could not hold. */
interface Handle {
  current: object;
  labels?: Label[];
  readonly proxy: object;
}

let classes: Classes | undefined;
const handles = new WeakMap<object, Handle>();
let frameHandler: ProxyHandler<Handle> | undefined;
let seriesHandler: ProxyHandler<Handle> | undefined;

function installed(): Classes {
  if (!classes) throw new MissingDependencyError("danfojs-node", "matframe's frames");
  return classes;
}

/**
 * Sets up matframe's frames for this danfo, once: `frameMethods` and `seriesMethods` answer
 * before danfo's methods of the same name; every other method of danfo's that returns a frame or
 * a column gives it a handle too.
 */
export function installFrames(danfo: Danfo, frameMethods: Proto, seriesMethods: Proto): Classes {
  if (classes) return classes;
  // danfojs-node's classes extend danfojs-base's, whose methods make their results: the base
  // classes are what every frame and column is an instance of.
  const BaseFrame = Object.getPrototypeOf(danfo.DataFrame) as Classes["BaseFrame"];
  const BaseSeries = Object.getPrototypeOf(danfo.Series) as Classes["BaseSeries"];
  // matframe's own classes, subclasses of danfo's public ones: their prototypes hold matframe's
  // methods, and `df instanceof danfo.DataFrame` holds for matframe's frames as it did.
  class MatframeFrame extends danfo.DataFrame {}
  class MatframeSeries extends danfo.Series {}
  const frameProto = MatframeFrame.prototype as unknown as Proto;
  const seriesProto = MatframeSeries.prototype as unknown as Proto;
  Object.assign(frameProto, frameMethods);
  Object.assign(seriesProto, seriesMethods);
  classes = { danfo, frameProto, seriesProto, BaseFrame, BaseSeries };
  frameHandler = handler(frameProto, true);
  seriesHandler = handler(seriesProto, false);
  return classes;
}

// danfo's methods, wrapped once each so that their results get handles.
const wrappers = new WeakMap<(...args: unknown[]) => unknown, (...args: unknown[]) => unknown>();

function wrapped(original: (...args: unknown[]) => unknown): (...args: unknown[]) => unknown {
  let wrapper = wrappers.get(original);
  if (!wrapper) {
    wrapper = function (this: unknown, ...args: unknown[]): unknown {
      return adopt(original.apply(this, args));
    };
    wrappers.set(original, wrapper);
  }
  return wrapper;
}

function handler(proto: Proto, isFrame: boolean): ProxyHandler<Handle> {
  return {
    get(handle, prop, receiver) {
      // danfo's own fields ($data, $index, ...), read by its methods on every call: the hot path.
      if (typeof prop === "string" && prop.charCodeAt(0) === 36) return Reflect.get(handle.current, prop, receiver);
      if (prop === "index" && handle.labels) return handle.labels;
      if (prop !== "constructor" && Object.hasOwn(proto, prop)) return proto[prop];
      const current = handle.current;
      // df["lattice.a"] (untyped, but danfo's documented way): matframe's column, as df.column gives.
      // (A danfo frame's own properties are its $-fields, handled above, and its column accessors.)
      if (isFrame && typeof prop === "string" && Object.hasOwn(current, prop)) {
        return (receiver as { column(name: string): unknown }).column(prop);
      }
      const value = Reflect.get(current, prop, receiver) as unknown;
      if (typeof value === "function" && typeof prop === "string" && prop !== "constructor" && !prop.startsWith("$")) {
        return wrapped(value as (...args: unknown[]) => unknown);
      }
      return value;
    },
    set: (handle, prop, value) => Reflect.set(handle.current, prop, value),
    has: (handle, prop) => Object.hasOwn(proto, prop) || Reflect.has(handle.current, prop),
    defineProperty: (handle, prop, descriptor) => Reflect.defineProperty(handle.current, prop, descriptor),
    deleteProperty: (handle, prop) => Reflect.deleteProperty(handle.current, prop),
    ownKeys: (handle) => Reflect.ownKeys(handle.current),
    getOwnPropertyDescriptor(handle, prop) {
      const descriptor = Reflect.getOwnPropertyDescriptor(handle.current, prop);
      // A proxy may not report a non-configurable property its target lacks (the handle has none).
      return descriptor && { ...descriptor, configurable: true };
    },
    getPrototypeOf: () => proto,
  };
}

// util.inspect shows a proxy's target without its traps (calling its custom inspect with the
// proxy as `this`): the handle displays as the frame's display, or as the danfo object.
const handleProto = {
  [inspect.custom](this: object, depth: number, options: object, show: typeof inspect): unknown {
    const handle = handles.get(this) ?? (this as Handle);
    const custom = (handle.proxy as Proto)[inspect.custom] as
      | ((depth: number, options: object, show: typeof inspect) => unknown)
      | undefined;
    return custom ? custom.call(handle.proxy, depth, options, show) : show(handle.current, options);
  },
};

function handleFor(current: object, isFrame: boolean, labels?: Label[]): object {
  const handle = Object.create(handleProto) as Handle & { proxy: object };
  handle.current = current;
  if (labels) handle.labels = labels;
  const proxy = new Proxy(handle, (isFrame ? frameHandler : seriesHandler)!);
  handle.proxy = proxy;
  handles.set(proxy, handle);
  return proxy;
}

/** Gives a frame or column danfo made a matframe handle (anything else passes through). */
export function adopt<T>(value: T): T {
  const { BaseFrame, BaseSeries } = installed();
  if (typeof value !== "object" || value === null || handles.has(value)) return value;
  if (value instanceof BaseFrame) return handleFor(value, true) as T;
  if (value instanceof BaseSeries) return handleFor(value, false) as T;
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
  const unique = uniqueLabels(parts.index);
  const frame = new danfo.DataFrame(rows, {
    columns: [...parts.names],
    // dtypes never outnumber the columns (a frame without rows has none), so each has its values.
    dtypes: parts.dtypes.map((dtype, c) => fitDtype(dtype, parts.columns[c] ?? [])),
    config: { lowMemoryMode: true },
    ...(unique ? { index: [...parts.index] } : {}),
  });
  return handleFor(frame, true, unique ? undefined : [...parts.index]) as unknown as DanfoFrameLike;
}

/** A matframe column from its values and labels. */
export function buildSeries(values: Value[], index: Label[], dtype?: string): DanfoSeriesLike {
  const { danfo } = installed();
  const unique = uniqueLabels(index);
  // danfo refuses dtypes for an empty column.
  const series = new danfo.Series(values, {
    ...(values.length === 0 ? {} : { dtypes: [dtype ?? dtypeOf(values)] }),
    ...(unique ? { index: [...index] } : {}),
  });
  return handleFor(series, false, unique ? undefined : [...index]) as unknown as DanfoSeriesLike;
}

// pandas lets labels repeat (iloc([3, 3]) gives label 3 twice); danfo's constructor refuses them,
// so the handle keeps those labels itself and danfo numbers the rows.
function uniqueLabels(index: readonly Label[]): boolean {
  return new Set(index).size === index.length;
}

// A column keeps its dtype through a sort or filter; an int32 column that gained a missing
// value (a groupby's NaN) becomes float32, as pandas makes int64 float64.
function fitDtype(dtype: string | undefined, values: readonly Value[]): string {
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
export function takeRows(parts: FrameParts, positions: readonly number[], operation: string): FrameParts {
  return {
    names: parts.names,
    dtypes: parts.dtypes,
    columns: parts.columns.map((column) => positions.map((p) => column[p])),
    index: labelsAt(parts.index, positions, operation),
  };
}

/**
 * danfo's `inplace: true`: the new contents replace the frame's (or column's) own, and nothing is
 * returned, as danfo does; otherwise the new frame is returned and the old one is left as it was.
 */
export function finish<T extends object>(target: object, options: unknown, result: T): T | undefined {
  if (!(options && typeof options === "object" && (options as { inplace?: unknown }).inplace)) return result;
  const handle = handles.get(target);
  const next = handles.get(result);
  if (!handle || !next)
    throw new FrameOperationError(
      "inplace",
      "inplace: true works on frames and columns matframe made; assign the returned frame instead.",
    );
  handle.current = next.current;
  if (next.labels) handle.labels = next.labels;
  else delete handle.labels;
  return undefined;
}
