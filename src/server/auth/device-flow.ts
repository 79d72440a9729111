// The OAuth 2.0 Device Authorization Grant (RFC 8628) as the platform's notebooks use it: a
// device asks for a code, a person approves it on the verification page, the device polls the
// token endpoint. This file keeps the grants and refresh tokens; the HTTP side is
// handlers/oidc-handlers.ts and the page is auth/verification-page.ts.
import { createHash, randomBytes, randomInt } from "node:crypto";
import { addressKey } from "./address-key";
import { OwnedTable, type OwnedTableLimits } from "./owned-table";

/** The one client the platform's device flow knows (`CLIENT_ID` of the Python client). */
export const DEVICE_CLIENT_ID = "cli-device-client";

/** Seconds a device code stays usable (RFC 8628 section 3.2 `expires_in`). */
export const DEFAULT_DEVICE_EXPIRES_SECONDS = 600;
/** Seconds a device waits between polls (section 3.2 `interval`; 5 when absent, section 3.5). */
export const DEFAULT_POLL_INTERVAL_SECONDS = 5;
/** Added to a device's interval each time it polls too soon (section 3.5 `slow_down`). */
const SLOW_DOWN_SECONDS = 5;
/** Default of {@link DeviceFlowOptions.maxGrants}. */
export const DEFAULT_MAX_GRANTS = 10_000;
/** Default of {@link DeviceFlowOptions.maxGrantsPerAddress}. */
export const DEFAULT_MAX_GRANTS_PER_ADDRESS = 64;
/** A refresh token's life; each use replaces it with a new one (rotation, RFC 9700 section 4.14.2). */
export const REFRESH_TTL_SECONDS = 30 * 24 * 60 * 60;

/**
 * User codes: eight letters of twenty consonants (no vowels, so no words; no look-alikes),
 * shown as `XXXX-XXXX`: about 34.5 bits, as RFC 8628 section 6.1 suggests.
 */
const USER_CODE_ALPHABET = "BCDFGHJKLMNPQRSTVWXZ";

/** How the flow is timed. */
export interface DeviceFlowOptions {
  /**
   * Seconds a device must wait between polls, as `interval` tells it; 0 lets tests poll at once.
   * @default 5
   */
  intervalSeconds?: number;
  /**
   * Seconds a device code stays usable.
   * @default 600
   */
  expiresInSeconds?: number;
  /**
   * Grants waiting for an answer at most, from all addresses. When full, the oldest grant of the
   * address holding the most is dropped, so a flood from one address never drops another's
   * while it holds more than they do.
   * @default 10000
   */
  maxGrants?: number;
  /**
   * Grants one client address (an IPv6 /64) may have waiting: its own oldest is dropped when it
   * asks for one more. A class behind one router shares one address, so this is well above a
   * class's size; people there share the bound with each other.
   * @default 64
   */
  maxGrantsPerAddress?: number;
}

/** What a refresh token stands for: its account, the session it renews, its expiry. */
interface RefreshGrant {
  accountId: string;
  /** The session issued with it, ended when the token is used (the access token is rotated with it). */
  sessionId: string;
  expiresAt: number;
}

interface DeviceGrant {
  readonly userCode: string;
  readonly deviceKey: string;
  readonly expiresAt: number;
  intervalMs: number;
  lastPollAt: number | undefined;
  state: "pending" | "approved" | "denied";
  accountId?: string;
}

/** What a poll of the token endpoint finds (RFC 8628 section 3.5). */
export type PollOutcome =
  | { kind: "approved"; accountId: string }
  | { kind: "authorization_pending" | "slow_down" | "access_denied" | "expired_token" | "invalid_grant" };

function digest(secret: string): string {
  return createHash("sha256").update(secret).digest("base64url");
}

/** `ABCD-EFGH`, `abcdefgh` and `ABCD EFGH` are one code: people retype what they read. */
export function normaliseUserCode(text: string): string {
  return text.toUpperCase().replace(/[^A-Z]/g, "");
}

function newUserCode(): string {
  let code = "";
  for (let i = 0; i < 8; i++) code += USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)];
  return code;
}

/** Pending device grants and refresh tokens, kept in memory (a restart ends them, as it ends sessions). */
export class DeviceFlow {
  /** By the SHA-256 of the device code (the code itself is never kept), owned by the client address. */
  private readonly grants: OwnedTable<DeviceGrant>;
  /** By normalised user code. */
  private readonly byUserCode = new Map<string, DeviceGrant>();
  /** By the SHA-256 of a refresh token, owned by its account. */
  private readonly refreshTokens: OwnedTable<RefreshGrant>;
  readonly intervalSeconds: number;
  readonly expiresInSeconds: number;

  /**
   * @param refreshLimits refresh tokens kept at most, in all and per account: the server passes
   *   its session limits, as each refresh token goes with one session.
   */
  constructor(options: DeviceFlowOptions = {}, refreshLimits: OwnedTableLimits = { max: 100_000, maxPerOwner: 100 }) {
    this.intervalSeconds = options.intervalSeconds ?? DEFAULT_POLL_INTERVAL_SECONDS;
    this.expiresInSeconds = options.expiresInSeconds ?? DEFAULT_DEVICE_EXPIRES_SECONDS;
    this.grants = new OwnedTable({
      max: options.maxGrants ?? DEFAULT_MAX_GRANTS,
      maxPerOwner: options.maxGrantsPerAddress ?? DEFAULT_MAX_GRANTS_PER_ADDRESS,
    });
    this.refreshTokens = new OwnedTable(refreshLimits);
  }

  /**
   * A new grant for a device at client `address`: the device code (secret, for the device) and
   * the user code (for the person).
   */
  start(address: string, now = Date.now()): { deviceCode: string; userCode: string } {
    this.sweep(now);
    let userCode = newUserCode();
    while (this.byUserCode.has(userCode)) userCode = newUserCode();
    const deviceCode = randomBytes(32).toString("base64url");
    const grant: DeviceGrant = {
      userCode,
      deviceKey: digest(deviceCode),
      expiresAt: now + this.expiresInSeconds * 1000,
      intervalMs: this.intervalSeconds * 1000,
      lastPollAt: undefined,
      state: "pending",
    };
    this.byUserCode.set(userCode, grant);
    for (const dropped of this.grants.add(grant.deviceKey, addressKey(address), grant)) this.forgetCode(dropped);
    return { deviceCode, userCode: `${userCode.slice(0, 4)}-${userCode.slice(4)}` };
  }

  /**
   * A device's poll. An approved grant is handed out once and then forgotten, so a device code
   * cannot mint a second token; a poll sooner than the interval is `slow_down` and lengthens it.
   */
  poll(deviceCode: string, now = Date.now()): PollOutcome {
    const grant = this.grants.get(digest(deviceCode));
    if (!grant) return { kind: "invalid_grant" };
    if (grant.expiresAt <= now) {
      this.remove(grant);
      return { kind: "expired_token" };
    }
    if (grant.state === "denied") {
      this.remove(grant);
      return { kind: "access_denied" };
    }
    if (grant.state === "approved") {
      this.remove(grant);
      return { kind: "approved", accountId: grant.accountId! };
    }
    const tooSoon = grant.lastPollAt !== undefined && now - grant.lastPollAt < grant.intervalMs;
    grant.lastPollAt = now;
    if (tooSoon) {
      grant.intervalMs += SLOW_DOWN_SECONDS * 1000;
      return { kind: "slow_down" };
    }
    return { kind: "authorization_pending" };
  }

  /** Whether `userCode` names a grant still waiting for a person's answer. */
  isPending(userCode: string, now = Date.now()): boolean {
    const grant = this.byUserCode.get(normaliseUserCode(userCode));
    return grant !== undefined && grant.state === "pending" && grant.expiresAt > now;
  }

  /** Records the person's answer; false when the code is unknown, expired or already answered. */
  answer(
    userCode: string,
    answer: { approve: true; accountId: string } | { approve: false },
    now = Date.now(),
  ): boolean {
    const grant = this.byUserCode.get(normaliseUserCode(userCode));
    if (grant?.state !== "pending" || grant.expiresAt <= now) return false;
    if (answer.approve) {
      grant.state = "approved";
      grant.accountId = answer.accountId;
    } else {
      grant.state = "denied";
    }
    // The user code is done: it cannot be answered twice, nor shown as pending.
    this.byUserCode.delete(grant.userCode);
    return true;
  }

  /** A new refresh token for `accountId`, going with session `sessionId` (kept only as its hash). */
  issueRefreshToken(accountId: string, sessionId: string, now = Date.now()): string {
    const token = randomBytes(32).toString("base64url");
    this.refreshTokens.add(digest(token), accountId, {
      accountId,
      sessionId,
      expiresAt: now + REFRESH_TTL_SECONDS * 1000,
    });
    return token;
  }

  /**
   * The account and session of a live refresh token, which is used up (the caller ends the
   * session and issues their successors); else undefined.
   */
  redeemRefreshToken(token: string, now = Date.now()): RefreshGrant | undefined {
    const found = this.refreshTokens.delete(digest(token));
    return found !== undefined && found.expiresAt > now ? found : undefined;
  }

  /** Grants waiting from client `address` now. */
  grantsFrom(address: string): number {
    return this.grants.countOf(addressKey(address));
  }

  private remove(grant: DeviceGrant): void {
    this.grants.delete(grant.deviceKey);
    this.forgetCode(grant);
  }

  private forgetCode(grant: DeviceGrant): void {
    if (this.byUserCode.get(grant.userCode) === grant) this.byUserCode.delete(grant.userCode);
  }

  /** Drops expired grants (from the oldest: they are in order of expiry). */
  private sweep(now: number): void {
    for (const grant of this.grants.values()) {
      if (grant.expiresAt > now) break;
      this.remove(grant);
    }
  }
}
