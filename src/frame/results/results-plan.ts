// What a results read is asked for, checked once before any request: which property kinds, which
// columns (the fixed ones, the values of each property, and the material or job columns added),
// and the projections that fetch exactly what those columns need.
import { ValidationError } from "../../errors";
import type { Fields } from "../../schemas";
import { planColumns, type ColumnPlan } from "../table/column-spec";
import { knownType, type ColumnType } from "../table/column-types";
import type { ExportCsvOptions, ExportOptions } from "../export/export";
import type { ExportParquetOptions } from "../export/parquet";
import type { Progress } from "../../client/config/options";
import type { WarningHandler } from "../table/warnings";
import { planResultsQuery, type ResultsQuery } from "./results-query";
import { notTabular, propertyColumns, type PropertyColumns } from "./property-columns";

/** `client.results.toDataFrame(options)`. */
export interface ResultsFrameOptions {
  /**
   * Throw `EmptyColumnError` when a material or job column you added is null in every row (a
   * misspelt path), instead of a warning. Property values may be empty: a source that gives only
   * the indirect gap leaves `band_gaps.direct` null.
   * @default false
   */
  strict?: boolean;
  /** Property kinds (their `slug`), e.g. `["band_gaps"]` or `["band_gaps", "total_energy"]`. */
  properties: readonly string[];
  /**
   * Keeps the rows that match these MongoDB-style conditions on the table's own columns (the
   * fixed ones, the values, the `columns` you add): `{ "material.formula": "GaN" }`,
   * `{ "band_gaps.indirect": { $gt: 1 } }`, `{ "material.matframe:crystalSystem": "cubic" }`.
   * A condition on a plain field of the properties, jobs or materials is also sent with that
   * collection's request, so fewer records travel; the others are applied to the joined rows.
   * The table equals the filter of the whole table. `maxItems` counts property records read,
   * before the filter.
   * @default every row
   */
  query?: Readonly<Record<string, unknown>>;
  /**
   * Columns added after the fixed ones: material columns as `material.` + any material column
   * (`material.derivedProperties.density`, `material.matframe:spaceGroupNumber`, by the material
   * column rules of docs/tables.md); fields of the job, of the unit's subworkflow's model or
   * application, or of the unit as `job.`, `model.`, `application.`, `unit.` + a dotted path
   * (`job.name`, `model.hubbardType`, `model.functional`, `unit.name`).
   */
  columns?: readonly string[];
  /**
   * Property records per page; each page's jobs and materials are read with one request each,
   * so a page's ids must fit in one request URL.
   * @default 200
   */
  pageSize?: number;
  /**
   * Stop after this many property records (a preview of a large set).
   * @default no limit
   */
  maxItems?: number;
  /** Told of data warnings (an empty column); by default they are emitted as process warnings. */
  onWarning?: WarningHandler;
  /** Called after each page of properties is joined. */
  onProgress?: (progress: Progress) => void;
  /** Aborts the read. */
  signal?: AbortSignal;
}

/** `client.results.exportCsv(target, options)`. */
export type ResultsCsvOptions = ResultsFrameOptions & ExportCsvOptions;
/** `client.results.exportNdjson(target, options)`. */
export type ResultsNdjsonOptions = ResultsFrameOptions & ExportOptions;
/** `client.results.exportParquet(target, options)`. */
export type ResultsParquetOptions = ResultsFrameOptions & ExportParquetOptions;

/** The columns every results table starts with, in this order. */
export const RESULT_COLUMNS: readonly string[] = Object.freeze([
  "material._id",
  "material.formula",
  "job._id",
  "job.status",
  "unit.flowchartId",
  "application.name",
  "application.version",
  "model.type",
  "model.subtype",
  // GGA and GGA+U differ only here: a group-by over the method without it mixes them.
  "model.hubbardType",
  "method.type",
  "method.subtype",
]);

/** Where an added column that is not a material column reads from. */
const LINKED = ["job", "model", "application", "unit"] as const;

/** An added column read from the job (`job.name`), the unit's subworkflow's model or application (`model.hubbardType`), or the unit (`unit.name`). */
export interface LinkedColumn {
  readonly name: string;
  readonly from: (typeof LINKED)[number];
  /** The dotted path under it. */
  readonly path: string;
}

/** A results read, checked. */
export interface ResultsPlan {
  /** Output column names, in order (each a name, not a path: `material._id` is one column). */
  readonly names: readonly string[];
  readonly properties: readonly PropertyColumns[];
  /** The material columns by the material column rules, `material.` taken off. */
  readonly material: ColumnPlan;
  /** Output names of the material columns, in `material.names` order. */
  readonly materialNames: readonly string[];
  /** Columns added from the job, the unit's subworkflow's model or application, or the unit. */
  readonly linked: readonly LinkedColumn[];
  readonly jobFields: Fields;
  /**
   * The type of every column whose type the schemas give, whatever the rows hold: the fixed
   * columns' text, the property values' numbers (ESSE: a band gap's `value`, a scalar property's
   * `value`, a dielectric tensor's components; matframe's dielectric_constant values), the
   * material columns the platform's material schema types. A column of nulls is
   * still a DOUBLE in Parquet.
   */
  readonly types: Readonly<Record<string, ColumnType>>;
  /** The `query`, checked and split between the requests and the rows. */
  readonly query?: ResultsQuery;
  readonly pageSize: number;
  readonly maxItems?: number;
}

const SLUG = /^[a-z][a-z0-9_]*$/;
const FIXED_MATERIAL = ["_id", "formula"];
/** Ids of one page must fit a request URL (the platform and `matframe serve` refuse 8 KiB and more). */
export const MAX_RESULTS_PAGE = 250;
const DEFAULT_RESULTS_PAGE = 200;

/** The options of a results read, and those each way of writing it adds. */
const READ_OPTIONS = [
  "properties",
  "query",
  "columns",
  "strict",
  "pageSize",
  "maxItems",
  "onWarning",
  "onProgress",
  "signal",
];
const WRITE_OPTIONS: Readonly<Record<ResultsMethod, readonly string[]>> = {
  toDataFrame: [],
  exportCsv: ["force", "header", "escapeFormulas"],
  exportNdjson: ["force"],
  exportParquet: ["force", "compression", "rowGroupSize", "rowGroupBytes", "types"],
};

/** The method a results read serves, for its options' check. */
export type ResultsMethod = "toDataFrame" | "exportCsv" | "exportNdjson" | "exportParquet";

/**
 * Checks a results read's options before any request. An option the method does not use is
 * refused rather than ignored (a material table's `units` or `sort`, a CSV `header` on Parquet).
 */
export function planResults(options: ResultsFrameOptions, method: ResultsMethod = "toDataFrame"): ResultsPlan {
  if (options === null || typeof options !== "object")
    throw new ValidationError("options", 'toDataFrame needs { properties: ["band_gaps"] }.');
  const known = [...READ_OPTIONS, ...WRITE_OPTIONS[method]];
  for (const [name, value] of Object.entries(options)) {
    if (value === undefined || known.includes(name)) continue;
    throw new ValidationError(
      name,
      `client.results.${method} does not use the option ${JSON.stringify(name)}; it takes ${known.join(", ")}.` +
        (name === "sort" ? " Sort the frame afterwards (df.sortValues)." : ""),
      { remedy: { leaveOut: [name] } },
    );
  }
  const slugs = options.properties;
  if (!Array.isArray(slugs) || slugs.length === 0) {
    throw new ValidationError(
      "properties",
      'properties must name at least one property kind by its slug, e.g. ["band_gaps"].',
    );
  }
  for (const slug of slugs) {
    if (typeof slug !== "string" || !SLUG.test(slug)) {
      throw new ValidationError(
        "properties",
        `properties holds ${JSON.stringify(slug)}, which is not a property slug; slugs are lower case with underscores, e.g. "band_gaps", "total_energy".`,
      );
    }
  }
  for (const slug of slugs) {
    const what = notTabular(slug);
    if (what)
      throw new ValidationError(
        "properties",
        `properties names "${slug}": a record of that kind holds ${what}, not a value a table row can hold; ` +
          `read such records whole with client.properties.list({ query: { slug: "${slug}" } }) (each names its job in source.info.jobId), ` +
          "or the job's own output files with matframe jobs files ID --download DIR.",
      );
  }
  const properties = [...new Set(slugs)].map(propertyColumns);
  const extras = options.columns ?? [];
  if (!Array.isArray(extras))
    throw new ValidationError(
      "columns",
      'columns must be an array of column names, e.g. ["material.derivedProperties.density"].',
    );
  const materialExtras: string[] = [];
  const linked: LinkedColumn[] = [];
  for (const column of extras) {
    const from =
      typeof column === "string"
        ? LINKED.find((prefix) => column.startsWith(`${prefix}.`) && column.length > prefix.length + 1)
        : undefined;
    if (typeof column === "string" && column.startsWith("material.") && column.length > "material.".length)
      materialExtras.push(column.slice("material.".length));
    else if (from !== undefined) {
      const path = (column as string).slice(from.length + 1);
      planColumns([path]); // the path's segments are checked as any column's
      if (!RESULT_COLUMNS.includes(column as string) && !linked.some((c) => c.name === column))
        linked.push({ name: column as string, from, path });
    } else {
      throw new ValidationError(
        "columns",
        `Column ${JSON.stringify(column)} is not one a results table can add: add material columns as "material." + a material column (e.g. "material.derivedProperties.density", "material.matframe:spaceGroupNumber"), and fields of the job, the unit's subworkflow's model or application, or the unit as "job.", "model.", "application.", "unit." + a path (e.g. "job.name", "model.hubbardType"); ${RESULT_COLUMNS.join(", ")} and the property values come anyway.`,
      );
    }
  }
  // The material columns follow the material column rules (named entries, computed columns).
  const material = planColumns([...FIXED_MATERIAL, ...materialExtras], { units: false });
  const linkedFields = linked.flatMap((c) =>
    c.from === "job" ? [c.path] : c.from === "unit" ? [`workflow.subworkflows.units.${c.path}`] : [],
  );
  const pageSize = options.pageSize ?? DEFAULT_RESULTS_PAGE;
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > MAX_RESULTS_PAGE) {
    throw new ValidationError(
      "pageSize",
      `pageSize must be a whole number from 1 to ${MAX_RESULTS_PAGE} (a page's job and material ids go in one request URL); got ${String(pageSize)}.`,
    );
  }
  const { maxItems } = options;
  if (maxItems !== undefined && (!Number.isSafeInteger(maxItems) || maxItems < 1)) {
    throw new ValidationError("maxItems", `maxItems must be a whole number of at least 1; got ${String(maxItems)}.`);
  }
  const materialNames = material.names.map((name) => `material.${name}`);
  const names = [
    ...RESULT_COLUMNS,
    ...properties.flatMap((p) => p.parts.map((part) => `${p.slug}.${part}`)),
    ...materialNames.filter((name) => !RESULT_COLUMNS.includes(name)),
    ...linked.map((c) => c.name),
  ];
  const types: Record<string, ColumnType> = Object.fromEntries(RESULT_COLUMNS.map((name) => [name, "string"]));
  for (const p of properties) for (const part of p.parts) types[`${p.slug}.${part}`] = "double";
  material.columns.forEach((def, i) => {
    const type = knownType(def);
    if (type) types[materialNames[i]!] = type;
  });
  const plan = {
    names,
    properties,
    material,
    materialNames,
    linked,
    types,
    jobFields: outermost([...Object.keys(JOB_FIELDS), ...linkedFields]),
    pageSize,
    ...(maxItems !== undefined ? { maxItems } : {}),
  };
  const query = planResultsQuery(options.query, plan);
  return query ? { ...plan, query } : plan;
}

/** What a job's row needs: its status, its material, and each unit's subworkflow's application and model. */
const JOB_FIELDS: Fields = {
  _id: 1,
  status: 1,
  _material: 1,
  "workflow.subworkflows.application": 1,
  "workflow.subworkflows.model": 1,
  "workflow.subworkflows.units.flowchartId": 1,
};

/** Projection fields of these paths, a path under another left out (a projection may not name both). */
function outermost(paths: readonly string[]): Fields {
  const fields: Fields = {};
  const kept: string[] = [];
  for (const path of [...new Set(paths)].sort()) {
    if (kept.some((parent) => path.startsWith(`${parent}.`))) continue;
    kept.push(path);
    fields[path] = 1;
  }
  return fields;
}

/**
 * A flat plan over the output names: each column reads the row object's key of its name. The
 * names are the results plan's own, checked when it was made, so an empty column is data without
 * values (a source without direct gaps), never a misspelt path: it gives no warning, and no
 * "did you mean" is looked for.
 */
export function flatPlan(names: readonly string[]): ColumnPlan {
  return { names, columns: names.map((name) => ({ name, segments: [name] })), fields: {}, defaulted: true };
}
