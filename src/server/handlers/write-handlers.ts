import { requireSession } from "./auth-handlers";
import { badRequest, HttpError, notFound } from "../http/http-errors";
import { randomId } from "../records/ids";
import { computedFields, hasStructure, parseStructureFile } from "../records/material-fields";
import { IMPORT_FORMATS, isImportFormat, quotedList } from "../../structure/formats";
import {
  parametersToVectors,
  vectorsToParameters,
  type CellParameters,
  type Matrix3,
  type Vector3,
} from "../../structure";
import { applyModifier, checkModifier, PROTECTED_PATHS } from "../records/modifier";
import type { Caller } from "../records/owners";
import { checkRecordSize, checkValue, MAX_WRITE_BODY_BYTES } from "../records/record-rules";
import type { Reply, RequestInfo, ServerState } from "./reply";
import { success } from "./reply";
import { parseJsonObjectBody, readBody } from "../http/request-input";
import type { StoredRecord } from "../records/store";
import { SymmetryQueueFull, type FoundSymmetry } from "../records/symmetry-thread";

function forbidden(message: string): HttpError {
  return new HttpError(403, message);
}

function short(id: string): string {
  return JSON.stringify(id.slice(0, 100));
}

/** An id no served or written record has. */
function newId(state: ServerState): string {
  for (;;) {
    const id = randomId();
    if (!state.store.get(id) && !state.written.has(id)) return id;
  }
}

function ownerIdOf(record: StoredRecord): unknown {
  return (record.owner as { _id?: unknown } | undefined)?._id;
}

/** A record the caller may read: a served one, or one of their own. */
export function readableRecord(state: ServerState, caller: Caller, id: string): StoredRecord | undefined {
  const shared = state.store.get(id);
  if (shared) return shared;
  const written = state.written.get(id);
  return written && ownerIdOf(written) === caller._id ? written : undefined;
}

/** A record the caller may change: 404 when none has the id, 403 when it is public or another account's. */
function ownedRecord(state: ServerState, caller: Caller, id: string): StoredRecord {
  if (state.store.get(id)) {
    throw forbidden(
      `Material ${short(id)} is one of the served public materials (owner ${state.publicOwner.slug}), which are read-only; copy it with POST /materials/${encodeURIComponent(id.slice(0, 100))}/copy and change the copy.`,
    );
  }
  const record = state.written.get(id);
  if (!record) throw notFound(`No material has the id ${short(id)}; list ids with GET /materials.`);
  if (ownerIdOf(record) !== caller._id)
    throw forbidden(`Material ${short(id)} belongs to another account; you can change only your own materials.`);
  return record;
}

/**
 * The space group's symbol and lattice type of a record's structure, searched in the server's
 * symmetry thread in the caller's turn; 503 with Retry-After when the caller (or the server) has
 * too many waiting.
 */
async function symmetryFound(
  state: ServerState,
  caller: Caller,
  record: Record<string, unknown>,
): Promise<FoundSymmetry | null> {
  if (!hasStructure(record)) return null;
  try {
    return await state.symmetry.symmetryOf(record as never, caller._id);
  } catch (error) {
    if (!(error instanceof SymmetryQueueFull)) throw error;
    const whose =
      error.whose === "account"
        ? "This account has many structures waiting for their space-group search"
        : "The server has many structures waiting for their space-group search";
    throw new HttpError(
      503,
      `${whose}; nothing was written. Send this one again in ${error.retryAfterSeconds} s, or send fewer at once.`,
      {
        "Retry-After": String(error.retryAfterSeconds),
      },
    );
  }
}

/** The space group's symbol a stored record carries in its derived properties, and its lattice type, if any. */
function symmetryEntryOf(record: Record<string, unknown>): FoundSymmetry | null {
  const properties = Array.isArray(record.derivedProperties)
    ? (record.derivedProperties as { name?: unknown; spaceGroupSymbol?: unknown }[])
    : [];
  const entry = properties.find((property) => property?.name === "symmetry");
  const latticeType = (record.lattice as { type?: unknown } | undefined)?.type;
  return typeof entry?.spaceGroupSymbol === "string" && typeof latticeType === "string"
    ? { spaceGroupSymbol: entry.spaceGroupSymbol, latticeType }
    : null;
}

/** What the space group depends on: the lattice and the basis. */
function structureKey(record: Record<string, unknown>): string {
  return JSON.stringify([record.lattice, record.basis]);
}

/** Checks an `owner._id` a client asked for: it may only name the caller's own account. */
function checkRequestedOwner(requested: unknown, caller: Caller, where: string): void {
  if (requested === undefined || requested === null) return;
  if (requested !== caller._id) {
    throw forbidden(
      `${where} must be your own account id (${caller._id}) or left out: an account creates records only for itself.`,
    );
  }
}

/** A new record: the server's `_id`, owner and creation time, and for a structure its computed fields. */
function newRecord(
  state: ServerState,
  caller: Caller,
  fields: Record<string, unknown>,
  what: string,
  symmetry: FoundSymmetry | null,
): StoredRecord {
  const { _id: _ignored, owner: _owner, createdAt: _created, ...rest } = fields;
  const computed = hasStructure(rest) ? computedFields(rest as never, what, symmetry) : {};
  const record: StoredRecord = {
    _id: newId(state),
    ...rest,
    ...computed,
    owner: { _id: caller._id, slug: caller.slug },
    createdAt: new Date().toISOString(),
  };
  checkRecordSize(record, what);
  return record;
}

async function readWriteBody(info: RequestInfo, what: string, example: string): Promise<Record<string, unknown>> {
  return parseJsonObjectBody(await readBody(info.req, MAX_WRITE_BODY_BYTES), what, example);
}

/** PUT /materials/create: the body is the record; answers the created record. */
export async function handleCreate(info: RequestInfo, state: ServerState): Promise<Reply> {
  const caller = requireSession(info, state);
  const body = await readWriteBody(info, "The record to create", '{"name": "Si", "lattice": {...}, "basis": {...}}');
  if ("_id" in body) {
    throw badRequest(
      `The record to create has an _id; leave it out, the server assigns one (to copy a material, POST /materials/<id>/copy).`,
    );
  }
  if (body.owner !== undefined) {
    if (typeof body.owner !== "object" || body.owner === null || Array.isArray(body.owner)) {
      throw badRequest(`owner must be an object {"_id": "<your account id>"} or left out.`);
    }
    checkRequestedOwner((body.owner as { _id?: unknown })._id, caller, "owner._id");
  }
  checkValue(body, "the record");
  const record = newRecord(state, caller, body, "The record", await symmetryFound(state, caller, body));
  return success(await state.written.write(() => ({ put: record, result: record })));
}

/** PATCH /materials/<id>: the body is a modifier ($set, $unset, $push, $pull, $addToSet). */
export async function handleUpdate(info: RequestInfo, state: ServerState, id: string): Promise<Reply> {
  const caller = requireSession(info, state);
  const body = await readWriteBody(info, "The modifier", '{"$set": {"name": "new name"}}');
  const modifier = checkModifier(body);
  const touched = Object.values(modifier).flatMap((fields) => Object.keys(fields ?? {}));
  const restructured = touched.some((path) => /^(lattice|basis)(\.|$)/.test(path));
  const what = `Material ${short(id)} after the update`;
  const restructure = (current: StoredRecord) => consistentLattice(applyModifier(current, modifier), touched, what);
  // The space group is searched off the write queue (it may take up to its budget), on the record as
  // it is now; the queue then checks that no write in between changed the structure it was found for.
  let found: { structure: string; symmetry: FoundSymmetry | null } | undefined;
  if (restructured) {
    const planned = restructure(ownedRecord(state, caller, id));
    if (hasStructure(planned))
      found = { structure: structureKey(planned), symmetry: await symmetryFound(state, caller, planned) };
  }
  const updated = await state.written.write(() => {
    // Looked up inside the write queue, so it sees every earlier write to the same record.
    const current = ownedRecord(state, caller, id);
    let next = restructured ? restructure(current) : applyModifier(current, modifier);
    if (restructured && hasStructure(next)) {
      const symmetry = found?.structure === structureKey(next) ? found.symmetry : null;
      next = { ...next, ...computedFields(next as never, what, symmetry) };
    }
    for (const path of PROTECTED_PATHS) next[path] = current[path];
    checkRecordSize(next, `Material ${short(id)} after the update`);
    return { put: next, result: next };
  });
  return success(updated);
}

/** DELETE /materials/<id>: answers `{ _id }`. */
export async function handleDelete(info: RequestInfo, state: ServerState, id: string): Promise<Reply> {
  const caller = requireSession(info, state);
  const removed = await state.written.write(() => {
    const record = ownedRecord(state, caller, id);
    return { remove: record._id, result: { _id: record._id } };
  });
  return success(removed);
}

/** POST /materials/<id>/copy: a readable material (public ones included) copied to the caller. */
export async function handleCopy(info: RequestInfo, state: ServerState, id: string): Promise<Reply> {
  const caller = requireSession(info, state);
  const copy = await state.written.write(() => {
    const source = readableRecord(state, caller, id);
    if (!source) throw notFound(`No material has the id ${short(id)}; list ids with GET /materials.`);
    // The same structure: the source's space group carries over.
    const record = newRecord(
      state,
      caller,
      structuredClone(source),
      `The copy of ${short(id)}`,
      symmetryEntryOf(source),
    );
    return { put: record, result: record };
  });
  return success(copy);
}

const IMPORT_KEYS = ["name", "content", "format", "owner._id", "owner", "tags"];
const IMPORT_EXAMPLE = '{"name": "Si", "content": "<POSCAR text>", "format": "poscar", "tags": ["mine"]}';

/** POST /materials/import: `{ name, content, format: "poscar"|"cif" (IMPORT_FORMATS), "owner._id"?, tags? }`. */
export async function handleImport(info: RequestInfo, state: ServerState): Promise<Reply> {
  const caller = requireSession(info, state);
  const body = await readWriteBody(info, "The import request", IMPORT_EXAMPLE);
  const unknown = Object.keys(body).filter((key) => !IMPORT_KEYS.includes(key));
  if (unknown.length > 0) {
    throw badRequest(
      `The import request has unknown fields (${unknown.map((k) => JSON.stringify(k.slice(0, 40))).join(", ")}); it takes ${IMPORT_KEYS.join(", ")}.`,
    );
  }
  const { name, content, format, tags } = body;
  if (typeof content !== "string" || content.trim() === "") {
    throw badRequest(`The import request needs "content": the structure file's text, e.g. ${IMPORT_EXAMPLE}.`);
  }
  const formatName = typeof format === "string" ? format.toLowerCase() : format === undefined ? "poscar" : format;
  if (!isImportFormat(formatName)) {
    throw badRequest(`"format" must be ${quotedList(IMPORT_FORMATS)}, not ${JSON.stringify(format).slice(0, 40)}.`);
  }
  if (name !== undefined && name !== null && (typeof name !== "string" || name.length > 1000)) {
    throw badRequest(`"name" must be a string of at most 1000 characters.`);
  }
  if (
    tags !== undefined &&
    tags !== null &&
    (!Array.isArray(tags) || tags.some((tag) => typeof tag !== "string") || tags.length > 1000)
  ) {
    throw badRequest(`"tags" must be a list of strings (at most 1000).`);
  }
  checkRequestedOwner(body["owner._id"], caller, '"owner._id"');
  if (body.owner !== undefined && body.owner !== null) {
    checkRequestedOwner(
      typeof body.owner === "object" ? (body.owner as { _id?: unknown })._id : body.owner,
      caller,
      "owner._id",
    );
  }
  const parsed = parseStructureFile(content, formatName);
  const fields = {
    ...parsed,
    name: typeof name === "string" && name.trim() !== "" ? name : parsed.name || parsed.formula,
    tags: tags ?? [],
  };
  checkValue(fields, "the imported material");
  const record = newRecord(state, caller, fields, "The imported material", await symmetryFound(state, caller, fields));
  return success(await state.written.write(() => ({ put: record, result: record })));
}

/**
 * Keeps a lattice's parameters and vectors telling the same story after an update: a modifier that
 * sets `lattice.a` (or another parameter) gets new `vectors` from the parameters, one that sets the
 * vectors gets new parameters from them. (Setting both, or the whole lattice, is taken as given.)
 */
function consistentLattice<T extends Record<string, unknown>>(record: T, touched: readonly string[], what: string): T {
  const lattice = record.lattice as
    | (CellParameters & { vectors?: { a: Vector3; b: Vector3; c: Vector3; alat?: number; units?: string } })
    | undefined;
  if (!lattice || typeof lattice !== "object") return record;
  const parameters = touched.some((path) => /^lattice\.(a|b|c|alpha|beta|gamma)$/.test(path));
  const vectors = touched.some((path) => /^lattice\.vectors(\.|$)/.test(path));
  try {
    if (parameters && !vectors && lattice.vectors) {
      const [a, b, c] = parametersToVectors(lattice);
      return {
        ...record,
        lattice: { ...lattice, vectors: { ...lattice.vectors, a, b, c, alat: 1, units: "angstrom" } },
      };
    }
    if (vectors && !parameters && lattice.vectors) {
      const scale = lattice.vectors.alat ?? 1;
      const cell = [lattice.vectors.a, lattice.vectors.b, lattice.vectors.c].map((v) =>
        v.map((x) => x * scale),
      ) as Matrix3;
      return { ...record, lattice: { ...lattice, ...vectorsToParameters(cell) } };
    }
  } catch (error) {
    throw badRequest(`${what}: ${(error as Error).message}`);
  }
  return record;
}
