// What the teacher's page shows of each student: requests, writes, when last seen, and who is
// locked out. Counted as requests finish; kept per account (only accounts the server was given)
// and for a bounded number of lockouts, so memory does not grow with traffic.
import type { IncomingMessage } from "node:http";
import type { Lockout } from "../auth/login-throttle";

/** One account's requests since the server started. */
export interface AccountActivity {
  requests: number;
  /** Requests that changed something (not GET or HEAD) and succeeded. */
  writes: number;
  /** Milliseconds since the epoch of its last request. */
  lastSeenAt?: number;
  /** The method and path of its last request (no query string: it may hold private values). */
  lastRequest?: string;
}

/** Lockouts remembered at most (the oldest forgotten first); a lockout is over in `--lockout` anyway. */
const MAX_LOCKOUTS = 1_000;

/** Requests, writes and lockouts per account, for the teacher's page and the request log. */
export class ClassActivity {
  /** The signed-in caller of a request in flight, once a handler has checked its credentials. */
  private readonly callers = new WeakMap<IncomingMessage, { accountId: string; username: string }>();
  private readonly byAccount = new Map<string, AccountActivity>();
  /** By username and address. */
  private readonly lockouts = new Map<string, Lockout>();

  /** Records who sent `req` (a handler found its session, or its login succeeded). */
  noteCaller(req: IncomingMessage, accountId: string, username: string): void {
    this.callers.set(req, { accountId, username });
  }

  /**
   * Counts a finished request for its caller; returns the caller's username (for the request
   * log), or undefined for a request that named no account.
   */
  finish(req: IncomingMessage, path: string, status: number, now = Date.now()): string | undefined {
    const caller = this.callers.get(req);
    if (!caller) return undefined;
    let activity = this.byAccount.get(caller.accountId);
    if (!activity) this.byAccount.set(caller.accountId, (activity = { requests: 0, writes: 0 }));
    activity.requests += 1;
    const method = req.method ?? "GET";
    if (method !== "GET" && method !== "HEAD" && status < 400 && !path.endsWith("/login")) activity.writes += 1;
    activity.lastSeenAt = now;
    activity.lastRequest = `${method} ${path}`;
    return caller.username;
  }

  /** What `accountId` has done (zeros when nothing yet). */
  of(accountId: string): AccountActivity {
    return this.byAccount.get(accountId) ?? { requests: 0, writes: 0 };
  }

  noteLockout(lockout: Lockout): void {
    const key = `${lockout.username}\u0000${lockout.address}`;
    this.lockouts.delete(key);
    this.lockouts.set(key, lockout);
    if (this.lockouts.size > MAX_LOCKOUTS) this.lockouts.delete(this.lockouts.keys().next().value as string);
  }

  /**
   * The lockouts still in force, each with its seconds left as `secondsLeft` reports them (0:
   * over or lifted, and then forgotten here).
   */
  lockoutsNow(secondsLeft: (username: string, address: string) => number): Lockout[] {
    const now: Lockout[] = [];
    for (const [key, lockout] of this.lockouts) {
      const left = secondsLeft(lockout.username, lockout.address);
      if (left > 0) now.push({ ...lockout, retryAfterSeconds: left });
      else this.lockouts.delete(key);
    }
    return now;
  }
}
