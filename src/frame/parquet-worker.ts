// The worker thread of a Parquet export (see ParquetWorkerPool in src/frame/parquet-pool.ts): it
// holds one ParquetEncoder per file being written and answers each request, in order, with the
// bytes to append (transferred, not copied) or the error it met.
import { parentPort } from "node:worker_threads";
import { checkWriterInstalled, ParquetEncoder } from "./parquet-encoder";
import type { EncoderReply, EncoderRequest } from "./parquet-pool";

const encoders = new Map<number, ParquetEncoder>();
// Loads hyparquet-writer now, while the export reads its first row group.
checkWriterInstalled();
require("hyparquet-writer");

function answer(request: EncoderRequest): EncoderReply {
  switch (request.op) {
    case "open":
      encoders.set(request.id, new ParquetEncoder(request.setup));
      return { id: request.id };
    case "group": {
      const encoder = encoders.get(request.id)!;
      const bytes = encoder.group(request.columns);
      return { id: request.id, bytes, ...(request.snapshot ? { state: encoder.snapshot() } : {}) };
    }
    case "finish":
      return { id: request.id, bytes: encoders.get(request.id)!.finish() };
  }
}

parentPort!.on("message", (request: EncoderRequest | { op: "close"; id: number }) => {
  if (request.op === "close") {
    encoders.delete(request.id);
    return;
  }
  let reply: EncoderReply;
  try {
    reply = answer(request);
  } catch (error) {
    const e = error instanceof Error ? error : new Error(String(error));
    reply = { id: request.id, error: { name: e.name, message: e.message, stack: e.stack } };
  }
  parentPort!.postMessage(reply, reply.bytes ? [reply.bytes.buffer as ArrayBuffer] : []);
});
