// Which property kinds a results read may name: a kind the platform holds no record of would give
// an empty table with nothing said (`band_gap`, matminer's name, for the platform's `band_gaps`),
// so such a read is refused, with the kinds the platform does hold and the nearest of them.
import type { Client } from "../../client/client";
import { ValidationError } from "../../errors";
import { nearestPath } from "../table/suggest";

/**
 * Property names of the platform's schemas (ESSE `properties_directory`), for a suggestion when
 * the account holds no property records at all.
 */
export const ESSE_PROPERTY_NAMES: readonly string[] = Object.freeze([
  "band_gaps",
  "band_structure",
  "density_of_states",
  "dielectric_tensor",
  "total_energy",
  "total_energy_contributions",
  "total_force",
  "fermi_energy",
  "formation_energy",
  "pressure",
  "stress_tensor",
  "atomic_forces",
  "magnetic_moments",
  "zero_point_energy",
  "surface_energy",
  "phonon_dos",
  "phonon_dispersions",
  "hubbard_u",
]);

/** At most this many kinds are listed by walking the properties one kind at a time. */
const MAX_KINDS = 50;

/**
 * Checks that the platform holds at least one property record of each kind in `slugs` (one
 * request of one record per kind, sent together).
 * @throws ValidationError (`option: "properties"`) naming the kinds with no record, the kinds the
 *   platform holds and the nearest one ("did you mean band_gaps").
 */
export async function checkPropertyKinds(
  client: Client,
  slugs: readonly string[],
  signal: AbortSignal | undefined,
): Promise<void> {
  const properties = client.collection("properties");
  const found = await Promise.all(
    slugs.map((slug) =>
      properties.list({
        query: { slug },
        projection: { fields: { _id: 1 }, limit: 1 },
        ...(signal ? { signal } : {}),
      }),
    ),
  );
  const missing = slugs.filter((_, i) => found[i]!.length === 0);
  if (missing.length === 0) return;
  const held = await heldKinds(client, signal);
  const near = missing.map((slug) => nearestPath(slug, held.length > 0 ? held : ESSE_PROPERTY_NAMES));
  const suggestion = near
    .map((kind, i) => (kind ? `did you mean "${kind}" for "${missing[i]}"?` : undefined))
    .filter(Boolean)
    .join("; ");
  throw new ValidationError(
    "properties",
    `The platform holds no property records of kind ${missing.map((s) => `"${s}"`).join(", ")} for this account, so the table would be empty. ${
      held.length > 0
        ? `The kinds it holds: ${held.join(", ")}.`
        : "It holds no property records at all: run a job that computes one first."
    }${suggestion ? ` ${suggestion[0]!.toUpperCase()}${suggestion.slice(1)}` : ""}`,
  );
}

/**
 * The kinds of property record the platform holds for this account: one request of one record
 * per kind found, each excluding the kinds found before, so the cost is the number of kinds, not
 * of records.
 */
async function heldKinds(client: Client, signal: AbortSignal | undefined): Promise<string[]> {
  const properties = client.collection("properties");
  const kinds: string[] = [];
  while (kinds.length < MAX_KINDS) {
    const [next] = await properties.list({
      query: kinds.length > 0 ? { slug: { $nin: kinds } } : {},
      projection: { fields: { slug: 1 }, limit: 1 },
      ...(signal ? { signal } : {}),
    });
    const slug = (next as { slug?: unknown } | undefined)?.slug;
    if (typeof slug !== "string") break;
    kinds.push(slug);
  }
  return kinds.sort();
}
