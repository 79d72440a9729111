// The checks of a write's input, done before anything is sent. The platform checks again (and
// more); these catch what can be told without it, in the caller's words.
import { ValidationError } from "../errors";
import { IMPORT_FORMATS, isImportFormat, quotedList, structureFormat, type ImportFormat } from "../structure/formats";

/** Options of the collections' writes. */
export interface WriteOptions {
  /** Aborts the request (the write may still have been applied if it reached the server). */
  signal?: AbortSignal;
}

/** The modifier operators the platform (and `matframe serve`) accept in `update`. */
export const MODIFIER_OPERATORS = ["$set", "$unset", "$push", "$pull", "$addToSet"] as const;

/** A MongoDB modifier: `{ $set: { name: "x" }, $addToSet: { tags: "y" } }`. */
export type Modifier = Partial<Record<(typeof MODIFIER_OPERATORS)[number], Record<string, unknown>>>;

/** `materials.importStructure(file)`. */
export interface ImportOptions {
  /** The new material's name. */
  name: string;
  /** The file's text. */
  content: string;
  /** `"poscar"` (VASP 5) or `"cif"`: the structure formats the platform imports (`IMPORT_FORMATS`). */
  format: ImportFormat;
  /** Tags for the new material. @default [] */
  tags?: readonly string[];
  /** The account that will own it (one you may write to). @default the caller's account */
  ownerId?: string;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** A record to create: a plain object whose `_id` the platform chooses. */
export function checkRecordBody(name: string, record: unknown): void {
  if (!isPlainObject(record))
    throw new ValidationError(
      name,
      `${name} must be a plain object of the record's fields, e.g. { name: "Si", lattice, basis }.`,
    );
  if ("_id" in record)
    throw new ValidationError(
      name,
      `${name} must not have an _id: the platform gives the new record one. Use update(id, modifier) to change an existing record.`,
    );
}

/**
 * A modifier: operators the platform accepts, each with an object of paths; or a plain object of
 * fields (no key starting with `$`), which is `$set` of those fields, as the platform's own
 * Python client sends. Returns the operator form, the one sent.
 */
export function checkModifier(update: unknown): Modifier {
  if (!isPlainObject(update) || Object.keys(update).length === 0) {
    throw new ValidationError(
      "modifier",
      `modifier must be an object of operators, e.g. { $set: { name: "Si (relaxed)" } }, or of fields to set, e.g. { name: "Si (relaxed)" }.`,
    );
  }
  const fields = Object.keys(update).filter((key) => !key.startsWith("$"));
  if (fields.length > 0 && fields.length < Object.keys(update).length) {
    throw new ValidationError(
      "modifier",
      `modifier mixes fields (${fields
        .slice(0, 3)
        .map((f) => JSON.stringify(f))
        .join(", ")}) with operators; give either fields to set or operators only, e.g. { $set: { name: "x" } }.`,
    );
  }
  const modifier: Record<string, unknown> = fields.length > 0 ? { $set: update } : update;
  for (const [operator, paths] of Object.entries(modifier)) {
    if (!(MODIFIER_OPERATORS as readonly string[]).includes(operator)) {
      throw new ValidationError(
        "modifier",
        `modifier operator ${JSON.stringify(operator)} is not one the platform accepts (${MODIFIER_OPERATORS.join(", ")}).`,
      );
    }
    if (!isPlainObject(paths) || Object.keys(paths).length === 0) {
      throw new ValidationError(
        "modifier",
        `${operator} needs an object of dotted paths and values, e.g. { ${operator}: { name: "x" } }.`,
      );
    }
    for (const path of Object.keys(paths)) {
      if (path === "_id" || path.startsWith("_id."))
        throw new ValidationError(
          "modifier",
          `${operator} cannot change _id: a record keeps its id. Copy it instead (copy(id)).`,
        );
      if (path === "owner" || path.startsWith("owner."))
        throw new ValidationError(
          "modifier",
          `${operator} cannot change owner: a record stays with the account that owns it.`,
        );
    }
  }
  return modifier as Modifier;
}

/** An import: name, format, and a text the structure readers accept; the body the platform's client sends. */
export function checkImport(file: unknown): Record<string, unknown> {
  if (!isPlainObject(file))
    throw new ValidationError(
      "file",
      `importStructure needs { name, content, format: ${IMPORT_FORMATS.map((f) => `"${f}"`).join(" | ")} }.`,
    );
  const { name, content, format, tags = [], ownerId } = file as Partial<ImportOptions>;
  if (typeof name !== "string" || name.trim() === "")
    throw new ValidationError("name", "name must be a non-empty string: the new material's name.");
  if (!isImportFormat(format))
    throw new ValidationError("format", `format must be ${quotedList(IMPORT_FORMATS)}; got ${JSON.stringify(format)}.`);
  const { label, read } = structureFormat(format);
  if (typeof content !== "string" || content.trim() === "")
    throw new ValidationError("content", `content must be the ${label} file's text.`);
  if (!Array.isArray(tags) || tags.some((t) => typeof t !== "string"))
    throw new ValidationError("tags", "tags must be an array of strings.");
  if (ownerId !== undefined && (typeof ownerId !== "string" || ownerId === ""))
    throw new ValidationError("ownerId", "ownerId must be an account id (a non-empty string).");
  // The platform would refuse a malformed file too; reading it here says what is wrong, and where.
  read(content);
  return { name, content, format, tags: [...tags], ...(ownerId ? { "owner._id": ownerId } : {}) };
}
