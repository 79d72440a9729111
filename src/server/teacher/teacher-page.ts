// The teacher's page: the class at a glance. Plain HTML, no script (the same policy as the
// verification page); it reloads itself every few seconds, which keeps it live without script.
// The reload goes to `/teacher` itself, so an action's notice (`?notice=...`) is shown once.
import { escapeHtml } from "../auth/verification-page";
import { escapeControls } from "../../terminal-text";

/**
 * What a student chose (a name, a request's path, a job's status) as the page shows it: HTML
 * escaped, and its control and format characters written out as `\uXXXX`, so neither a browser
 * (a bidirectional override reorders what is shown) nor a terminal the page is read in (curl)
 * acts on them.
 */
function shown(text: string): string {
  return escapeHtml(escapeControls(text));
}

/** Seconds between reloads of the page. */
export const REFRESH_SECONDS = 5;

/** One student's row. */
export interface StudentRow {
  username: string;
  /** Sessions open (logins and signed-in devices). */
  sessions: number;
  requests: number;
  writes: number;
  /** Jobs by status, e.g. `{ submitted: 1, finished: 3 }`. */
  jobs: Record<string, number>;
  lastSeen?: string;
  lastRequest?: string;
  /** Addresses it is locked out at, with minutes left. */
  lockouts: { address: string; minutesLeft: number }[];
}

/** What the page shows. */
export interface ClassView {
  students: StudentRow[];
  /** Locked-out names that are no account (typos, or someone guessing). */
  otherLockouts: { username: string; address: string; minutesLeft: number }[];
  /** The form field that proves a POST came from this page (a MAC of the session cookie). */
  csrf: string;
  /** When the page was made, as shown. */
  at: string;
  /** Said at the top: what the last action did. */
  notice?: string;
}

const STYLE = `body{font-family:system-ui,sans-serif;margin:2rem;line-height:1.4}
table{border-collapse:collapse;margin-top:1rem}th,td{border-bottom:1px solid #ccc;padding:.35rem .7rem;text-align:left;vertical-align:top}
th{background:#f4f4f4}td.n{text-align:right;font-variant-numeric:tabular-nums}.locked{color:#a00;font-weight:600}
form{display:inline;margin-left:.5rem}button{font-size:.9rem;padding:.15rem .6rem}.notice{background:#eef7ee;padding:.4rem .7rem}
.muted{color:#666}code{font-size:.9em}`;

/**
 * The unlock button. The name goes as a JSON string of ASCII only (every other character as a
 * `\uXXXX` escape), which the page shows nowhere and no terminal acts on: a browser sends a
 * form's line breaks as CRLF, so a name with a lone CR sent as it is would never match its
 * lockout (teacher-handlers.ts reads it back).
 */
function unlockForm(username: string, csrf: string): string {
  return `<form method="post" action="/teacher/unlock"><input type="hidden" name="csrf" value="${escapeHtml(csrf)}"><input type="hidden" name="username" value="${escapeHtml(asciiJson(username))}"><button type="submit" aria-label="Unlock ${shown(username)}">Unlock</button></form>`;
}

function asciiJson(text: string): string {
  return JSON.stringify(text).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

function jobsText(jobs: Record<string, number>): string {
  const entries = Object.entries(jobs);
  if (entries.length === 0) return "0";
  return entries.map(([status, count]) => `${count} ${shown(status)}`).join(", ");
}

function lockoutText(lockouts: StudentRow["lockouts"]): string {
  return lockouts.map((l) => `at ${shown(l.address)} for ${l.minutesLeft} min`).join("; ");
}

function studentRow(row: StudentRow, csrf: string): string {
  const status =
    row.lockouts.length > 0
      ? `<span class="locked">locked out</span> ${lockoutText(row.lockouts)}${unlockForm(row.username, csrf)}`
      : row.sessions > 0
        ? "signed in"
        : `<span class="muted">not signed in</span>`;
  return `<tr data-username="${shown(row.username)}"><th scope="row">${shown(row.username)}</th><td>${status}</td>
<td class="n">${row.sessions}</td><td class="n">${row.requests}</td><td class="n">${row.writes}</td><td>${jobsText(row.jobs)}</td>
<td>${row.lastSeen ? `${shown(row.lastSeen)}<br><code>${shown(row.lastRequest ?? "")}</code>` : `<span class="muted">never</span>`}</td></tr>`;
}

/** The whole page. */
export function renderClassPage(view: ClassView): string {
  const others =
    view.otherLockouts.length === 0
      ? ""
      : `<h2>Locked-out names that are no account</h2><ul>${view.otherLockouts
          .map(
            (l) =>
              `<li><code>${shown(l.username)}</code> at ${shown(l.address)} for ${l.minutesLeft} min${unlockForm(l.username, view.csrf)}</li>`,
          )
          .join("")}</ul>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="refresh" content="${REFRESH_SECONDS}; url=/teacher">
<title>The class at a glance · matframe local platform</title><style>${STYLE}</style></head>
<body><main><h1>The class at a glance</h1>
<p class="muted">As of ${escapeHtml(view.at)}; this page reloads every ${REFRESH_SECONDS} s. Only you have its address: do not show it to the class.</p>
${view.notice ? `<p class="notice" role="status">${shown(view.notice)}</p>` : ""}
<table><caption>${view.students.length} accounts</caption>
<thead><tr><th scope="col">Account</th><th scope="col">Now</th><th scope="col">Sessions</th><th scope="col">Requests</th><th scope="col">Writes</th><th scope="col">Jobs</th><th scope="col">Last request</th></tr></thead>
<tbody>
${view.students.map((row) => studentRow(row, view.csrf)).join("\n")}
</tbody></table>
${others}
</main></body></html>`;
}

/** The page a browser without the teacher's session gets. */
export function renderTeacherSignIn(): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>The class at a glance · matframe local platform</title><style>${STYLE}</style></head>
<body><main><h1>The class at a glance</h1>
<p>This page is the teacher's. Open the address <code>matframe serve</code> printed when it started (it holds a key), in this browser.</p>
</main></body></html>`;
}
