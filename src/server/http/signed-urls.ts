import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/** How long a job file's signed URL works, by default: the platform's own links last about an hour. */
export const DEFAULT_SIGNED_URL_SECONDS = 3600;

/** What a signed URL grants: one method on one path, for one account, until a time. */
export interface UrlGrant {
  method: "GET" | "PUT";
  /** The URL's path, without the query string. */
  path: string;
  /** The account the URL is bound to: the job's owner when it was signed. */
  accountId: string;
}

/** Why a signed URL is refused, for the message. */
export type UrlRefusal = "missing" | "expired" | "forged";

/**
 * Signs and checks the URLs that let a plain `urllib.request.urlopen` (no headers) read a job's
 * file, as the platform's S3 links do: an HMAC-SHA256 over the method, the path, the account and
 * the expiry, with a key made afresh by each server (so a restart voids every URL it gave out).
 */
export class UrlSigner {
  private readonly key = randomBytes(32);

  constructor(readonly lifetimeSeconds = DEFAULT_SIGNED_URL_SECONDS) {}

  /** The query string (without `?`) that authorises `grant` until now + the lifetime. */
  sign(grant: UrlGrant, nowMs = Date.now()): string {
    const expires = Math.floor(nowMs / 1000) + this.lifetimeSeconds;
    const params = new URLSearchParams({
      account: grant.accountId,
      expires: String(expires),
      signature: this.mac(grant, expires),
    });
    return params.toString();
  }

  /**
   * The account a request's query string was signed for, or why it is refused. The expiry is
   * read before the signature: an expired URL says so (an edited expiry fails the signature).
   */
  check(
    method: UrlGrant["method"],
    path: string,
    params: ReadonlyMap<string, string>,
    nowMs = Date.now(),
  ): { accountId: string } | { refused: UrlRefusal } {
    const accountId = params.get("account");
    const expiresText = params.get("expires");
    const signature = params.get("signature");
    if (!accountId || !expiresText || !signature) return { refused: "missing" };
    const expires = Number(expiresText);
    if (!/^\d{1,12}$/.test(expiresText) || expires * 1000 <= nowMs) return { refused: "expired" };
    const expected = Buffer.from(this.mac({ method, path, accountId }, expires));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { refused: "forged" };
    return { accountId };
  }

  private mac(grant: UrlGrant, expires: number): string {
    return createHmac("sha256", this.key)
      .update([grant.method, grant.path, grant.accountId, String(expires)].join("\n"))
      .digest("base64url");
  }
}
