import { createHash, randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from "node:crypto";
import { FairHashQueue } from "./hash-queue";
import { OwnedTable } from "./owned-table";
import { deterministicId } from "../records/ids";

/** One account as given to the server; the password is hashed at start and then dropped. */
export interface UserAccount {
  username: string;
  password: string;
}

/** The account that exists when no users are given. */
export const DEMO_ACCOUNT: UserAccount = { username: "demo", password: "demo" };

/**
 * scrypt cost: N=2^14, r=8, p=1, the interactive-login parameters of the scrypt paper (Percival,
 * 2009): about 50 ms and 16 MiB per login, so a class logging in at once does not stall the
 * server. A public deployment may want more.
 */
const SCRYPT_OPTIONS: ScryptOptions = { N: 16384, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };
const HASH_BYTES = 32;

/** Token = 12-byte selector (to find the session) + 36 secret bytes: 48 random bytes, 64 characters. */
const SELECTOR_BYTES = 12;
const SECRET_BYTES = 36;
const SELECTOR_CHARS = (SELECTOR_BYTES / 3) * 4;
const TOKEN_CHARS = ((SELECTOR_BYTES + SECRET_BYTES) / 3) * 4;

/** Sessions kept at most, from all accounts together, so a login flood cannot exhaust memory. */
export const DEFAULT_MAX_SESSIONS = 100_000;
/**
 * Sessions one account keeps at most; its oldest ends when it opens one more. A person with a
 * notebook, a CLI and a few devices needs a handful; 100 leaves room for scripts that log in
 * per run without ever letting one account fill the table that others' sessions live in.
 */
export const DEFAULT_MAX_SESSIONS_PER_ACCOUNT = 100;
/** A session ends after this long even without logout. */
const SESSION_TTL_MS = 24 * 60 * 60 * 1000;

function scryptHash(password: string, salt: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password, salt, HASH_BYTES, SCRYPT_OPTIONS, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

/** Hashes waiting at most, from all addresses: about 6 s of work at ~50 ms a hash. */
const MAX_HASHES_WAITING = 128;
/**
 * Hashes one client address may have waiting: a class behind one router logs in from one
 * address at once (with 8, a class of 30 on a loaded laptop lost 3 logins after their retries).
 */
const MAX_HASHES_PER_SOURCE = 40;
/** Milliseconds a hash is assumed to take, for the `Retry-After` of a refused login. */
const HASH_MS_ESTIMATE = 60;

/** The server is busy hashing other logins: the caller answers 503 with `retryAfterSeconds`. */
export class LoginQueueFull {
  constructor(readonly retryAfterSeconds: number) {}
}

function sha256(text: string): Buffer {
  return createHash("sha256").update(text).digest();
}

interface StoredAccount {
  accountId: string;
  salt: Buffer;
  hash: Buffer;
}

interface Session {
  /** Kept so a Bearer token (the token alone) finds its account. */
  accountId: string;
  accountIdHash: Buffer;
  tokenHash: Buffer;
  expiresAt: number;
}

/** How many sessions are kept. */
export interface SessionLimits {
  /**
   * Sessions kept at most, from all accounts together. When full, the oldest session of the
   * account holding the most ends, so one account's logins never end another's session while it
   * holds more than they do.
   * @default 100000
   */
  maxSessions?: number;
  /**
   * Sessions one account keeps at most: its own oldest ends when it opens one more.
   * @default 100
   */
  maxSessionsPerAccount?: number;
}

/** The credentials a successful login returns. */
export interface IssuedCredentials {
  accountId: string;
  authToken: string;
  /** Names the session without its secret: what a refresh token keeps to end it when it is rotated. */
  sessionId: string;
}

/**
 * Accounts and sessions. Passwords are kept only as scrypt hashes; tokens are 48 random bytes,
 * kept only as SHA-256 hashes and compared in constant time.
 */
export class AuthRegistry {
  /** By selector, owned by their account. */
  private readonly sessions: OwnedTable<Session>;
  /** Account id to username, the slug records' `owner` carries. */
  private readonly slugs = new Map<string, string>();
  private readonly hashes = new FairHashQueue(MAX_HASHES_WAITING, MAX_HASHES_PER_SOURCE);

  private constructor(
    private readonly accounts: Map<string, StoredAccount>,
    /** Verified against when the username is unknown, so timing does not reveal which names exist. */
    private readonly decoy: StoredAccount,
    limits: SessionLimits,
  ) {
    this.sessions = new OwnedTable({
      max: limits.maxSessions ?? DEFAULT_MAX_SESSIONS,
      maxPerOwner: limits.maxSessionsPerAccount ?? DEFAULT_MAX_SESSIONS_PER_ACCOUNT,
    });
    for (const [username, account] of accounts) this.slugs.set(account.accountId, username);
  }

  static async create(users: readonly UserAccount[], limits: SessionLimits = {}): Promise<AuthRegistry> {
    const accounts = new Map<string, StoredAccount>();
    for (const user of users) {
      const salt = randomBytes(16);
      accounts.set(user.username, {
        accountId: deterministicId(`account:${user.username}`),
        salt,
        hash: await scryptHash(user.password, salt),
      });
    }
    const decoySalt = randomBytes(16);
    const decoy = {
      accountId: "",
      salt: decoySalt,
      hash: await scryptHash(randomBytes(16).toString("hex"), decoySalt),
    };
    return new AuthRegistry(accounts, decoy, limits);
  }

  /**
   * The account id when the password is right, otherwise undefined (the same work either way);
   * `LoginQueueFull` when too many logins are waiting to be hashed (from `source`, the
   * client address, or from everyone). Opens no session.
   */
  async checkPassword(
    username: string,
    password: string,
    source: string,
  ): Promise<string | undefined | LoginQueueFull> {
    const account = this.accounts.get(username);
    const candidate = account ?? this.decoy;
    const hashed = await this.hashes.run(source, () => scryptHash(password, candidate.salt));
    if (!hashed)
      return new LoginQueueFull(Math.max(1, Math.ceil(((this.hashes.waiting + 1) * HASH_MS_ESTIMATE) / 1000)));
    if (!timingSafeEqual(hashed.value, candidate.hash) || !account) return undefined;
    return account.accountId;
  }

  /** Every account, as records' `owner` names it (`{ _id, slug }`). */
  accountOwners(): { _id: string; slug: string }[] {
    return [...this.slugs].map(([_id, slug]) => ({ _id, slug }));
  }

  /** The username of an account id (its slug), or undefined for an unknown id. */
  usernameOf(accountId: string): string | undefined {
    return this.slugs.get(accountId);
  }

  /** Seconds a new session lives: the `expires_in` of a token the device flow issues. */
  static readonly sessionTtlSeconds = SESSION_TTL_MS / 1000;

  /**
   * A new session for an account whose password was checked (login, or the device flow's approval).
   * With `server`, one the server opens for its own requests: held apart from the account's (not
   * counted in {@link sessionCount}, never pushing out one of the account's own).
   */
  openSession(accountId: string, { server = false }: { server?: boolean } = {}): IssuedCredentials {
    const selector = randomBytes(SELECTOR_BYTES).toString("base64url");
    const authToken = selector + randomBytes(SECRET_BYTES).toString("base64url");
    this.sessions.add(selector, server ? `server:${accountId}` : accountId, {
      accountId,
      accountIdHash: sha256(accountId),
      tokenHash: sha256(authToken),
      expiresAt: Date.now() + SESSION_TTL_MS,
    });
    return { accountId, authToken, sessionId: selector };
  }

  /**
   * Ends the session `sessionId` names if it belongs to `accountId`, and opens a new one for the
   * account: a refresh replaces the access token it renews rather than adding one beside it, as
   * it replaces the refresh token (RFC 9700 section 4.14.2).
   */
  rotateSession(accountId: string, sessionId: string | undefined): IssuedCredentials {
    this.endSession(accountId, sessionId);
    return this.openSession(accountId);
  }

  /** Ends the session `sessionId` names (from {@link IssuedCredentials}) if it belongs to `accountId`. */
  endSession(accountId: string, sessionId: string | undefined): void {
    if (sessionId !== undefined && this.sessions.get(sessionId)?.accountId === accountId)
      this.sessions.delete(sessionId);
  }

  /** Sessions `accountId` holds (expired ones count until they are looked at or pushed out). */
  sessionCount(accountId: string): number {
    return this.sessions.countOf(accountId);
  }

  /** The live session a token opens (its selector finds it, its hash is compared in constant time). */
  private sessionOf(authToken: string): [string, Session] | undefined {
    if (authToken.length !== TOKEN_CHARS) return undefined;
    const selector = authToken.slice(0, SELECTOR_CHARS);
    const session = this.sessions.get(selector);
    if (!session) return undefined;
    if (session.expiresAt < Date.now()) {
      this.sessions.delete(selector);
      return undefined;
    }
    return timingSafeEqual(sha256(authToken), session.tokenHash) ? [selector, session] : undefined;
  }

  /**
   * The session's key when the token is valid and, for the id/token pair, belongs to `accountId`;
   * a Bearer token (`accountId` undefined) is the token alone.
   */
  private find(accountId: string | undefined, authToken: string): string | undefined {
    const found = this.sessionOf(authToken);
    if (!found) return undefined;
    if (accountId === undefined) return found[0];
    return timingSafeEqual(sha256(accountId), found[1].accountIdHash) ? found[0] : undefined;
  }

  /**
   * The account (`{ _id, slug }`) of a live session: the id/token pair, or a Bearer token alone
   * (`accountId` undefined). Undefined when not valid.
   */
  accountFor(accountId: string | undefined, authToken: string): { _id: string; slug: string } | undefined {
    const selector = this.find(accountId, authToken);
    if (selector === undefined) return undefined;
    const id = this.sessions.get(selector)!.accountId;
    return { _id: id, slug: this.slugs.get(id) ?? id };
  }

  /** Whether the id/token pair belongs to a live session. */
  verify(accountId: string, authToken: string): boolean {
    return this.find(accountId, authToken) !== undefined;
  }

  /** Every account: its id and username, in the order the accounts were given. */
  accountList(): { accountId: string; username: string }[] {
    return [...this.slugs].map(([accountId, username]) => ({ accountId, username }));
  }

  /** Ends the session (a Bearer token when `accountId` is undefined); false if it was not valid. */
  logout(accountId: string | undefined, authToken: string): boolean {
    const selector = this.find(accountId, authToken);
    if (selector === undefined) return false;
    this.sessions.delete(selector);
    return true;
  }
}
