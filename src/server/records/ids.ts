import { createHash, randomBytes } from "node:crypto";

/**
 * The alphabet of the platform's 17-character (Meteor-style) ids; scripts/build-dataset.js uses
 * the same one for the bundled materials.
 */
const ID_ALPHABET = "23456789ABCDEFGHJKLMNPQRSTWXYZabcdefghijkmnopqrstuvwxyz";
const ID_LENGTH = 17;
const ALPHABET_CODES = Buffer.from(ID_ALPHABET, "latin1");

/** A platform-like id derived from `seed`: the same seed always gives the same id. */
export function deterministicId(seed: string): string {
  const digest = createHash("sha256").update(seed).digest();
  // Mapped in place and read once: one string per id, which matters for 100,000 synthetic ones.
  // (A sha256 digest has 32 bytes, more than ID_LENGTH; a remainder indexes inside the alphabet.)
  for (let i = 0; i < ID_LENGTH; i += 1) digest[i] = ALPHABET_CODES[digest[i]! % ALPHABET_CODES.length]!;
  return digest.toString("latin1", 0, ID_LENGTH);
}

/** A new random platform-like id (17 characters of the same alphabet, about 98 bits). */
export function randomId(): string {
  const bytes = randomBytes(ID_LENGTH * 2);
  let id = "";
  // Rejection sampling keeps every character equally likely (256 is not a multiple of 55).
  const limit = 256 - (256 % ID_ALPHABET.length);
  for (const byte of bytes) {
    if (id.length === ID_LENGTH) break;
    if (byte < limit) id += ID_ALPHABET[byte % ID_ALPHABET.length];
  }
  return id.length === ID_LENGTH ? id : randomId();
}
