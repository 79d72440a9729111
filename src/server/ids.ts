import { createHash } from "node:crypto";

/**
 * The alphabet of the platform's 17-character (Meteor-style) ids; scripts/build-dataset.js uses
 * the same one for the bundled materials.
 */
const ID_ALPHABET = "23456789ABCDEFGHJKLMNPQRSTWXYZabcdefghijkmnopqrstuvwxyz";
const ID_LENGTH = 17;

/** A platform-like id derived from `seed`: the same seed always gives the same id. */
export function deterministicId(seed: string): string {
  const digest = createHash("sha256").update(seed).digest();
  let id = "";
  for (let i = 0; i < ID_LENGTH; i += 1) id += ID_ALPHABET[digest[i] % ID_ALPHABET.length];
  return id;
}
