// The join of a results read, a page at a time: a page of property records, then the page's jobs
// and their materials by `_id: {$in: [...]}` (one request per collection per page), each row a
// flat object keyed by output column name. Nothing but a few pages is held (PAGES_JOINING).
import type { Client } from "../../client/client";
import type { PlatformRecord } from "../../client/collection";
import { RowReader, type FrameWarning } from "../table/row-reader";
import type { ResultsPlan } from "./results-plan";
import { propertyCells } from "./property-columns";
import { checkPropertyKinds } from "./property-kinds";

type Row = Record<string, unknown>;
type Loose = Record<string, unknown> | undefined;

/** Where a results read is: rows so far, and what the material columns had to say at the end. */
export interface ResultsRead {
  readonly pages: AsyncGenerator<Row[], void, undefined>;
  /** The material columns' warnings (names prefixed `material.`), once the pages are done. */
  warnings(): FrameWarning[];
}

/**
 * Pages whose jobs and materials are being read at once, at most: the most a read holds besides
 * the page in hand.
 */
const PAGES_JOINING = 3;

/** A page of property records with the jobs and materials its rows join. */
interface JoinedPage {
  readonly page: PlatformRecord[];
  readonly jobs: Map<string, PlatformRecord>;
  readonly materials: Map<string, PlatformRecord>;
}

/** What a results table reads of each property record: its kind, its values and the job and unit that made it. */
export const PROPERTY_FIELDS = { _id: 1, slug: 1, data: 1, "source.info": 1 } as const;

/** The pages of joined rows of a planned results read. */
export function resultPages(
  client: Client,
  plan: ResultsPlan,
  options: { strict?: boolean; signal?: AbortSignal },
): ResultsRead {
  const materialReader = new RowReader(plan.material, { strict: options.strict ?? false });
  let warnings: FrameWarning[] = [];
  /** A page of properties with its jobs and materials, read while earlier pages are still joining. */
  async function joinOf(page: PlatformRecord[], signal: AbortSignal): Promise<JoinedPage> {
    const jobs = await byId(
      client,
      "jobs",
      page.map((p) => info(p).jobId),
      plan.jobFields,
      plan.query?.jobs,
      signal,
    );
    const materialIds = [...jobs.values()].map((job) => (job._material as Loose)?._id);
    // Both at once: a job's material is the account's or a public one, and asking the two costs
    // one round trip instead of two. An id in both is the account's.
    const materialsIn = (collection: string) =>
      byId(client, collection, materialIds, plan.material.fields, plan.query?.materials, signal);
    const [own, bank] = await Promise.all([materialsIn("materials"), materialsIn("bank-materials")]);
    return { page, jobs, materials: new Map([...bank, ...own]) };
  }

  function rowsOf({ page, jobs, materials }: JoinedPage): Row[] {
    const materialCells = new Map<string, unknown[]>();
    return page.map((property) => {
      const { jobId, unitId } = info(property);
      const job = jobId === undefined ? undefined : jobs.get(jobId);
      const materialId = (job?._material as Loose)?._id;
      const material = typeof materialId === "string" ? materials.get(materialId) : undefined;
      let cells = material && materialCells.get(material._id);
      if (material && !cells) {
        cells = new Array<unknown>(plan.material.names.length);
        materialReader.read(material, cells);
        materialCells.set(material._id, cells);
      }
      return joinRow(plan, property, job, unitId, cells);
    });
  }

  async function* pages(): AsyncGenerator<Row[], void, undefined> {
    // Requests still in flight when the read ends early (the caller broke off, a writer or a
    // join failed) are aborted with it, not left to run (and retry) after it.
    const stop = new AbortController();
    const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
    // The first join that fails stops the others; each of them then rejects with an AbortError,
    // but what a caller is told, in the pages' order, is that first failure.
    let failure: unknown;
    const settled = async <T>(promise: Promise<T>): Promise<T> => {
      try {
        return await promise;
      } catch (error) {
        throw failure ?? error;
      }
    };
    const rowsIn = (joined: JoinedPage) => {
      const rows = rowsOf(joined);
      return plan.query ? rows.filter(plan.query.keeps) : rows;
    };
    // The kinds are checked beside the first page's request, not before it (a round trip less);
    // a kind the platform does not hold is still refused before any row.
    const kinds = checkPropertyKinds(
      client,
      plan.properties.map((p) => p.slug),
      signal,
    );
    kinds.catch(() => undefined);
    const properties = client.collection("properties").pages({
      query: { ...plan.query?.properties, slug: { $in: plan.properties.map((p) => p.slug) } },
      fields: PROPERTY_FIELDS,
      pageSize: plan.pageSize,
      ...(plan.maxItems !== undefined ? { maxItems: plan.maxItems } : {}),
      paging: "keyset",
      signal,
    });
    // Keyset pages come one after another, but each page's joins start as soon as it arrives, so
    // the joins' round trips overlap the next pages' (over a 40 ms link a page cost two round
    // trips and a table of 1,056 rows 1.1 s); rows still come in the properties' order.
    const walk = properties[Symbol.asyncIterator]();
    const joining: Promise<JoinedPage>[] = [];
    const next = () => {
      const step = walk.next();
      step.catch(() => undefined);
      return step;
    };
    try {
      let ahead = next();
      await kinds;
      for (;;) {
        let step: IteratorResult<PlatformRecord[]>;
        try {
          step = await ahead;
        } catch (error) {
          // The pages joined before a page that failed go out first, as when pages were read one
          // at a time; then the failure.
          while (joining.length > 0) yield rowsIn(await settled(joining.shift()!));
          throw error;
        }
        if (step.done) break;
        const joined = joinOf(step.value, signal);
        joined.catch((error: unknown) => {
          failure ??= error;
          stop.abort();
        });
        joining.push(joined);
        ahead = next();
        if (joining.length < PAGES_JOINING) continue;
        yield rowsIn(await settled(joining.shift()!));
      }
      while (joining.length > 0) yield rowsIn(await settled(joining.shift()!));
    } finally {
      stop.abort();
      void walk.return?.(undefined)?.catch(() => undefined);
    }
    // The material's own paths, named as this table names them (a suggestion too: it is a column to ask for).
    warnings = materialReader.finish().map((w) => ({
      ...w,
      path: `material.${w.path}`,
      message: w.message
        .replace(`column "${w.path}"`, `column "material.${w.path}"`)
        .replace(`did you mean ${w.suggestion}?`, `did you mean material.${w.suggestion}?`),
      ...(w.suggestion ? { suggestion: `material.${w.suggestion}` } : {}),
    }));
  }
  return { pages: pages(), warnings: () => warnings };
}

function info(property: PlatformRecord): { jobId?: string; unitId?: string } {
  const found = ((property.source as Loose)?.info ?? {}) as Record<string, unknown>;
  return {
    ...(typeof found.jobId === "string" ? { jobId: found.jobId } : {}),
    ...(typeof found.unitId === "string" ? { unitId: found.unitId } : {}),
  };
}

/** The records of `collection` with these ids (and matching `also`), in one request (the ids of one page fit one). */
async function byId(
  client: Client,
  collection: string,
  ids: readonly unknown[],
  fields: Record<string, 0 | 1>,
  also: Record<string, unknown> | undefined,
  signal: AbortSignal | undefined,
): Promise<Map<string, PlatformRecord>> {
  const wanted = [...new Set(ids.filter((id): id is string => typeof id === "string"))];
  if (wanted.length === 0) return new Map();
  const records = await client.collection(collection).list({
    query: { ...also, _id: { $in: wanted } },
    projection: { fields, limit: wanted.length },
    ...(signal ? { signal } : {}),
  });
  return new Map(records.map((record) => [record._id, record]));
}

/** The unit whose `flowchartId` is `unitId`, and its subworkflow (which holds the application and the model). */
function unitOf(job: PlatformRecord | undefined, unitId: string | undefined): { unit: Loose; subworkflow: Loose } {
  if (!job || unitId === undefined) return { unit: undefined, subworkflow: undefined };
  const subworkflows = (job.workflow as Loose)?.subworkflows;
  if (!Array.isArray(subworkflows)) return { unit: undefined, subworkflow: undefined };
  for (const subworkflow of subworkflows as Loose[]) {
    const units = subworkflow?.units;
    if (!Array.isArray(units)) continue;
    const unit = (units as Loose[]).find((u) => u?.flowchartId === unitId);
    if (unit) return { unit, subworkflow };
  }
  return { unit: undefined, subworkflow: undefined };
}

function joinRow(
  plan: ResultsPlan,
  property: PlatformRecord,
  job: PlatformRecord | undefined,
  unitId: string | undefined,
  materialCells: unknown[] | undefined,
): Row {
  const { unit, subworkflow } = unitOf(job, unitId);
  const application = subworkflow?.application as Loose;
  const model = subworkflow?.model as Loose;
  const method = model?.method as Loose;
  const row: Row = {
    "job._id": job?._id,
    "job.status": job?.status,
    "unit.flowchartId": unit?.flowchartId,
    "application.name": application?.name,
    "application.version": application?.version,
    "model.type": model?.type,
    "model.subtype": model?.subtype,
    "model.hubbardType": model?.hubbardType,
    "method.type": method?.type,
    "method.subtype": method?.subtype,
  };
  plan.materialNames.forEach((name, i) => {
    row[name] = materialCells?.[i];
  });
  const sources = { job, model, application, unit };
  for (const column of plan.linked) row[column.name] = dig(sources[column.from], column.path);
  for (const columns of plan.properties) Object.assign(row, propertyCells(columns, property));
  return row;
}

function dig(record: unknown, path: string): unknown {
  let value = record;
  for (const segment of path.split("."))
    value = value !== null && typeof value === "object" ? (value as Record<string, unknown>)[segment] : undefined;
  return value;
}
