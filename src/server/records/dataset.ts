import { readFile } from "node:fs/promises";
import * as path from "node:path";
import { DatasetError } from "../../errors";
import type { StoredRecord } from "./store";

/** The bundled dataset (real structures from @mat3ra/standata), two levels up from src/ or dist/. */
export const BUNDLED_DATA_PATH = path.join(__dirname, "..", "..", "..", "data", "materials.json");

/** Longest `_id` accepted in a user's data. */
const MAX_ID_LENGTH = 256;

/**
 * Reads materials from a file: a JSON array of records, or NDJSON (one JSON object per line).
 * Every record needs a unique, non-empty string `_id`.
 */
export async function loadDataFile(file: string): Promise<StoredRecord[]> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (error as Error).message;
    throw new DatasetError(`Cannot read the data file ${file}: ${reason}.`);
  }
  text = text.replace(/^\uFEFF/, "");
  const trimmed = text.trimStart();
  if (trimmed === "") {
    throw new DatasetError(`The data file ${file} is empty; give a JSON array of records or one JSON object per line.`);
  }
  if (trimmed.startsWith("[")) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw new DatasetError(`The data file ${file} is not valid JSON: ${(error as Error).message}.`);
    }
    return checkRecords(parsed as unknown[], (i) => `${file}: record ${i + 1}`);
  }
  return checkRecords(parseNdjson(text, file), (i) => `${file}: record ${i + 1}`);
}

function parseNdjson(text: string, file: string): unknown[] {
  const records: unknown[] = [];
  const lines = text.split(/\r?\n/);
  lines.forEach((line, i) => {
    if (line.trim() === "") return;
    try {
      records.push(JSON.parse(line));
    } catch (error) {
      throw new DatasetError(
        `The data file ${file}, line ${i + 1}, is not valid JSON (${(error as Error).message}); give a JSON array of records or one JSON object per line (NDJSON).`,
      );
    }
  });
  return records;
}

/** Checks that every record is an object with a unique string `_id`. */
export function checkRecords(records: unknown, describe: (index: number) => string): StoredRecord[] {
  if (!Array.isArray(records)) throw new DatasetError("The data must be an array of material records.");
  const seen = new Set<string>();
  records.forEach((record, i) => {
    if (typeof record !== "object" || record === null || Array.isArray(record)) {
      throw new DatasetError(`${describe(i)} is not a JSON object.`);
    }
    const id = (record as { _id?: unknown })._id;
    if (typeof id !== "string" || id === "" || id.length > MAX_ID_LENGTH) {
      throw new DatasetError(
        `${describe(i)} has no valid "_id" (a non-empty string of at most ${MAX_ID_LENGTH} characters).`,
      );
    }
    if (seen.has(id)) throw new DatasetError(`${describe(i)} repeats the _id "${id}"; ids must be unique.`);
    seen.add(id);
  });
  return records as StoredRecord[];
}

/** The bundled materials. */
export async function loadBundledData(): Promise<StoredRecord[]> {
  const text = await readFile(BUNDLED_DATA_PATH, "utf8");
  return checkRecords(JSON.parse(text), (i) => `bundled record ${i + 1}`);
}

/** The records to serve: the bundled set, a file, or records passed in directly. */
export async function loadDataset(source: string | readonly object[] | undefined): Promise<StoredRecord[]> {
  if (source === undefined) return loadBundledData();
  if (typeof source === "string") return loadDataFile(source);
  return checkRecords([...source], (i) => `data[${i}]`);
}
