// Wrong user codes typed on the verification page, counted per client address. A user code is
// short enough for a person to type (about 34.5 bits), so guessing is bounded by rate, as RFC 8628
// section 5.1 asks: without a limit, 300 random codes took 0.6 s.
import { addressKey } from "./address-key";

/** Default of {@link UserCodeLimits.maxWrongCodes}. */
export const DEFAULT_MAX_WRONG_CODES = 30;
/** Default of {@link UserCodeLimits.windowMs}: 10 minutes. */
export const DEFAULT_WRONG_CODE_WINDOW_MS = 10 * 60 * 1000;
/** Addresses tracked at most; the oldest is forgotten beyond it, so memory stays bounded. */
const MAX_ADDRESSES = 50_000;

/** How many wrong user codes one address may send. */
export interface UserCodeLimits {
  /**
   * Wrong (unknown, expired or answered) user codes one client address (an IPv6 /64) may send
   * within `windowMs`; past it the page answers 429 with `Retry-After` until the oldest ages out.
   * A class behind one router shares the allowance: a typo each is well within it.
   * @default 30
   */
  maxWrongCodes?: number;
  /** @default 600000 (10 minutes) */
  windowMs?: number;
}

/** Times of wrong user codes per address, within the window. */
export class CodeAttempts {
  private readonly wrong = new Map<string, number[]>();
  private readonly max: number;
  private readonly windowMs: number;

  constructor(limits: UserCodeLimits = {}) {
    this.max = limits.maxWrongCodes ?? DEFAULT_MAX_WRONG_CODES;
    this.windowMs = limits.windowMs ?? DEFAULT_WRONG_CODE_WINDOW_MS;
  }

  /** Seconds until `address` may try a code again, or 0 when it may now. */
  retryAfterSeconds(address: string, now = Date.now()): number {
    const recent = this.recent(addressKey(address), now);
    if (recent.length < this.max) return 0;
    return Math.max(1, Math.ceil((recent[recent.length - this.max]! + this.windowMs - now) / 1000));
  }

  /** Counts a wrong code from `address`. */
  recordWrong(address: string, now = Date.now()): void {
    const key = addressKey(address);
    const recent = this.recent(key, now);
    recent.push(now);
    // Kept in order of last use, so the one forgotten at the bound is the longest quiet.
    this.wrong.delete(key);
    this.wrong.set(key, recent.slice(-this.max));
    if (this.wrong.size > MAX_ADDRESSES) this.wrong.delete(this.wrong.keys().next().value as string);
  }

  private recent(key: string, now: number): number[] {
    const times = (this.wrong.get(key) ?? []).filter((t) => now - t < this.windowMs);
    if (times.length === 0) this.wrong.delete(key);
    return times;
  }
}
