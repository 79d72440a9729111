import * as fs from "node:fs";
import * as path from "node:path";
import { StructureError, ValidationError } from "../../errors";
import type { IterateOptions, Progress } from "../../client/config/options";
import { validateIterateOptions, type ResolvedIterateOptions } from "../../client/config/validate-options";
import { standardCell, CELL_CHOICES, type CellChoice, type StructureRecord } from "../../structure";
import {
  listed,
  quotedList,
  STRUCTURE_FILE_FORMATS,
  STRUCTURE_FORMATS,
  isStructureFormat,
  structureFormat,
  type StructureFormat,
  type StructureFileFormat as StructureFileFormatRecord,
} from "../../structure/formats";
import { openAtomicFile } from "./atomic/atomic-file";
import { openAtomicDir } from "./atomic/atomic-dir";
import { sweepWarnings } from "./atomic/stale-partials";
import { Sink } from "./export";
import { csvLine } from "./csv";
import type { FrameWarning } from "../table/row-reader";
import { reportWarnings, type WarningHandler } from "../table/warnings";
import { checkResume, type ResumeOptions } from "./resume/resume-plan";
import { UniqueNames } from "./unique-names";
import type { PlatformRecord } from "../../client/platform-record";

// The structure file formats are src/structure/formats.ts's registry; their names are re-exported
// here, where the export's callers have always found them.
export { STRUCTURE_FORMATS, type StructureFormat };

/** Options of `exportStructures`. */
export interface StructureExportOptions
  extends Omit<IterateOptions, "fields" | "onPage" | "onDuplicate">,
    ResumeOptions {
  /**
   * `"poscar"` (VASP 5, `.vasp` files), `"cif"` (P1), `"cif-symmetrized"` (the space group, its
   * operations and the asymmetric unit, in the conventional standard cell) or `"xyz"` (extended XYZ):
   * the records of `STRUCTURE_FILE_FORMATS` (src/structure/formats.ts).
   */
  format: StructureFormat;
  /**
   * The cell to write: the record's own (`"as-is"`), or the conventional or primitive standard
   * cell of its space group (spglib's and pymatgen's, found with symprec 0.01 Å). A record
   * without a space group is skipped with a warning. `"cif-symmetrized"` is always conventional.
   * @default "as-is"
   */
  cell?: CellChoice;
  /**
   * xyz only: write every structure as a frame of one file at the target path instead of a
   * directory of files.
   * @default false
   */
  singleFile?: boolean;
  /** Replace an existing target (directory or file). @default false */
  force?: boolean;
  /** After each page: pages, structures written so far (`items`) and bytes. */
  onProgress?: (progress: Progress) => void;
  /** Records skipped because their basis and lattice disagree (code `INVALID_STRUCTURE`). */
  onWarning?: WarningHandler;
}

/** What a structure export wrote. */
export interface StructureExportResult {
  /** Structures written. */
  readonly items: number;
  /** Records skipped (see `warnings`). */
  readonly skipped: number;
  readonly pages: number;
  readonly bytes: number;
  /** The absolute path of the directory (or the single xyz file). */
  readonly path: string;
  readonly warnings: readonly FrameWarning[];
  /** With `resume`: structures kept from earlier runs (included in `items`). */
  readonly resumedFrom?: number;
}

/** A structure export, checked once before any request. */
export interface StructureExportPlan {
  readonly format: StructureFormat;
  readonly cell: CellChoice;
  readonly singleFile: boolean;
  readonly walk: ResolvedIterateOptions;
  /** Set when the export keeps its progress for a later run (`resume`). */
  readonly resume?: { readonly restart: boolean };
}

/** What a structure export reads from: a collection (`client.materials`). */
export interface StructureSource {
  walk(resolved: ResolvedIterateOptions): AsyncIterable<PlatformRecord[]>;
  readonly source: { readonly platform: string; readonly account: string };
}

/** Only what the writers read is asked for. */
const FIELDS = { _id: 1, name: 1, formula: 1, lattice: 1, basis: 1, "external.id": 1 } as const;

/** The multi-frame format a `singleFile` export writes (xyz). */
const MULTI_FRAME = STRUCTURE_FILE_FORMATS.filter((f) => f.multiFrame);
const SINGLE_FRAME_LABELS = [...new Set(STRUCTURE_FILE_FORMATS.filter((f) => !f.multiFrame).map((f) => f.label))];

/** The format a `singleFile` export writes its frames in. */
export const SINGLE_FILE_FORMAT: StructureFormat = MULTI_FRAME[0]!.name;

/**
 * Whether an output path asks for one multi-frame file rather than a directory: the format
 * writes frames and the path ends with its extension (`--output all.xyz`).
 */
export function isSingleFileTarget(format: string | undefined, output: unknown): boolean {
  if (!isStructureFormat(format) || typeof output !== "string") return false;
  const { multiFrame, extension } = structureFormat(format);
  return multiFrame && output.toLowerCase().endsWith(`.${extension}`);
}

/** The writer of a plan: its format's, of the cell it asks for. */
export function writerOf(
  plan: Pick<StructureExportPlan, "format" | "cell">,
  format: StructureFormat = plan.format,
): (record: StructureRecord) => string {
  const { write } = structureFormat(format);
  return plan.cell === "as-is" ? write : (record) => write(standardCell(record, plan.cell));
}

/** Checks the options of a structure export (format, walk) once. */
export function planStructureExport(options: StructureExportOptions): StructureExportPlan {
  if (options === null || typeof options !== "object")
    throw new ValidationError(
      "options",
      `exportStructures(dir, options) needs { format: ${STRUCTURE_FORMATS.map((f) => `"${f}"`).join(" | ")} }.`,
    );
  const {
    format,
    singleFile = false,
    cell = "as-is",
    query,
    sort,
    pageSize,
    maxItems,
    paging,
    concurrency,
    signal,
  } = options;
  if (!isStructureFormat(format)) {
    throw new ValidationError(
      "format",
      `format must be ${quotedList(STRUCTURE_FORMATS)}; got ${JSON.stringify(format)}.`,
    );
  }
  if (!CELL_CHOICES.includes(cell)) {
    throw new ValidationError(
      "cell",
      `cell must be "as-is", "conventional" or "primitive"; got ${JSON.stringify(cell)}.`,
    );
  }
  const record: StructureFileFormatRecord = structureFormat(format);
  if (!record.cells.includes(cell)) {
    throw new ValidationError("cell", `format "${format}" ${record.cellsReason ?? `cannot write the ${cell} cell`}.`);
  }
  if (singleFile && !record.multiFrame)
    throw new ValidationError(
      "singleFile",
      `singleFile works with format ${quotedList(MULTI_FRAME.map((f) => f.name))} only (${listed(SINGLE_FRAME_LABELS, "and")} hold one structure per file).`,
    );
  const walk = validateIterateOptions({ query, fields: FIELDS, sort, pageSize, maxItems, paging, concurrency, signal });
  const resume = checkResume(options, walk);
  if (!resume) return { format, cell, singleFile, walk };
  return { format, cell, singleFile, walk: { ...walk, paging: "keyset", sort: { _id: 1 } }, resume };
}

/** A file-name part that is safe on every file system: letters, digits, `.`, `_`, `-`. */
function safe(part: unknown, max = 40): string {
  return String(part ?? "")
    .replace(/[^A-Za-z0-9._-]+/g, "-")
    .replace(/^[.-]+|-+$/g, "")
    .slice(0, max);
}

/** `Si_mp-149_<id>.cif`: sorts by formula, then source id; unique even where case is ignored. */
export function fileName(
  record: StructureRecord & { external?: { id?: unknown } },
  ext: string,
  taken: UniqueNames,
): string {
  const base = [safe(record.formula) || "structure", safe(record.external?.id), safe(record._id, 64)]
    .filter(Boolean)
    .join("_");
  return taken.take(base, ext);
}

/**
 * Writes each record's structure page by page into a temporary directory beside the target,
 * with an `index.csv` (file, _id, name, formula, atoms), and renames it to the target when every
 * page is written: the target appears complete or not at all. Records whose basis and lattice
 * disagree are skipped and reported with their ids. A plan with `resume` is written by
 * `writeStructuresResumable` (structure-resume.ts) instead.
 */
export async function writeStructures(
  source: StructureSource,
  target: string,
  plan: StructureExportPlan,
  options: Pick<StructureExportOptions, "force" | "onProgress" | "onWarning"> = {},
): Promise<StructureExportResult> {
  const pages = source.walk(plan.walk);
  if (plan.singleFile) return writeSingleFile(pages, target, writerOf(plan, SINGLE_FILE_FORMAT), options);
  const dir = openAtomicDir(target, { force: options.force });
  reportWarnings(sweepWarnings(dir.swept, target), options.onWarning);
  const temp = dir.tempPath;
  const write = writerOf(plan);
  const ext = structureFormat(plan.format).extension;
  const taken = new UniqueNames(["index.csv"]);
  // The index streams to its file as pages arrive, so memory stays flat in the collection size.
  // A file handle, not a stream: every write is awaited, so an abort never leaves a write in flight.
  let index: fs.promises.FileHandle | undefined;
  const skipped: string[] = [];
  let items = 0;
  let pageCount = 0;
  let bytes = 0;
  try {
    index = await fs.promises.open(path.join(temp, "index.csv"), "w");
    await index.write(INDEX_HEADER);
    for await (const page of pages) {
      let lines = "";
      for (const raw of page) {
        const record = raw as unknown as StructureRecord & { _id: string };
        const text = structureText(write, record);
        if (text === undefined) {
          skipped.push(record._id);
          continue;
        }
        const name = fileName(record, ext, taken);
        await fs.promises.writeFile(path.join(temp, name), text);
        lines += indexLine(name, record);
        bytes += Buffer.byteLength(text);
        items++;
      }
      await index.write(lines);
      pageCount++;
      options.onProgress?.({ pages: pageCount, items, bytes });
    }
    await index.close();
    index = undefined;
    await dir.commit();
  } catch (error) {
    await index?.close().catch(() => undefined);
    await dir.abort();
    throw error;
  }
  const warnings = skippedWarnings(skipped);
  reportWarnings(warnings, options.onWarning);
  return { items, skipped: skipped.length, pages: pageCount, bytes, path: dir.path, warnings };
}

/** Every structure as a frame of one file (extended XYZ), written atomically. */
async function writeSingleFile(
  pages: AsyncIterable<readonly unknown[]>,
  target: string,
  write: (record: StructureRecord) => string,
  options: Pick<StructureExportOptions, "force" | "onProgress" | "onWarning">,
): Promise<StructureExportResult> {
  const file = await openAtomicFile(target, { force: options.force });
  reportWarnings(sweepWarnings(file.swept, target), options.onWarning);
  const sink = new Sink(file.stream, target);
  const skipped: string[] = [];
  let items = 0;
  let pageCount = 0;
  let bytes = 0;
  try {
    for await (const page of pages) {
      let text = "";
      for (const raw of page) {
        const record = raw as unknown as StructureRecord & { _id: string };
        const frame = structureText(write, record);
        if (frame === undefined) {
          skipped.push(record._id);
          continue;
        }
        text += frame;
        items++;
      }
      await sink.write(text);
      bytes += Buffer.byteLength(text);
      pageCount++;
      options.onProgress?.({ pages: pageCount, items, bytes });
    }
    sink.check();
    await file.commit();
  } catch (error) {
    await file.abort();
    throw error;
  } finally {
    sink.release();
  }
  const warnings = skippedWarnings(skipped);
  reportWarnings(warnings, options.onWarning);
  return { items, skipped: skipped.length, pages: pageCount, bytes, path: file.path, warnings };
}

/** The first line of a structure directory's index.csv. */
export const INDEX_HEADER = `${csvLine(["file", "_id", "name", "formula", "atoms"], true)}\n`;

/** One index.csv line: the file and what it holds. */
export function indexLine(name: string, record: StructureRecord & { _id: string }): string {
  return `${csvLine([name, record._id, record.name ?? "", record.formula ?? "", record.basis.elements.length], true)}\n`;
}

/** A record's structure file text, or undefined when its basis and lattice disagree (the record is skipped). */
export function structureText(write: (record: StructureRecord) => string, record: StructureRecord): string | undefined {
  try {
    return write(record);
  } catch (error) {
    if (!(error instanceof StructureError)) throw error;
    return undefined;
  }
}

/** The warning for skipped records: `count` of them, the first of whose ids are `ids`. */
export function skippedWarnings(ids: readonly string[], count = ids.length): FrameWarning[] {
  if (count === 0) return [];
  const shown = ids.slice(0, 10);
  return [
    {
      code: "INVALID_STRUCTURE",
      path: "basis",
      rows: count,
      ids: shown,
      message:
        `${count} material(s) skipped: their basis and lattice disagree (counts, ids or units), an OPTIMADE entry has a site that is not one element ` +
        `(a mixture, a vacancy or an unknown atom), or, for a standard cell or a symmetrized CIF, ` +
        `no space group was found, e.g. ${shown.join(", ")}${count > shown.length ? ", ..." : ""}. toPoscar(record) or symmetryOf(record) names the problem.`,
    },
  ];
}
