// The device flow's verification page (RFC 8628 section 3.3): where a person signs in with their
// name and password and approves the code their device shows. A plain HTML form, no script.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/** The cookie that binds a form to the browser that loaded it (double-submit, signed). */
export const CSRF_COOKIE = "matframe_device_csrf";

/**
 * What the page may do: no script at all, its own inline style, forms posted only to itself,
 * never framed (so it cannot be overlaid to trick a click), its URL (with the code) sent to no other site.
 */
export const PAGE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  "Content-Type": "text/html; charset=utf-8",
  "Cache-Control": "no-store",
  "Content-Security-Policy":
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  "X-Frame-Options": "DENY",
  // Not "no-referrer": with it, browsers send `Origin: null` on the form's POST, which the
  // same-origin check must refuse. The page links nowhere else, so its URL goes nowhere else.
  "Referrer-Policy": "same-origin",
  "X-Content-Type-Options": "nosniff",
});

/** Escapes text for HTML element content and double-quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A new random CSRF cookie value. */
export function newCsrfSecret(): string {
  return randomBytes(24).toString("base64url");
}

/** The form field that goes with a cookie value: a MAC of it, so only this server can make one. */
export function csrfField(key: Buffer, cookieValue: string): string {
  return createHmac("sha256", key).update(`device-form\n${cookieValue}`).digest("base64url");
}

/** Whether the form's field matches the browser's cookie (both present, compared in constant time). */
export function csrfMatches(key: Buffer, cookieValue: string | undefined, field: string | undefined): boolean {
  if (!cookieValue || !field) return false;
  const expected = Buffer.from(csrfField(key, cookieValue));
  const given = Buffer.from(field);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/** The `Set-Cookie` header for a CSRF cookie: HTTP only, same-site only, for the flow's pages only. */
export function csrfCookieHeader(value: string, secure: boolean): string {
  return `${CSRF_COOKIE}=${value}; Path=/oidc; HttpOnly; SameSite=Strict${secure ? "; Secure" : ""}`;
}

/** Reads one cookie from a `Cookie` header. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

const STYLE = `body{font-family:system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem;line-height:1.4}
label{display:block;margin-top:1rem;font-weight:600}input{width:100%;padding:.4rem;font-size:1rem;box-sizing:border-box}
.buttons{margin-top:1.5rem;display:flex;gap:1rem}button{padding:.5rem 1.2rem;font-size:1rem}
.error{color:#a00;font-weight:600}.code{font-family:monospace;font-size:1.3rem;letter-spacing:.1em}`;

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · matframe local platform</title><style>${STYLE}</style></head>
<body><main><h1>${escapeHtml(title)}</h1>
${body}
</main></body></html>`;
}

/** What the form shows. */
export interface FormView {
  /** The code from the link or as typed, shown back so the person compares it with their device. */
  userCode: string;
  username?: string;
  /** Said above the form: what went wrong with the last attempt. */
  error?: string;
  csrf: string;
}

/** The sign-in and approval form. */
export function renderForm(view: FormView): string {
  const error = view.error ? `<p class="error" role="alert">${escapeHtml(view.error)}</p>` : "";
  return page(
    "Sign in to approve a device",
    `<p>A program asked to sign in to this platform as you. Approve only if the code below is the one it shows you; sign in to approve or to deny it.</p>
${error}<form method="post" action="/oidc/device">
<input type="hidden" name="csrf" value="${escapeHtml(view.csrf)}">
<label for="user_code">Code shown on your device</label>
<input id="user_code" name="user_code" class="code" required autocomplete="off" autocapitalize="characters" value="${escapeHtml(view.userCode)}">
<label for="username">Username</label>
<input id="username" name="username" autocomplete="username" value="${escapeHtml(view.username ?? "")}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password">
<div class="buttons"><button type="submit" name="action" value="approve">Approve</button>
<button type="submit" name="action" value="deny" formnovalidate>Deny</button></div>
</form>`,
  );
}

/** The page after an answer. */
export function renderDone(approved: boolean): string {
  return approved
    ? page(
        "Device approved",
        `<p role="status">You are signed in on your device. You can close this page and return to it.</p>`,
      )
    : page("Device denied", `<p role="status">The device was not signed in. You can close this page.</p>`);
}
