// LMDB maps its data file into memory and trusts it: a truncated file, or one that is not LMDB's,
// kills the process with SIGSEGV or SIGBUS on the first read, with no message. So the file's two
// meta pages are read and checked before LMDB opens it: the magic number, the page size, and that
// the file still holds every page the newest meta page names. (The layout: LMDB's mdb.c, MDB_meta
// after the page header, which is 16 bytes in LMDB 0.9 and 24 in 1.0, the version lmdb-js builds.)
import { spawnSync } from "node:child_process";
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { ServerOptionsError } from "../../errors";

const MAGIC = 0xbeefc0de;
/** Bytes of an MDB_meta up to and including mm_txnid: magic, version, address, mapsize, 2 dbs, last page, txnid. */
const META_BYTES = 4 + 4 + 8 + 8 + 2 * 48 + 8 + 8;

interface Meta {
  readonly pageSize: number;
  readonly lastPage: bigint;
  readonly txnid: bigint;
}

/**
 * Refuses a store file LMDB would crash on. A missing or empty file is fine: LMDB creates it.
 *
 * @throws ServerOptionsError naming what is wrong and what to do.
 */
export function checkLmdbFile(file: string): void {
  let fd: number;
  try {
    fd = openSync(file, "r");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw new ServerOptionsError(`Cannot read the store ${file}: ${(error as Error).message}.`);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw damaged(file, "it is not a regular file");
    const size = stat.size;
    if (size === 0) return;
    const first = readMeta(fd, 0);
    if (!first) throw damaged(file, "it does not start with an LMDB header");
    if (size < 2 * first.pageSize)
      throw damaged(
        file,
        `it is ${size.toLocaleString("en-US")} bytes, shorter than its two header pages (truncated?)`,
      );
    const second = readMeta(fd, first.pageSize);
    const newest = second && second.txnid > first.txnid ? second : first;
    const needed = (newest.lastPage + 1n) * BigInt(newest.pageSize);
    if (BigInt(size) < needed) {
      throw damaged(
        file,
        `it is ${size.toLocaleString("en-US")} bytes, but its header says ${needed.toLocaleString("en-US")} (truncated?)`,
      );
    }
  } finally {
    closeSync(fd);
  }
  probe(file);
}

// Reads every record in a child process, read-only: damage inside the pages (bit rot, a partial
// copy) makes LMDB abort or fault, and the child's death is turned into a message here.
const PROBE = `const db = require(process.argv[1]).open({ path: process.argv[2], readOnly: true, encoding: "json", compression: false });
for (const { value } of db.getRange()) void value;
db.close();`;

function probe(file: string): void {
  const child = spawnSync(process.execPath, ["-e", PROBE, require.resolve("lmdb"), file], {
    stdio: ["ignore", "ignore", "pipe"],
    encoding: "utf8",
  });
  if (child.error) return; // could not start a process here: LMDB's own checks are all there is
  if (child.signal !== null)
    throw damaged(file, `reading it stops the process (${child.signal}): its pages are corrupt`);
  if (child.status !== 0) {
    const line =
      child.stderr
        .split("\n")
        .find((text) => /Error|failed/.test(text))
        ?.trim() ?? `exit code ${child.status}`;
    throw damaged(file, `LMDB cannot read it (${line.slice(0, 200)})`);
  }
}

function readMeta(fd: number, at: number): Meta | undefined {
  const buffer = Buffer.alloc(24 + META_BYTES);
  const read = readSync(fd, buffer, 0, buffer.length, at);
  for (const header of [24, 16]) {
    if (read < header + META_BYTES || buffer.readUInt32LE(header) !== MAGIC) continue;
    // mm_dbs[0].md_pad holds the page size.
    const pageSize = buffer.readUInt32LE(header + 24);
    if (pageSize < 512 || pageSize > 65536 || (pageSize & (pageSize - 1)) !== 0) return undefined;
    return {
      pageSize,
      lastPage: buffer.readBigUInt64LE(header + 24 + 96),
      txnid: buffer.readBigUInt64LE(header + 24 + 104),
    };
  }
  return undefined;
}

function damaged(file: string, why: string): ServerOptionsError {
  return new ServerOptionsError(
    `The store ${file} is damaged: ${why}. matframe will not open it. ` +
      "Restore it from a backup, or move its directory away and start with an empty store.",
    { option: "store" },
  );
}
