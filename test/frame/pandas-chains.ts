// Chains of the frame operations docs/tables.md documents, generated from a seed, and how
// matframe runs each one. pandas_chains.py runs the same JSON chains in pandas; the differential
// test compares the two. A chain is some steps (sort, filters, head/tail, iloc/loc, resetIndex,
// drop, dropNa, new columns) and one terminal (the frame itself, a groupby aggregation,
// valueCounts, unique, a statistic, a sorted column, or the frame written to CSV).
import type { DataFrame, Series } from "../../src";
import { mulberry32 } from "../support/seeded-random";
import { at } from "../support/checked";

export type Cmp = "gt" | "lt" | "ge" | "le" | "eq" | "ne";
export interface MaskSpec {
  col: string;
  cmp: Cmp;
  value: number | string;
}
export type Step =
  | { op: "sort"; col: string; asc: boolean }
  | { op: "filter" | "filterBase"; a: MaskSpec }
  | { op: "filterNa"; col: string; missing: boolean }
  | { op: "filter2"; a: MaskSpec; b: MaskSpec; combine: "and" | "or" }
  | { op: "head" | "tail"; n: number }
  | { op: "ilocSlice"; start: number; end: number }
  | { op: "iloc" | "loc"; picks: number[] }
  | { op: "resetIndex" | "dropNa" }
  | { op: "drop" | "select"; cols: string[] }
  | { op: "addColumn"; name: string; a: string; b: string; fn: "add" | "sub" | "mul" | "div" }
  | { op: "apply"; name: string; col: string };
export type Terminal =
  | { kind: "frame" }
  | { kind: "write"; path: string }
  | { kind: "groupby"; keys: string[]; col: string; agg: string }
  | { kind: "valueCounts" | "unique"; col: string }
  | { kind: "stat"; col: string; fn: string }
  | { kind: "sortSeries"; col: string; asc: boolean };
export interface Chain {
  steps: Step[];
  terminal: Terminal;
}

/** mulberry32 (test/support/seeded-random.ts): a small seeded generator, so a failing chain can be run again. */
export const seeded = mulberry32;

/** Columns by kind, and their values (for thresholds that hit real values and ties). */
export interface ColumnPool {
  numeric: string[];
  text: string[];
  extra: string[];
  values: Map<string, Array<number | string>>;
}

/** The first steps of each chain, in turn, so every pair the issue names is among the chains. */
const OPENINGS: Array<Step["op"][]> = [
  ["sort", "filter"],
  ["filter", "sort"],
  ["filter", "filter"],
  ["sort", "head"],
  ["sort", "tail"],
  ["sort", "iloc"],
  ["sort", "loc"],
  ["sort", "filterBase"],
  ["filter2", "sort"],
  ["dropNa"],
  ["sort", "addColumn"],
  ["filter", "apply"],
  ["sort", "resetIndex", "filter"],
  ["sort", "ilocSlice"],
  ["select", "dropNa"],
  ["drop", "sort"],
];
const TERMINALS: Terminal["kind"][] = [
  "frame",
  "frame",
  "frame",
  "groupby",
  "groupby",
  "groupby",
  "valueCounts",
  "unique",
  "stat",
  "sortSeries",
  "write",
];
const RANDOM_STEPS: Step["op"][] = [
  "sort",
  "filter",
  "filterNa",
  "filter2",
  "head",
  "tail",
  "iloc",
  "loc",
  "resetIndex",
  "filterBase",
  "addColumn",
  "apply",
  "ilocSlice",
  "drop",
  "dropNa",
];
const AGGS = ["count", "sum", "mean", "median", "min", "max", "std", "var", "size", "first", "last", "multi"];
const STATS = ["count", "sum", "mean", "median", "min", "max", "std", "var", "nUnique"];

/** `count` chains from `seed`; write terminals go to files in `dir`. */
export function generateChains(count: number, seed: number, pool: ColumnPool, dir: string): Chain[] {
  const random = seeded(seed);
  const pick = <T>(items: readonly T[]): T => at(items, Math.floor(random() * items.length), "the choices");
  const chains: Chain[] = [];
  for (let c = 0; c < count; c += 1) {
    const numeric = [...pool.numeric];
    const text = [...pool.text];
    let extra = [...pool.extra];
    const mask = (): MaskSpec => {
      const col = pick([...numeric.filter((n) => pool.values.has(n)), ...text]);
      const value = pick(pool.values.get(col)!);
      return {
        col,
        cmp:
          typeof value === "string" ? pick(["eq", "ne"] as const) : pick(["gt", "lt", "ge", "le", "eq", "ne"] as const),
        value,
      };
    };
    const make = (op: Step["op"], k: number): Step | undefined => {
      switch (op) {
        case "sort":
          return { op, col: pick([...numeric, ...text]), asc: random() < 0.5 };
        case "filter":
        case "filterBase":
          return { op, a: mask() };
        case "filter2":
          return { op, a: mask(), b: mask(), combine: random() < 0.5 ? "and" : "or" };
        case "filterNa":
          return { op, col: pick([...numeric, ...text]), missing: random() < 0.5 };
        case "head":
        case "tail":
          return { op, n: Math.floor(random() * 40) - 3 };
        case "ilocSlice":
          return { op, start: Math.floor(random() * 60) - 10, end: Math.floor(random() * 2500) - 10 };
        case "iloc":
        case "loc":
          return { op, picks: Array.from({ length: 1 + Math.floor(random() * 6) }, () => random()) };
        case "resetIndex":
        case "dropNa":
          return { op };
        case "select": {
          const cols = ["_id", ...numeric.slice(0, 3), ...text.slice(0, 2)];
          numeric.splice(3);
          text.splice(2);
          extra = [];
          return { op, cols };
        }
        case "drop":
          return extra.length ? { op, cols: extra.splice(0) } : undefined;
        case "addColumn": {
          const name = `ratio${k}`;
          const step: Step = {
            op,
            name,
            a: pick(numeric),
            b: pick(numeric),
            fn: pick(["add", "sub", "mul", "div"] as const),
          };
          numeric.push(name);
          return step;
        }
        case "apply": {
          const name = `twice${k}`;
          const step: Step = { op, name, col: pick(numeric) };
          numeric.push(name);
          return step;
        }
      }
    };
    const ops = [
      ...at(OPENINGS, c % OPENINGS.length, "the openings"),
      ...Array.from({ length: Math.floor(random() * 3) }, () => pick(RANDOM_STEPS)),
    ];
    const steps = ops.map((op, k) => make(op, k)).filter((s): s is Step => s !== undefined);
    const kind = pick(TERMINALS);
    const any = [...numeric, ...text];
    let terminal: Terminal;
    if (kind === "groupby") {
      const agg = pick(AGGS);
      const keys = random() < 0.7 ? [pick(text)] : [at(text, 0, "the text columns"), at(text, 1, "the text columns")];
      terminal = {
        kind,
        keys,
        agg,
        col: ["count", "first", "last"].includes(agg) ? pick(any.filter((n) => !keys.includes(n))) : pick(numeric),
      };
    } else if (kind === "valueCounts" || kind === "unique") terminal = { kind, col: pick(any) };
    else if (kind === "stat") {
      const fn = pick(STATS);
      terminal = { kind, fn, col: fn === "count" || fn === "nUnique" ? pick(any) : pick(numeric) };
    } else if (kind === "sortSeries") terminal = { kind, col: pick(any), asc: random() < 0.5 };
    else if (kind === "write") terminal = { kind, path: `${dir}/chain-${c}.csv` };
    else terminal = { kind };
    chains.push({ steps, terminal });
  }
  return chains;
}

function maskOf(frame: DataFrame, spec: MaskSpec): Series {
  return frame.column(spec.col)[spec.cmp](spec.value);
}

/** One step, as a matframe user writes it. */
export function runStep(frame: DataFrame, base: DataFrame, step: Step): DataFrame {
  const n = frame.shape[0];
  switch (step.op) {
    case "sort":
      return frame.sortValues(step.col, { ascending: step.asc });
    case "filter":
      return frame.query(maskOf(frame, step.a));
    case "filterBase":
      return frame.query(maskOf(base, step.a));
    case "filter2":
      return frame.query(maskOf(frame, step.a)[step.combine](maskOf(frame, step.b)));
    case "filterNa": {
      const missing = frame.column(step.col).isNa();
      return frame.query(step.missing ? missing : missing.eq(false));
    }
    case "head":
      return frame.head(step.n);
    case "tail":
      return frame.tail(step.n);
    case "ilocSlice":
      return frame.iloc({ rows: [`${step.start}:${step.end}`] });
    case "iloc":
      return n ? frame.iloc({ rows: step.picks.map((f) => Math.floor(f * n)) }) : frame;
    case "loc":
      return n
        ? frame.loc({ rows: step.picks.map((f) => at(frame.index, Math.floor(f * n), "the frame's index")) })
        : frame;
    case "resetIndex":
      return frame.resetIndex();
    case "dropNa":
      return frame.dropNa();
    case "drop":
      return frame.drop({ columns: step.cols });
    case "select":
      return frame.loc({ columns: step.cols });
    case "addColumn":
      return frame.addColumn(step.name, frame.column(step.a)[step.fn](frame.column(step.b)));
    case "apply": {
      const at = frame.columns.indexOf(step.col);
      const twice = (row: Array<number | null>) =>
        row[at] === null || Number.isNaN(row[at]) ? Number.NaN : (row[at] as number) * 2;
      return n ? frame.addColumn(step.name, frame.apply(twice, { axis: 1 }) as Series) : frame.addColumn(step.name, []);
    }
  }
}
