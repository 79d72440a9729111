/** Shortest secret worth scrubbing; shorter strings would blank out ordinary words. */
const MIN_SECRET_LENGTH = 3;

/**
 * The spellings a secret can take in text a server sends back: as is, percent-encoded (a URL or
 * a form body: `encodeURIComponent`, and `+` for spaces), and escaped inside a JSON string.
 */
function spellings(secret: string): string[] {
  const forms = new Set([
    secret,
    encodeURIComponent(secret),
    new URLSearchParams({ s: secret }).toString().slice(2),
    JSON.stringify(secret).slice(1, -1),
  ]);
  // Longest first, so an encoded form is not left half-replaced by a shorter one inside it.
  return [...forms].sort((a, b) => b.length - a.length);
}

/**
 * Replaces every occurrence of each secret in `text`, in any of its usual encodings, with
 * `[redacted]`, so that a server message or body excerpt that echoes a password or token never
 * reaches an error message. Redact the whole text first and cut it afterwards: a secret cut in
 * two no longer matches.
 */
export function redact(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  for (const secret of secrets) {
    if (!secret || secret.length < MIN_SECRET_LENGTH) continue;
    for (const form of spellings(secret)) out = out.split(form).join("[redacted]");
  }
  return out;
}

/** Redacts, then cuts to `max` characters (with an ellipsis when cut). */
export function redactedExcerpt(text: string, secrets: readonly (string | undefined)[], max: number): string {
  const clean = redact(text, secrets);
  return clean.length > max ? `${clean.slice(0, max)}...` : clean;
}

/**
 * A URL as it may be shown: `user:password@` taken out, whatever else is wrong with it. Read as
 * the URL parser (and undici) read it (https://url.spec.whatwg.org/#concept-basic-url-parser): leading
 * spaces and controls dropped, tabs and line breaks dropped anywhere, `\\` as `/`, and the last
 * `@` of the authority ending the credentials (a password may hold an unencoded `@`).
 */
export function withoutUrlCredentials(url: string): string {
  return url
    .replace(/[\t\n\r]/g, "")
    .replace(/^[\u0000-\u0020]+/, "")
    .replace(/^([a-z][a-z0-9+.-]*:[\\/]*)[^/?#\\]*@/i, "$1[credentials removed]@");
}
