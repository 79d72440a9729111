import { createHash } from "node:crypto";

/** Failed logins allowed per username and address within the window before 429. */
export const DEFAULT_MAX_FAILURES = 5;
/** The window failed logins are counted in. */
export const DEFAULT_WINDOW_MS = 15 * 60 * 1000;
/** Keys tracked at most; beyond that the oldest are forgotten, so memory stays bounded. */
const MAX_KEYS = 50_000;
/** Expired entries are swept at most this often (and on demand when the table is full). */
const SWEEP_INTERVAL_MS = 60_000;

/** An account locked out at one address, as {@link LoginThrottleOptions.onLockout} receives it. */
export interface Lockout {
  /**
   * The username tried, as the client sent it (the password never leaves the login handler): it
   * may hold control characters, so print it through `quoteForTerminal`, as `matframe serve` does.
   */
  username: string;
  /** The client address the failures came from. */
  address: string;
  /** Failed logins that caused it. */
  failures: number;
  /** Seconds until a login from there is allowed again (unless unlocked earlier). */
  retryAfterSeconds: number;
}

/** How failed logins are throttled. */
export interface LoginThrottleOptions {
  /** @default 5 */
  maxFailures?: number;
  /** @default 900000 (15 minutes) */
  windowMs?: number;
  /**
   * Called when a username gets locked out at an address (its last allowed failure), e.g. to tell
   * the teacher; `ServerHandle.unlock(username)` lifts it.
   * @default none (the lockout is logged)
   */
  onLockout?: (lockout: Lockout) => void;
}

/**
 * Counts failed logins per username and client address; after `maxFailures` within `windowMs`
 * further attempts (even with the right password) are refused until the oldest failure ages out.
 */
export class LoginThrottle {
  private readonly failures = new Map<string, number[]>();
  /** The last queued check per key; entries are removed when their queue drains. */
  private readonly queues = new Map<string, Promise<unknown>>();
  private readonly maxFailures: number;
  private readonly windowMs: number;
  private lastSweep = Date.now();

  constructor(options: LoginThrottleOptions = {}) {
    this.maxFailures = options.maxFailures ?? DEFAULT_MAX_FAILURES;
    this.windowMs = options.windowMs ?? DEFAULT_WINDOW_MS;
  }

  /** Seconds until another attempt is allowed, or 0 when one is allowed now. */
  retryAfterSeconds(username: string, address: string, now = Date.now()): number {
    const recent = this.recent(key(username, address), now);
    if (recent.length < this.maxFailures) return 0;
    return Math.max(1, Math.ceil((recent[0]! + this.windowMs - now) / 1000));
  }

  /** Runs `check` after every earlier check for the same username and address has settled. */
  async serialize<T>(username: string, address: string, check: () => Promise<T>): Promise<T> {
    const k = key(username, address);
    const previous = this.queues.get(k) ?? Promise.resolve();
    const current = previous.then(check, check);
    const settled = current.then(
      () => undefined,
      () => undefined,
    );
    this.queues.set(k, settled);
    try {
      return await current;
    } finally {
      if (this.queues.get(k) === settled) this.queues.delete(k);
    }
  }

  /** Counts a failed login; true when this failure locks the username out at this address. */
  recordFailure(username: string, address: string, now = Date.now()): boolean {
    const k = key(username, address);
    const recent = this.recent(k, now);
    recent.push(now);
    this.failures.delete(k);
    this.failures.set(k, recent);
    if (now - this.lastSweep >= SWEEP_INTERVAL_MS || this.failures.size > MAX_KEYS) this.sweep(now);
    if (this.failures.size > MAX_KEYS) this.failures.delete(this.failures.keys().next().value as string);
    return recent.length === this.maxFailures;
  }

  /** Failed logins that lock a username out at an address. */
  get limit(): number {
    return this.maxFailures;
  }

  /** How long failures count and a lockout lasts, in ms. */
  get window(): number {
    return this.windowMs;
  }

  /**
   * Forgets every failed login of `username`, at every address, so it may log in at once. Returns
   * at how many addresses it was locked out.
   */
  unlock(username: string, now = Date.now()): number {
    const prefix = usernamePart(username);
    let locked = 0;
    for (const k of [...this.failures.keys()]) {
      if (!k.startsWith(prefix)) continue;
      if (this.recent(k, now).length >= this.maxFailures) locked += 1;
      this.failures.delete(k);
    }
    return locked;
  }

  /** Keys tracked now (for tests and docs/security.md's figures). */
  get size(): number {
    return this.failures.size;
  }

  /** Forgets every key whose failures have all aged out of the window. */
  sweep(now = Date.now()): void {
    this.lastSweep = now;
    for (const [k, times] of this.failures) {
      // A key is only stored with a failure in it; an empty list would compare NaN and stay.
      if (now - (times.at(-1) ?? Number.NaN) >= this.windowMs) this.failures.delete(k);
    }
  }

  recordSuccess(username: string, address: string): void {
    this.failures.delete(key(username, address));
  }

  private recent(k: string, now: number): number[] {
    const times = (this.failures.get(k) ?? []).filter((t) => now - t < this.windowMs);
    if (times.length === 0) this.failures.delete(k);
    return times;
  }
}

/**
 * A fixed-size key: a username of any length (up to the body limit) must not be kept whole, or
 * 20,000 logins with 8 KiB names hold 160 MiB. The username's part comes first, so that all of one
 * username's entries can be found to unlock it.
 */
function key(username: string, address: string): string {
  return `${usernamePart(username)}${digest(address)}`;
}

function usernamePart(username: string): string {
  return `${digest(username)}.`;
}

/** 128 bits of SHA-256, base64url: 22 characters. */
function digest(text: string): string {
  return createHash("sha256").update(text).digest("base64url").slice(0, 22);
}
