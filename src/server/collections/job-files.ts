import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { type ComputedFile, filesLeftIn } from "../compute";
import type { StoredRecord } from "../records/store";
import { HttpError } from "../http/http-errors";

/** A job's file as `GET jobs/<id>/files` lists it (before the server adds its signed URL). */
export interface JobFile {
  name: string;
  /** The file's path in the job's folder, as the platform's keys end: `pw_scf.out`. */
  key: string;
  size: number;
  /** Milliseconds since 1970, as the platform's client documents. */
  lastModified: number;
  kind: "input" | "output";
  unitId: string;
}

/** Statuses of a job that has not ended: waiting or running. */
export const UNFINISHED = ["queued", "submitted", "active"];

/** Job ids the server makes are 17 letters and digits; a folder is only ever made of such an id. */
const SAFE_ID = /^[A-Za-z0-9]{1,64}$/;

/**
 * The jobs' working folders: `<store>/jobs/<id>` with `--store` (they outlive a restart, as the
 * records naming them do), else one temporary folder for the server's life, removed at close.
 */
export class JobFolders {
  private root: string | undefined;

  constructor(private readonly storeDir: string | undefined) {}

  /** The job's folder, made if missing (it may hold files the account uploaded before submitting). */
  prepare(jobId: string): string {
    const folder = this.folderOf(jobId);
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    return folder;
  }

  /** Writes an uploaded file (its key checked by {@link uploadKeyProblem}) into the job's folder. */
  write(jobId: string, key: string, bytes: Buffer): void {
    const file = path.join(this.prepare(jobId), key);
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    writeFileSync(file, bytes, { mode: 0o600 });
  }

  /**
   * The path of a file the job's record lists, or undefined when it lists none by that name:
   * only what the engine reported is served, so no request path reaches outside the folder.
   */
  fileOf(job: StoredRecord, key: string): string | undefined {
    const listed = this.filesNow(job).find((file) => file.relativePath === key);
    return listed ? path.join(this.folderOf(job._id), listed.relativePath) : undefined;
  }

  /** The files of a job's record that are still on disk (purge removes them). */
  list(job: StoredRecord): JobFile[] {
    const files: JobFile[] = [];
    for (const file of this.filesNow(job)) {
      const stat = statSync(path.join(this.folderOf(job._id), file.relativePath), { throwIfNoEntry: false });
      if (!stat?.isFile()) continue;
      files.push({
        name: file.name,
        key: file.relativePath,
        size: stat.size,
        lastModified: Math.round(stat.mtimeMs),
        kind: file.kind,
        unitId: file.unitId,
      });
    }
    return files;
  }

  /**
   * The files the job's record names and, while it has not ended, those its run has written so
   * far (the record lists the engine's files only once the job ends): found on disk by the names
   * the engine gives them, as a restart finds a cut-off job's, so a user sees `pw_scf.out` grow.
   */
  private filesNow(job: StoredRecord): ComputedFile[] {
    const recorded = filesOf(job);
    if (!UNFINISHED.includes(String(job.status))) return recorded;
    const listed = new Set(recorded.map((file) => file.relativePath));
    const running = filesLeftIn((job.workflow ?? {}) as Record<string, unknown>, this.folderOf(job._id));
    return [...recorded, ...running.filter((file) => !listed.has(file.relativePath))];
  }

  /** Removes a job's folder (purge, delete). */
  remove(jobId: string): void {
    if (!SAFE_ID.test(jobId)) return;
    rmSync(this.folderOf(jobId), { recursive: true, force: true });
  }

  /** Removes the temporary folder of a server without `--store`. */
  close(): void {
    if (this.storeDir === undefined && this.root !== undefined) rmSync(this.root, { recursive: true, force: true });
  }

  /** The job's folder (not made). */
  folderOf(jobId: string): string {
    if (!SAFE_ID.test(jobId))
      throw new HttpError(404, `not a job id the server made: ${JSON.stringify(jobId.slice(0, 80))}`);
    if (this.root === undefined) {
      this.root =
        this.storeDir === undefined
          ? mkdtempSync(path.join(tmpdir(), "matframe-jobs-"))
          : path.join(this.storeDir, "jobs");
    }
    return path.join(this.root, jobId);
  }
}

/** Files one job may have uploaded, at most. */
export const MAX_UPLOADS = 100;

/**
 * Why a key cannot name an uploaded file, or undefined when it can: a relative path of at most
 * 8 plain segments (letters, digits, `._-`, not starting with a dot), 255 characters in all.
 */
export function uploadKeyProblem(key: string): string | undefined {
  const segments = key.split("/");
  if (key.length === 0 || key.length > 255 || segments.length > 8)
    return "a file's path must have 1 to 255 characters and at most 8 folders";
  if (segments.some((segment) => !/^[A-Za-z0-9_-][A-Za-z0-9._-]*$/.test(segment)))
    return "a file's path is made of names of letters, digits, '.', '_' and '-' (not starting with '.'), separated by '/'";
  return undefined;
}

/**
 * The files a job's record names, each within the job's folder: what the engine wrote
 * (`localRun.files`) and what the account uploaded (`localRun.uploads`).
 */
export function filesOf(job: StoredRecord): ComputedFile[] {
  const run = (job.localRun ?? {}) as { files?: unknown; uploads?: unknown };
  const files = [...(Array.isArray(run.files) ? run.files : []), ...(Array.isArray(run.uploads) ? run.uploads : [])];
  const seen = new Set<string>();
  return files.filter(
    (file): file is ComputedFile =>
      typeof file?.relativePath === "string" &&
      file.relativePath !== "" &&
      !path.isAbsolute(file.relativePath) &&
      !file.relativePath.split(/[\\/]/).includes("..") &&
      !seen.has(file.relativePath) &&
      seen.add(file.relativePath) !== undefined,
  );
}
