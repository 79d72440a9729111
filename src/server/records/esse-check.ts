import { createRequire } from "node:module";
import { badRequest } from "../http/http-errors";

/** What ESSE's validator (`@mat3ra/esse/dist/js/utils/ajv`, ajv over its dereferenced schemas) answers. */
interface EsseAnswer {
  isValid: boolean;
  errors?: { instancePath?: string; schemaPath?: string; message?: string }[] | null;
}

interface Esse {
  validate(data: object, schema: object): EsseAnswer;
  schemas: { $id: string }[];
}

let esse: Esse | null | undefined;

/**
 * ESSE (the platform's record schemas and their validator), loaded on first use; null when
 * `@mat3ra/esse` is not installed (it is a development dependency: a package installed without
 * it stores writes after matframe's own checks alone, see docs/local-platform.md).
 */
function loadEsse(): Esse | null {
  if (esse !== undefined) return esse;
  try {
    const require = createRequire(__filename);
    const { validate } = require("@mat3ra/esse/dist/js/utils/ajv") as Pick<Esse, "validate">;
    const schemas = require("@mat3ra/esse/dist/js/schemas.json") as Esse["schemas"];
    esse = { validate, schemas };
  } catch {
    esse = null;
  }
  return esse;
}

/** Whether writes are checked against ESSE on this installation. */
export function esseAvailable(): boolean {
  return loadEsse() !== null;
}

/**
 * Refuses (400) a record that does not validate against ESSE's schema `schemaId` (`workflow`,
 * `job`, `project`), naming where it fails: the record's path and the schema's rule, e.g.
 * `/subworkflows/0/units/0/context must be object (schema #/properties/context/type)`. Each
 * schema is compiled on its first use (about a second for the workflow and job schemas); the
 * record is validated as a copy, since ajv fills in defaults.
 */
export function checkEsse(record: object, schemaId: string, what: string): void {
  const loaded = loadEsse();
  const schema = loaded?.schemas.find((candidate) => candidate.$id === schemaId);
  if (!loaded || !schema) return;
  const answer = loaded.validate(structuredClone(record), schema);
  if (answer.isValid) return;
  const first = answer.errors?.[0];
  const where = first?.instancePath ? first.instancePath : "(the record itself)";
  throw badRequest(
    `${what} does not validate against ESSE's "${schemaId}" schema: ${where} ${first?.message ?? "is invalid"}` +
      `${first?.schemaPath ? ` (schema ${first.schemaPath})` : ""}; fix that field and send it again.`,
  );
}
