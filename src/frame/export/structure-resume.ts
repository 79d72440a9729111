// Resumable structure exports. A directory export fills a hidden directory beside the
// target; its index.csv is the ledger: a structure file counts as written once its index line is
// committed, and a resumed run removes files written after the last commit, then continues from
// the cursor. One multi-frame xyz file resumes as the table exports do.
import * as fs from "node:fs";
import * as path from "node:path";
import { describeWriteError } from "./atomic/atomic-file";
import { OutputError, TargetExistsError } from "../../errors";
import type { StructureRecord } from "../../structure";
import { placeDir } from "./atomic/atomic-dir";
import { lastId, Sink } from "./export";
import {
  checkProgressDirectory,
  discardProgress,
  resumePaths,
  withOutputLock,
  type OutputLock,
} from "./resume/progress-files";
import { ResumableFile } from "./resume/resumable-file";
import { continueWalk, type ResumeRequest, type SavedProgress } from "./resume/resume-plan";
import { structureFormat } from "../../structure/formats";
import {
  fileName,
  indexLine,
  INDEX_HEADER,
  structureText,
  skippedWarnings,
  SINGLE_FILE_FORMAT,
  writerOf,
  type StructureExportOptions,
  type StructureExportPlan,
  type StructureExportResult,
  type StructureSource,
} from "./structure-export";
import { reportWarnings } from "../table/warnings";
import { UniqueNames } from "./unique-names";

/** Kept in the state file: what the result and its warning report about skipped records. */
interface StructureWriterState {
  readonly skipped: readonly string[];
  readonly skippedCount: number;
  /** Bytes of structure text written (the result's `bytes`). */
  readonly bytes: number;
}

const SHOWN_SKIPPED = 10;

/** Writes (or continues) a structure export whose progress is kept for a later run. */
export async function writeStructuresResumable(
  source: StructureSource,
  target: string,
  plan: StructureExportPlan,
  options: Pick<StructureExportOptions, "force" | "onProgress" | "onWarning">,
  from: StructureSource["source"],
): Promise<StructureExportResult> {
  const request: ResumeRequest = {
    format: plan.format,
    columns: [],
    query: plan.walk.query,
    maxItems: plan.walk.maxItems === Infinity ? null : plan.walk.maxItems,
    options: { singleFile: plan.singleFile, ...(plan.cell !== "as-is" ? { cell: plan.cell } : {}) },
    platform: from.platform,
    account: from.account,
  };
  const restart = plan.resume?.restart ?? false;
  if (plan.singleFile) {
    const file = await ResumableFile.open(target, request, { force: options.force, restart });
    return writeFrames(source, plan, file, file, file.path, options, async () => file.commit());
  }
  // One lock for the whole folder, taken before anything of it is read, made or removed.
  return withOutputLock(target, target, (lock) =>
    writeDirectory(source, target, plan, options, request, restart, lock),
  );
}

/** The directory layout (one file per structure and an index), under the folder's lock. */
async function writeDirectory(
  source: StructureSource,
  target: string,
  plan: StructureExportPlan,
  options: Pick<StructureExportOptions, "force" | "onProgress" | "onWarning">,
  request: ResumeRequest,
  restart: boolean,
  lock: OutputLock,
): Promise<StructureExportResult> {
  const final = path.resolve(target);
  if (fs.existsSync(final) && !options.force) throw new TargetExistsError(target);
  if (restart) await discardProgress(final, lock);
  const dir = resumePaths(final).partial;
  try {
    // Not recursive: the parent is the target's own folder, and an existing entry (a directory
    // from an earlier run, or a planted link) is checked below rather than followed.
    await fs.promises.mkdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST")
      throw new OutputError(`Cannot create ${target}: ${describeWriteError(error, path.dirname(final))}`, final, {
        cause: error,
      });
  }
  await checkProgressDirectory(dir, target, final);
  const index = await ResumableFile.open(path.join(dir, "index.csv"), request, { force: true, label: target, lock });
  const taken = new UniqueNames(["index.csv"]);
  if (index.resumed) for (const name of await indexedNames(index.partialPath, index.resumed.bytes)) taken.reserve(name);
  // Files written after the last commit (or by a run whose progress was discarded) are not in the index.
  const own = new Set([path.basename(index.partialPath), path.basename(index.statePath)]);
  for (const name of await fs.promises.readdir(dir)) {
    if (!own.has(name) && !taken.has(name))
      await fs.promises.rm(path.join(dir, name), { recursive: true, force: true });
  }
  return writeFrames(source, plan, index, { dir, taken }, final, options, async () => {
    await index.commit();
    await placeDir(dir, final, target, options.force ?? false);
  });
}

/**
 * The page loop of both layouts: `ledger` is the file whose checkpoints carry the cursor (the one
 * xyz file, or index.csv); `into` is either that same file (frames appended to it) or a directory
 * (one file per structure, an index line each).
 */
async function writeFrames(
  source: StructureSource,
  plan: StructureExportPlan,
  ledger: ResumableFile,
  into: ResumableFile | { dir: string; taken: UniqueNames },
  final: string,
  options: Pick<StructureExportOptions, "onProgress" | "onWarning">,
  commit: () => Promise<void>,
): Promise<StructureExportResult> {
  const resumed = ledger.resumed;
  const saved = resumed?.writer as StructureWriterState | undefined;
  const sink = new Sink(ledger.stream, ledger.path);
  sink.bytes = resumed?.bytes ?? 0;
  const skipped = [...(saved?.skipped ?? [])];
  let skippedCount = saved?.skippedCount ?? 0;
  let items = resumed?.items ?? 0;
  let pageCount = resumed?.pages ?? 0;
  let bytes = saved?.bytes ?? 0;
  const directory = into instanceof ResumableFile ? undefined : into;
  const write = writerOf(plan, directory ? plan.format : SINGLE_FILE_FORMAT);
  const ext = structureFormat(plan.format).extension;
  // The walk's maxItems counts skipped records too.
  const walked: SavedProgress | undefined = resumed ? { ...resumed, items: items + skippedCount } : undefined;
  try {
    if (directory && !resumed) await sink.write(INDEX_HEADER);
    for await (const page of continueWalk(source, plan.walk, walked)) {
      let text = "";
      for (const raw of page) {
        const record = raw as unknown as StructureRecord & { _id: string };
        const structure = structureText(write, record);
        if (structure === undefined) {
          if (skipped.length < SHOWN_SKIPPED) skipped.push(record._id);
          skippedCount++;
          continue;
        }
        if (directory) {
          const name = fileName(record, ext, directory.taken);
          await fs.promises.writeFile(path.join(directory.dir, name), structure);
          text += indexLine(name, record);
        } else {
          text += structure;
        }
        bytes += Buffer.byteLength(structure);
        items++;
      }
      await sink.write(text);
      pageCount++;
      if (page.length > 0) {
        const state: StructureWriterState = { skipped, skippedCount, bytes };
        await ledger.checkpoint({ cursor: lastId(page), items, pages: pageCount, bytes: sink.bytes, writer: state });
      }
      options.onProgress?.({ pages: pageCount, items, bytes });
    }
    sink.check();
    await commit();
  } catch (error) {
    await ledger.abort();
    throw error;
  } finally {
    sink.release();
  }
  const warnings = skippedWarnings(skipped, skippedCount);
  reportWarnings(warnings, options.onWarning);
  return {
    items,
    skipped: skippedCount,
    pages: pageCount,
    bytes,
    path: final,
    warnings,
    ...(resumed ? { resumedFrom: resumed.items } : {}),
  };
}

/** The file names listed in the committed part of an index.csv (names are CSV-safe: no quotes or commas). */
async function indexedNames(file: string, bytes: number): Promise<string[]> {
  const handle = await fs.promises.open(file, "r");
  try {
    const buffer = Buffer.alloc(bytes);
    await handle.read(buffer, 0, bytes, 0);
    return buffer
      .toString("utf8")
      .split("\n")
      .slice(1)
      .filter(Boolean)
      .map((line) => line.slice(0, line.indexOf(",")));
  } finally {
    await handle.close();
  }
}
