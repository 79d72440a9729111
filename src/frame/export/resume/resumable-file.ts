// The output file of a resumable export: written at explicit positions and hashed as it goes,
// with its progress committed to a sealed state file beside it (see sealed-state.ts for what the
// seal guards against), and placed at the target only when complete.
import * as fs from "node:fs";
import * as path from "node:path";
import { createHash, type Hash } from "node:crypto";
import { Writable } from "node:stream";
import { OutputError, ResumeError, TargetExistsError } from "../../../errors";
import { checkTarget, describeWriteError, placeFile, removeAtomicFile } from "../atomic/atomic-file";
import { discardProgress, OutputLock, resumePaths } from "./progress-files";
import { compareRequests, type Checkpoint, type ResumeRequest, type SavedProgress } from "./resume-plan";
import { readSealedState, writeSealedState, type StateLayout } from "./sealed-state";
import { commitPoint } from "./commit-points";

/** Opens never follow a symbolic link where the partial file should be (0 where there is no such flag). */
const NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;

/** A single file's state: how far the output got, and the checksum of its bytes up to there. */
interface FileState {
  readonly request: ResumeRequest;
  readonly progress: Checkpoint & { readonly sha256: string };
  readonly updated: string;
}

const FILE_STATE: StateLayout<FileState> = {
  valid: ({ progress: p }) =>
    typeof p?.bytes === "number" && typeof p.sha256 === "string" && typeof p.cursor === "string" && p.cursor !== "",
  sealed: (state) => state.progress,
};

/**
 * How often progress is committed (data fsynced, then the state file replaced), at most. Measured
 * (100,029 materials, CSV, local platform, 3 runs, medians): committing every page (500 records)
 * took 1.18x the time of a plain keyset export; once a second, 0.97x (within noise). A kill
 * therefore costs at most about a second of work.
 */
export const COMMIT_INTERVAL_MS = 1000;

/** The output of a resumable export: written at explicit positions, hashed as it goes. */
export class ResumableFile {
  /** The absolute target path. */
  readonly path: string;
  readonly partialPath: string;
  readonly statePath: string;
  /** The stream the format writer writes to. */
  readonly stream: Writable;
  /** Progress this run continues from; undefined when it starts from the beginning. */
  readonly resumed: SavedProgress | undefined;

  private readonly handle: fs.promises.FileHandle;
  private readonly hash: Hash;
  private written: number;
  private pending: Checkpoint | undefined;
  private lastCommit = Date.now();
  private settled = false;

  private constructor(
    target: string,
    private readonly label: string,
    private readonly request: ResumeRequest,
    handle: fs.promises.FileHandle,
    hash: Hash,
    resumed: SavedProgress | undefined,
    private readonly force: boolean,
    private readonly interval: number,
    /** The lock this file took for itself, released when it settles; none when a folder's lock covers it. */
    private readonly lock: OutputLock | undefined,
    private readonly onCommit: ((progress: Checkpoint) => void) | undefined,
    private readonly placeLater: boolean,
  ) {
    this.path = target;
    ({ partial: this.partialPath, state: this.statePath } = resumePaths(target));
    this.handle = handle;
    this.hash = hash;
    this.resumed = resumed;
    this.written = resumed?.bytes ?? 0;
    const self = this;
    this.stream = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        const at = self.written;
        self.written += chunk.length;
        self.hash.update(chunk);
        if (chunk.length === 0) return callback();
        writeAll(self.handle, chunk, at).then(() => callback(), callback);
      },
    });
  }

  /**
   * Opens the partial output of `target`: continues it when a state file of the same request
   * says how far it got (and the partial file matches that state's checksum), or starts it anew.
   * Takes the target's lock first, before any file is read or removed (`restart` included), unless
   * the caller holds the lock of the folder this file is part of (`lock`). `onCommit` hears of each
   * progress committed (a dataset of several files keeps its own state from them). `placeLater`:
   * `commit()` only finishes the file (see there); the dataset places it with {@link placeFinished}.
   *
   * @throws ResumeError when another run holds the lock, or the saved progress is of another
   *   request or does not match its file; TargetExistsError when the target exists and `force` is
   *   not set.
   */
  static async open(
    target: string,
    request: ResumeRequest,
    options: {
      force?: boolean;
      restart?: boolean;
      label?: string;
      interval?: number;
      lock?: OutputLock;
      onCommit?: (progress: Checkpoint) => void;
      placeLater?: boolean;
    } = {},
  ): Promise<ResumableFile> {
    const label = options.label ?? target;
    const own = options.lock ? undefined : OutputLock.take(target, label);
    try {
      const file = await checkTarget(target, options.force ?? false);
      if (options.restart) await discardProgress(file, own ?? options.lock!);
      const { handle, hash, resumed } = await openPartial(file, request, label);
      return new ResumableFile(
        file,
        label,
        request,
        handle,
        hash,
        resumed,
        options.force ?? false,
        options.interval ?? COMMIT_INTERVAL_MS,
        own,
        options.onCommit,
        options.placeLater ?? false,
      );
    } catch (error) {
      own?.release();
      throw error;
    }
  }

  /**
   * Records that everything written so far ends at a page (or row group) boundary. Commits it
   * (data fsynced, then the state file replaced atomically) when `now` is set or the commit
   * interval has passed; otherwise keeps it for the next commit or for `abort()`.
   */
  async checkpoint(progress: Checkpoint, now = false): Promise<void> {
    this.pending = progress;
    if (!now && Date.now() - this.lastCommit < this.interval) return;
    await this.flushed();
    await this.save(progress, this.hash.copy().digest("hex"));
  }

  /** Keeps the progress for a later run (the last page boundary written in full) and closes the file. */
  async abort(): Promise<void> {
    if (this.settled) return;
    this.settled = true;
    const last = this.pending;
    try {
      await this.flushed();
      if (last && last.bytes <= this.written) await this.save(last, await hashPrefix(this.handle, last.bytes));
    } catch {
      // The state file keeps the last commit that was saved; the partial file past it is ignored.
    } finally {
      this.stream.destroy();
      await this.handle.close().catch(() => undefined);
      // Stopped before anything was committed (a refused login, say): a partial file without a
      // state file holds nothing a later run could use, so none is left behind.
      if (
        !(await fs.promises.lstat(this.statePath).then(
          () => true,
          () => false,
        ))
      )
        await fs.promises.rm(this.partialPath, { force: true });
      this.lock?.release();
    }
  }

  /** Drops the progress (partial file, state, lock): for a failure that a second run would meet again. */
  async discard(): Promise<void> {
    if (this.settled) return;
    this.settled = true;
    this.stream.destroy();
    await this.handle.close().catch(() => undefined);
    await fs.promises.rm(this.partialPath, { force: true });
    await removeAtomicFile(this.statePath);
    this.lock?.release();
  }

  /**
   * Flushes, fsyncs and places the partial file at the target; removes the state file. Opened with
   * `placeLater`, it stops after the fsync: the partial file holds the whole output and its state
   * still names the last row group, so a run killed before the dataset places every file
   * continues this one from there (the bytes past the state are cut and written again).
   */
  async commit(): Promise<void> {
    if (this.settled) throw new OutputError(`The write to ${this.label} was already finished or abandoned.`, this.path);
    this.settled = true;
    try {
      await this.flushed();
      this.stream.destroy();
      await this.handle.sync();
      await this.handle.close();
      commitPoint("finished", this.partialPath);
      if (this.placeLater) {
        this.lock?.release();
        return;
      }
      await placeFile(this.partialPath, this.path, this.label, this.force);
      commitPoint("placed", this.path);
    } catch (error) {
      await this.handle.close().catch(() => undefined);
      this.lock?.release();
      if (error instanceof TargetExistsError || error instanceof OutputError) throw error;
      throw new OutputError(
        `Cannot write ${this.label}: ${describeWriteError(error, path.dirname(path.resolve(this.path)))}`,
        this.path,
        { cause: error },
      );
    }
    await removeAtomicFile(this.statePath);
    commitPoint("cleared", this.statePath);
    this.lock?.release();
  }

  /** Resolves when every chunk given to the stream is in the file. */
  private flushed(): Promise<void> {
    return new Promise((resolve, reject) =>
      this.stream.write(Buffer.alloc(0), (error) => (error ? reject(error) : resolve())),
    );
  }

  private async save(progress: Checkpoint, sha256: string): Promise<void> {
    await this.handle.datasync();
    const state: FileState = {
      request: this.request,
      progress: { ...progress, sha256 },
      updated: new Date().toISOString(),
    };
    await writeSealedState(this.statePath, state, FILE_STATE);
    this.lastCommit = Date.now();
    this.onCommit?.(progress);
  }
}

/**
 * Puts a file finished with `placeLater` at its name and removes its state, for a dataset whose
 * every file is finished (and says so in its own state first). Safe to repeat after a kill at any
 * step: a partial file already renamed is not looked for again.
 * @throws ResumeError when neither the partial file nor the placed one is there.
 */
export async function placeFinished(target: string, label: string): Promise<void> {
  const file = path.resolve(target);
  const { partial, state } = resumePaths(file);
  try {
    await fs.promises.rename(partial, file);
    commitPoint("placed", file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") {
      throw new OutputError(`Cannot write ${label}: ${describeWriteError(error, path.dirname(file))}`, file, {
        cause: error,
      });
    }
    if (!fs.existsSync(file))
      throw new ResumeError(`The saved progress of ${label} has lost its finished file ${partial}.`, file, {
        to: "to start over",
      });
  }
  await removeAtomicFile(state);
  commitPoint("cleared", state);
}

/**
 * Opens the partial file of `file` (whose lock the caller holds): the saved one, checked against
 * its state's length and checksum, or a new empty one.
 */
async function openPartial(
  file: string,
  request: ResumeRequest,
  label: string,
): Promise<{ handle: fs.promises.FileHandle; hash: Hash; resumed: SavedProgress | undefined }> {
  const { partial, state } = resumePaths(file);
  const saved = await readSealedState(state, label, FILE_STATE);
  const hash = createHash("sha256");
  let handle: fs.promises.FileHandle | undefined;
  try {
    if (!saved) {
      // A partial file without a state file holds nothing committed. Removed (a symlink there
      // is removed, not followed) and created anew exclusively: never written through a link.
      await fs.promises.rm(partial, { force: true });
      handle = await fs.promises.open(partial, "wx+", 0o666);
      return { handle, hash, resumed: undefined };
    }
    const differences = compareRequests(saved.request, request);
    if (differences.length > 0) {
      throw new ResumeError(
        `The saved progress of ${label} (${saved.progress.items.toLocaleString("en-US")} records) is of another export: ${differences.join("; ")}. ` +
          "Run again with the same options to continue it.",
        file,
        { to: "to discard it" },
      );
    }
    handle = await fs.promises.open(partial, fs.constants.O_RDWR | NOFOLLOW).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== "ENOENT") throw error;
      return undefined;
    });
    if (!handle && fs.existsSync(file)) {
      // A run killed after its file took its name, before the state was removed: that export
      // finished. This run replaces the file (the caller allowed it: force), so it starts anew.
      await removeAtomicFile(state);
      handle = await fs.promises.open(partial, "wx+", 0o666);
      return { handle, hash, resumed: undefined };
    }
    if (!handle) {
      throw new ResumeError(`The saved progress of ${label} has lost its partial file ${partial}.`, file, {
        to: "to start over",
      });
    }
    await verifyPrefix(handle, saved.progress.bytes, saved.progress.sha256, hash, label, file);
    await handle.truncate(saved.progress.bytes);
    const { sha256: _sha, ...progress } = saved.progress;
    return { handle, hash, resumed: progress };
  } catch (error) {
    await handle?.close().catch(() => undefined);
    if (error instanceof ResumeError) throw error;
    throw new OutputError(`Cannot write ${label}: ${describeWriteError(error, path.dirname(file))}`, file, {
      cause: error,
    });
  }
}

async function verifyPrefix(
  handle: fs.promises.FileHandle,
  bytes: number,
  sha256: string,
  hash: Hash,
  label: string,
  file: string,
): Promise<void> {
  const { size } = await handle.stat();
  if (size >= bytes) {
    await feedPrefix(handle, bytes, hash);
    if (hash.copy().digest("hex") === sha256) return;
  }
  throw new ResumeError(
    `The partial output of ${label} does not match its saved progress (${size < bytes ? "it is shorter than recorded" : "its checksum differs"}; ` +
      `was the machine switched off, or the file changed?).`,
    file,
    { to: "to discard it and start over" },
  );
}

async function hashPrefix(handle: fs.promises.FileHandle, bytes: number): Promise<string> {
  const hash = createHash("sha256");
  await feedPrefix(handle, bytes, hash);
  return hash.digest("hex");
}

async function feedPrefix(handle: fs.promises.FileHandle, bytes: number, hash: Hash): Promise<void> {
  const buffer = Buffer.allocUnsafe(Math.min(bytes, 4 << 20) || 1);
  for (let at = 0; at < bytes; ) {
    const { bytesRead } = await handle.read(buffer, 0, Math.min(buffer.length, bytes - at), at);
    if (bytesRead === 0) throw new OutputError("the partial file ended early");
    hash.update(buffer.subarray(0, bytesRead));
    at += bytesRead;
  }
}

async function writeAll(handle: fs.promises.FileHandle, chunk: Buffer, position: number): Promise<void> {
  for (let done = 0; done < chunk.length; ) {
    const { bytesWritten } = await handle.write(chunk, done, chunk.length - done, position + done);
    done += bytesWritten;
  }
}
