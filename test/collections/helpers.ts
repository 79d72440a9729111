import { vi } from "vitest";
import type { ServerHandle } from "../../src/server";
import { PREFIX, rawRequest, type RawResponse, type Session } from "../server/helpers";

/** One request to a collection path (after the version prefix), JSON body and query parameters encoded. */
export function call(
  server: ServerHandle,
  session: Session | Record<string, string>,
  method: string,
  path: string,
  options: { body?: unknown; query?: unknown; projection?: unknown; params?: Record<string, string> } = {},
): Promise<RawResponse> {
  const params = new URLSearchParams(options.params);
  if (options.query !== undefined) params.set("query", JSON.stringify(options.query));
  if (options.projection !== undefined) params.set("projection", JSON.stringify(options.projection));
  const search = params.size > 0 ? `?${params.toString()}` : "";
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  return rawRequest(server, method, `${PREFIX}${path}${search}`, {
    headers: { ...session, ...(body ? { "Content-Type": "application/json" } : {}) },
    body,
  });
}

/** The data of a successful answer, or an error naming what came back. */
export function ok(res: RawResponse): any {
  if (res.status !== 200 || res.body.status !== "success")
    throw new Error(`expected success, got ${res.status} ${res.text.slice(0, 400)}`);
  return res.body.data;
}

/** Every record of a collection, page by page (the server's pages are at most 1000). */
export async function listAll(
  server: ServerHandle,
  session: Session,
  collection: string,
  query: unknown = {},
): Promise<any[]> {
  const all: any[] = [];
  for (let skip = 0; ; skip += 500) {
    const page = ok(
      await call(server, session, "GET", `/${collection}`, { query, projection: { skip, limit: 500 } }),
    ) as any[];
    all.push(...page);
    if (page.length < 500) return all;
  }
}

/**
 * Polls a job until its status is `status`: the server finishes jobs on its own timer and says so
 * to no one, so a bounded poll (vi.waitFor) is the only way to see it.
 */
export function waitForStatus(
  server: ServerHandle,
  session: Session,
  id: string,
  status: string,
  timeout = 20_000,
): Promise<any> {
  return vi.waitFor(
    async () => {
      const job = ok(await call(server, session, "GET", `/jobs/${id}`));
      if (job.status !== status) throw new Error(`job ${id} is ${job.status}, not yet ${status}`);
      return job;
    },
    { timeout, interval: 5 },
  );
}

/** Waits until a job has ended (any status but pre-submission, queued, submitted, active). */
export function waitForEnd(server: ServerHandle, session: Session, id: string, timeout = 300_000): Promise<any> {
  return vi.waitFor(
    async () => {
      const job = ok(await call(server, session, "GET", `/jobs/${id}`));
      if (["pre-submission", "queued", "submitted", "active"].includes(job.status))
        throw new Error(`job ${id} is still ${job.status}`);
      return job;
    },
    { timeout, interval: 20 },
  );
}
