// Who may open the teacher's page: whoever holds the key `matframe serve` prints at start. The
// key opens a browser session (an HttpOnly, same-site cookie) and leaves the address bar at once,
// so it is not left on screen for the class, in the browser's history or in a Referer.
// It also keeps what the page's last action did until the page has shown it, once.
import { randomBytes, timingSafeEqual } from "node:crypto";

/** The cookie of the teacher's browser session. */
export const TEACHER_COOKIE = "matframe_teacher";

/** Notices kept for a page not (yet) loaded: a redirect nobody followed leaves one behind. */
const MAX_NOTICES = 16;

function same(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** The teacher's key, the session cookie it opens, and the key that signs the page's forms. */
export class TeacherAccess {
  /** 32 random bytes, base64url: the `key` of the page's address as printed at start. */
  readonly key = randomBytes(32).toString("base64url");
  /** The cookie's value: random too, so the key itself is never stored in the browser. */
  private readonly session = randomBytes(32).toString("base64url");
  /** Signs the page's CSRF fields. */
  readonly csrfKey = randomBytes(32);
  /** What an action did, by the id its redirect carries, until the page shows it. */
  private readonly notices = new Map<string, string>();

  /** Whether `given` is the key (compared in constant time). */
  keyMatches(given: string | undefined): boolean {
    return given !== undefined && same(given, this.key);
  }

  /** Whether a request's cookie value is the teacher's session. */
  sessionMatches(cookie: string | undefined): boolean {
    return cookie !== undefined && same(cookie, this.session);
  }

  /** The `Set-Cookie` header that opens the session: for the page's paths only, never sent cross-site. */
  sessionCookie(): string {
    return `${TEACHER_COOKIE}=${this.session}; Path=/teacher; HttpOnly; SameSite=Strict`;
  }

  /** The cookie's value, which the page's CSRF field is a MAC of. */
  get sessionValue(): string {
    return this.session;
  }

  /**
   * Keeps what an action did for the page to show once, and returns the id the redirect's address
   * carries. The address holds no text of its own, so `/teacher?...` typed or kept in the history
   * cannot make the page claim something that did not happen, and a reload shows it no more.
   */
  leaveNotice(text: string): string {
    const id = randomBytes(16).toString("base64url");
    this.notices.set(id, text);
    const oldest = this.notices.keys().next().value;
    if (this.notices.size > MAX_NOTICES && oldest !== undefined) this.notices.delete(oldest);
    return id;
  }

  /** The notice left under `id`, forgotten as it is taken; undefined for an id shown already or never left. */
  takeNotice(id: string | undefined): string | undefined {
    if (id === undefined) return undefined;
    const text = this.notices.get(id);
    this.notices.delete(id);
    return text;
  }
}
