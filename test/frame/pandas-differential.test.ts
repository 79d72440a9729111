import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServer, type ServerHandle } from "../../src/server";
import { Client, exportCsv, toDataFrame, type DataFrame } from "../../src";
import { generateChains, runStep, seeded, type Chain, type ColumnPool, type Terminal } from "./pandas-chains";
import { at } from "../support/checked";
import { PYTHON, pythonImports } from "../support/python";

// matframe's frames against pandas (Debian's python3-pandas), operation by operation and in any
// order: 240 chains generated from a seed over 2,000 materials of the local platform (bundled
// and synthetic) with values knocked out, so that sorts, filters and aggregations meet missing
// values. One frame build, one Python process for all chains.

const HELPER = join(__dirname, "pandas_chains.py");
const SEED = Number(process.env.MATFRAME_CHAIN_SEED ?? 20261126);
const CHAINS = 240;
const hasPandas = pythonImports("pandas");
if (!hasPandas) {
  if (process.env.MATFRAME_REQUIRE_JUPYTER === "1")
    throw new Error("python3-pandas is missing: apt-get install python3-pandas");
  console.warn("SKIPPED: the pandas differential test needs Debian's python3-pandas (apt-get install python3-pandas)");
}

const COLUMNS = [
  "name",
  "formula",
  "lattice.type",
  "method",
  "lattice.a",
  "lattice.c",
  "derivedProperties.volume",
  "derivedProperties.density",
  "derivedProperties.elemental_ratio.Si",
  "derivedFrom.strain",
];
const POOL_NUMERIC = [
  "lattice.a",
  "lattice.c",
  "derivedProperties.volume",
  "derivedProperties.density",
  "derivedProperties.elemental_ratio.Si",
  "derivedFrom.strain",
];
const POOL_TEXT = ["lattice.type", "method.type", "method.subtype", "formula"];

type Result = {
  frame?: { columns: string[]; index: unknown[]; rows: unknown[][] };
  series?: { index: unknown[] | null; values: unknown[] };
  value?: unknown;
  error?: string;
  written?: { columns: string[]; rows: unknown[][] };
};

let server: ServerHandle;
let dir: string;
let base: DataFrame;
let chains: Chain[];
let ours: Result[];
let theirs: Result[];

/** Knocks values out of the records (seeded): pandas and matframe then meet the same nulls. */
function knockOut(records: Array<Record<string, any>>): void {
  const random = seeded(SEED);
  for (const record of records) {
    if (random() < 0.08) delete record.lattice.c;
    if (random() < 0.05) delete record.lattice.type;
    if (random() < 0.06) delete record.method;
    if (random() < 0.1)
      record.derivedProperties = (record.derivedProperties ?? []).filter((p: { name: string }) => p.name !== "density");
  }
}

function cell(value: unknown): unknown {
  if (value === null || value === undefined || (typeof value === "number" && Number.isNaN(value))) return null;
  if (value === Infinity) return "inf";
  if (value === -Infinity) return "-inf";
  return value;
}

async function runOurs(chain: Chain): Promise<Result> {
  try {
    let frame = base;
    for (const step of chain.steps) frame = runStep(frame, base, step);
    return await terminal(frame, chain.terminal);
  } catch (error) {
    return { error: `${(error as Error).name}: ${(error as Error).message}` };
  }
}

/** `target[name]()`: the method a chain's terminal names. */
function callNamed(target: object, name: string): unknown {
  const method = (target as Record<string, unknown>)[name];
  if (typeof method !== "function") throw new Error(`The chain names ${name}, which is not a method here.`);
  return method.call(target);
}

function frameJson(frame: DataFrame): Result["frame"] {
  return {
    columns: [...frame.columns],
    index: [...frame.index],
    rows: (frame.values as unknown[][]).map((row) => row.map(cell)),
  };
}

async function terminal(frame: DataFrame, term: Terminal): Promise<Result> {
  switch (term.kind) {
    case "frame":
      return { frame: frameJson(frame) };
    case "write": {
      await exportCsv(frame, term.path, { force: true, onWarning: () => {} });
      return { frame: frameJson(frame) };
    }
    case "groupby": {
      const grouped = frame.groupby(term.keys);
      if (term.agg === "size") return { frame: frameJson(grouped.size()) };
      if (term.agg === "multi") return { frame: frameJson(grouped.agg({ [term.col]: ["mean", "count"] })) };
      return { frame: frameJson(callNamed(grouped.col([term.col]), term.agg) as DataFrame) };
    }
    case "valueCounts": {
      const counts = frame.column(term.col).valueCounts();
      return { series: { index: counts.index.map(cell), values: counts.values.map(cell) } };
    }
    case "unique":
      return { series: { index: null, values: frame.column(term.col).unique().values.map(cell) } };
    case "stat":
      return { value: cell(callNamed(frame.column(term.col), term.fn)) };
    case "sortSeries": {
      const sorted = frame.column(term.col).sortValues({ ascending: term.asc });
      return { series: { index: [...sorted.index], values: sorted.values.map(cell) } };
    }
  }
}

function same(a: unknown, b: unknown): boolean {
  if (typeof a === "number" && typeof b === "number")
    return a === b || Math.abs(a - b) <= 1e-9 * Math.max(Math.abs(a), Math.abs(b));
  return a === b;
}

/** The first difference between two answers, in words; undefined when they agree. */
function difference(mine: Result, pandas: Result, kind: Terminal["kind"]): string | undefined {
  if (mine.error || pandas.error)
    return mine.error === pandas.error
      ? undefined
      : `matframe: ${mine.error ?? "an answer"}; pandas: ${pandas.error ?? "an answer"}`;
  if (pandas.frame) {
    const [m, p] = [mine.frame!, pandas.frame];
    if (m.columns.join("|") !== p.columns.join("|")) return `columns: matframe [${m.columns}], pandas [${p.columns}]`;
    if (m.index.length !== p.index.length) return `rows: matframe ${m.index.length}, pandas ${p.index.length}`;
    for (const [r, label] of p.index.entries()) {
      if (!same(m.index[r], label)) return `row ${r}: label matframe ${m.index[r]}, pandas ${label}`;
      const mineRow = at(m.rows, r, "matframe's rows");
      const pandasRow = at(p.rows, r, "pandas' rows");
      for (const [c, column] of p.columns.entries()) {
        if (!same(mineRow[c], pandasRow[c]))
          return `row ${r} (label ${label}), column ${column}: matframe ${JSON.stringify(mineRow[c])}, pandas ${JSON.stringify(pandasRow[c])}`;
      }
    }
  }
  if (pandas.written) {
    const [w, p] = [pandas.written, pandas.frame!];
    if (w.columns.join("|") !== p.columns.join("|")) return `written CSV columns [${w.columns}], pandas [${p.columns}]`;
    if (w.rows.length !== p.rows.length) return `written CSV has ${w.rows.length} rows, pandas ${p.rows.length}`;
    for (const [r, pandasRow] of p.rows.entries()) {
      const written = at(w.rows, r, "the written CSV's rows");
      for (const [c, column] of p.columns.entries()) {
        if (!same(written[c], pandasRow[c]))
          return `written CSV row ${r}, column ${column}: read back ${JSON.stringify(written[c])}, pandas ${JSON.stringify(pandasRow[c])}`;
      }
    }
  }
  if (pandas.series) {
    const [m, p] = [mine.series!, pandas.series];
    if (kind === "valueCounts") {
      // pandas 1.5 orders equal counts by an unstable sort: compare the counts per value, and the order of counts.
      const key = (index: unknown[], values: unknown[]) =>
        index
          .map((v, i) => `${JSON.stringify(v)}=${values[i]}`)
          .sort()
          .join(", ");
      if (key(m.index!, m.values) !== key(p.index!, p.values))
        return `value counts: matframe {${key(m.index!, m.values)}}, pandas {${key(p.index!, p.values)}}`;
      if (m.values.join() !== p.values.join()) return `count order: matframe ${m.values}, pandas ${p.values}`;
      return undefined;
    }
    if (p.index && JSON.stringify(m.index) !== JSON.stringify(p.index))
      return `labels: matframe ${JSON.stringify(m.index).slice(0, 200)}, pandas ${JSON.stringify(p.index).slice(0, 200)}`;
    if (m.values.length !== p.values.length || m.values.some((v, i) => !same(v, p.values[i])))
      return `values: matframe ${JSON.stringify(m.values).slice(0, 200)}, pandas ${JSON.stringify(p.values).slice(0, 200)}`;
  }
  if ("value" in pandas && !same(mine.value, pandas.value))
    return `value: matframe ${JSON.stringify(mine.value)}, pandas ${JSON.stringify(pandas.value)}`;
  return undefined;
}

function describeChain(chain: Chain): string {
  return [...chain.steps.map((s) => JSON.stringify(s)), JSON.stringify(chain.terminal)].join(" -> ");
}

describe.skipIf(!hasPandas)("frames against pandas, on generated chains of operations", () => {
  beforeAll(async () => {
    server = await startServer({ port: 0, synthetic: 1971 });
    const client = await Client.login({ baseUrl: server.baseUrl, username: "demo", password: "demo" });
    const records: Array<Record<string, any>> = [];
    for await (const record of client.materials.iterate()) records.push(record as Record<string, any>);
    await client.logout();
    knockOut(records);
    base = await toDataFrame(records, { columns: COLUMNS, onWarning: () => {} });
    dir = mkdtempSync(join(tmpdir(), "matframe-pandas-"));
    const columnOf = (name: string) => base.column(name).values as Array<number | string | null>;
    const values = new Map(
      [...POOL_NUMERIC, ...POOL_TEXT].map((name) => [
        name,
        columnOf(name).filter((v): v is number | string => v !== null && !Number.isNaN(v)),
      ]),
    );
    const pool: ColumnPool = { numeric: POOL_NUMERIC, text: POOL_TEXT, extra: ["name"], values };
    chains = generateChains(CHAINS, SEED, pool, dir);
    ours = [];
    for (const chain of chains) ours.push(await runOurs(chain));
    const input = join(dir, "chains.json");
    writeFileSync(
      input,
      JSON.stringify({
        names: base.columns,
        dtypes: base.dtypes,
        rows: (base.values as unknown[][]).map((row) => row.map(cell)),
        chains,
      }),
    );
    theirs = JSON.parse(
      execFileSync(PYTHON, [HELPER, input], { encoding: "utf8", maxBuffer: 512 * 1024 * 1024 }),
    ) as Result[];
  }, 120_000);

  afterAll(async () => {
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("runs on 2,000 materials with missing values in the columns it sorts, filters and groups", () => {
    expect(base.shape[0]).toBe(2000);
    for (const name of [
      "lattice.c",
      "derivedProperties.density",
      "method.type",
      "lattice.type",
      "derivedFrom.strain",
    ]) {
      const missing = base.column(name).values.filter((v) => v === null || Number.isNaN(v)).length;
      expect(missing, name).toBeGreaterThan(20);
    }
  });

  it("gives pandas' answer for every chain", () => {
    expect(theirs).toHaveLength(chains.length);
    const diffs = chains.flatMap((chain, i) => {
      const diff = difference(at(ours, i, "matframe's answers"), at(theirs, i, "pandas' answers"), chain.terminal.kind);
      return diff ? [`chain ${i}: ${describeChain(chain)}\n    ${diff}`] : [];
    });
    expect(
      diffs.length,
      `${diffs.length} of ${chains.length} chains disagree with pandas (seed ${SEED}):\n${diffs.slice(0, 12).join("\n")}`,
    ).toBe(0);
  });

  it("the chains mean something: most give rows or values, and the pairs the tables guide warns about are there", () => {
    const nonEmpty = theirs.filter(
      (r) => !r.error && (r.frame ? r.frame.rows.length > 0 : r.series ? r.series.values.length > 0 : true),
    ).length;
    expect(nonEmpty).toBeGreaterThan(chains.length * 0.6);
    expect(theirs.filter((r) => r.error).length).toBeLessThan(chains.length * 0.05);
    const opening = (a: string, b: string) => chains.filter((c) => c.steps[0]?.op === a && c.steps[1]?.op === b).length;
    expect(opening("sort", "filter")).toBeGreaterThanOrEqual(10);
    expect(opening("filter", "sort")).toBeGreaterThanOrEqual(10);
    expect(opening("filter", "filter")).toBeGreaterThanOrEqual(10);
    expect(chains.filter((c) => c.steps[0]?.op === "filter" && c.terminal.kind === "groupby").length).toBeGreaterThan(
      0,
    );
  });
});
