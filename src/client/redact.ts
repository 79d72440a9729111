/** Shortest secret worth scrubbing; shorter strings would blank out ordinary words. */
const MIN_SECRET_LENGTH = 3;

/**
 * Replaces every occurrence of each secret in `text` with `[redacted]`, so that a server
 * message or body excerpt that echoes a password or token never reaches an error message.
 */
export function redact(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret && secret.length >= MIN_SECRET_LENGTH) out = out.split(secret).join("[redacted]");
  }
  return out;
}
