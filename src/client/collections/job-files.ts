// A job's files: the list the platform answers, and their download by signed URL. The URL
// authorises itself (signed, time-limited, bound to the job's account), so no credentials go
// with it, and it is never quoted in an error: its signature is as good as a token for the file.
import { createWriteStream } from "node:fs";
import { mkdir, rename, rm, stat } from "node:fs/promises";
import * as path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { z } from "zod";
import {
  AbortError,
  ConnectionError,
  errorFromStatus,
  OutputError,
  TargetExistsError,
  ValidationError,
} from "../../errors";
import { JobFile } from "../../schemas";
import type { CheckResult } from "../transport/response-checks";

/** `client.jobs.downloadFile(file, target, options)` and `client.jobs.download(id, directory, options)`. */
export interface DownloadOptions {
  /**
   * Overwrite a file that is already there.
   * @default false
   */
  force?: boolean;
  /** Stops the download; the partial file is removed. */
  signal?: AbortSignal;
}

/** A file written by a download. */
export interface DownloadedFile {
  /** The job's file, as listed. */
  readonly file: JobFile;
  /** Where it was written. */
  readonly path: string;
  /** How many bytes were written. */
  readonly bytes: number;
}

const JobFiles = z.array(JobFile);

/** The `GET jobs/<id>/files` answer checked, each file's URL under `signedUrl` whichever way the platform spelt it. */
export function checkJobFiles(data: unknown): CheckResult<JobFile[]> {
  const parsed = JobFiles.safeParse(data);
  if (!parsed.success) return { ok: false, issues: parsed.error.issues };
  return {
    ok: true,
    value: parsed.data.map((file) =>
      file.signedUrl === undefined && file.signedURL !== undefined ? { ...file, signedUrl: file.signedURL } : file,
    ),
  };
}

/**
 * The name a job's file is saved under: its `name`, else the last part of its `key`; never a
 * path (a name sent by the server must not write outside the folder chosen for it).
 */
export function localName(file: JobFile): string {
  const candidate = (file.name ?? file.key.split("/").pop() ?? "").trim();
  if (candidate === "" || candidate === "." || candidate === ".." || /[/\\\0]/.test(candidate))
    throw new ValidationError(
      "file",
      `The job's file ${JSON.stringify(file.key.slice(0, 200))} has no name that is safe to write (${JSON.stringify(candidate.slice(0, 100))}); download it with downloadFile(file, path) to a path of your choice.`,
    );
  return candidate;
}

/**
 * Downloads one file of a job by its signed URL to `target`, written whole or not at all (a
 * temporary file beside it, renamed at the end).
 */
export async function downloadJobFile(
  file: JobFile,
  target: string,
  options: DownloadOptions = {},
): Promise<DownloadedFile> {
  const url = file.signedUrl ?? file.signedURL;
  if (typeof url !== "string" || !/^https?:\/\//i.test(url))
    throw new ValidationError(
      "file",
      `The job's file ${JSON.stringify(file.key.slice(0, 200))} has no signedUrl to download it by; list the files again with client.jobs.files(id).`,
    );
  if (!options.force && (await exists(target))) throw new TargetExistsError(target);
  const where = `the job's file ${JSON.stringify(file.key.slice(0, 200))}`;
  const { host, pathname } = new URL(url);
  const endpoint = `GET ${host}${pathname}`;
  let response: Response;
  try {
    response = await fetch(url, { signal: options.signal, redirect: "follow" });
  } catch (cause) {
    if (options.signal?.aborted) throw new AbortError(`The download of ${where} was aborted.`, endpoint, { cause });
    throw new ConnectionError(`Could not download ${where} from ${host}: ${(cause as Error).message}.`, endpoint, {
      cause,
    });
  }
  if (!response.ok || !response.body) {
    await response.body?.cancel().catch(() => undefined);
    // The path names the file; the query (the signature) stays out of the message.
    throw errorFromStatus({ status: response.status, endpoint, attempts: 1 });
  }
  await mkdir(path.dirname(target), { recursive: true });
  const partial = path.join(path.dirname(target), `.${path.basename(target)}.matframe-partial`);
  let bytes = 0;
  try {
    const body = Readable.fromWeb(response.body as import("node:stream/web").ReadableStream<Uint8Array>);
    body.on("data", (chunk: Buffer) => {
      bytes += chunk.length;
    });
    await pipeline(body, createWriteStream(partial), { signal: options.signal });
    await rename(partial, target);
  } catch (cause) {
    await rm(partial, { force: true });
    if (options.signal?.aborted) throw new AbortError(`The download of ${where} was aborted.`, endpoint, { cause });
    throw new OutputError(`Could not write ${where} to ${target}: ${(cause as Error).message}.`, target, { cause });
  }
  return { file, path: target, bytes };
}

async function exists(target: string): Promise<boolean> {
  return stat(target).then(
    () => true,
    () => false,
  );
}
