// The teacher's page (`/teacher`): the class at a glance, and Unlock for a locked-out student.
// Only for a browser that opened the address `matframe serve` printed (its key); forms carry a
// CSRF field and must come from this page; the page runs no script and cannot be framed.
import type { IncomingMessage } from "node:http";
import { csrfField, csrfMatches, PAGE_HEADERS, readCookie } from "../auth/verification-page";
import { methodNotAllowed, notFound } from "../http/http-errors";
import { parseParams } from "../http/request-input";
import { TEACHER_COOKIE, type TeacherAccess } from "../teacher/teacher-access";
import { renderClassPage, renderTeacherSignIn, type StudentRow } from "../teacher/teacher-page";
import { html, readForm, sameOrigin } from "./oidc-handlers";
import type { Reply, ServerState } from "./reply";

function redirect(location: string, headers: Record<string, string> = {}): Reply {
  return {
    status: 303,
    body: undefined,
    json: Buffer.alloc(0),
    headers: { ...PAGE_HEADERS, Location: location, ...headers },
  };
}

function minutes(seconds: number): number {
  return Math.max(1, Math.ceil(seconds / 60));
}

/** Every account's row: sessions, requests, writes, jobs by status, lockouts. */
function classRows(state: ServerState): {
  students: StudentRow[];
  others: { username: string; address: string; minutesLeft: number }[];
} {
  const jobs = new Map<string, Record<string, number>>();
  for (const job of state.written.recordsOf("jobs")) {
    const owner = (job.owner as { _id?: unknown } | undefined)?._id;
    if (typeof owner !== "string") continue;
    const counts = jobs.get(owner) ?? {};
    const status = typeof job.status === "string" ? job.status : "unknown";
    counts[status] = (counts[status] ?? 0) + 1;
    jobs.set(owner, counts);
  }
  const lockouts = state.activity.lockoutsNow((username, address) =>
    state.throttle.retryAfterSeconds(username, address),
  );
  const accounts = state.auth.accountList();
  const names = new Set(accounts.map((a) => a.username));
  const students = accounts.map(({ accountId, username }): StudentRow => {
    const activity = state.activity.of(accountId);
    return {
      username,
      sessions: state.auth.sessionCount(accountId),
      requests: activity.requests,
      writes: activity.writes,
      jobs: jobs.get(accountId) ?? {},
      lastSeen: activity.lastSeenAt === undefined ? undefined : new Date(activity.lastSeenAt).toISOString(),
      lastRequest: activity.lastRequest,
      lockouts: lockouts
        .filter((l) => l.username === username)
        .map((l) => ({ address: l.address, minutesLeft: minutes(l.retryAfterSeconds) })),
    };
  });
  const others = lockouts
    .filter((l) => !names.has(l.username))
    .map((l) => ({ username: l.username, address: l.address, minutesLeft: minutes(l.retryAfterSeconds) }));
  return { students, others };
}

function signedIn(req: IncomingMessage, teacher: TeacherAccess): boolean {
  return teacher.sessionMatches(readCookie(req.headers.cookie, TEACHER_COOKIE));
}

function classPage(req: IncomingMessage, state: ServerState, teacher: TeacherAccess, search: string): Reply {
  let params = new Map<string, string>();
  try {
    params = parseParams(search, "query string");
  } catch {
    // A mangled address still gets the page (or the note that it is the teacher's).
  }
  const key = params.get("key");
  if (key !== undefined) {
    // The key opens the session and leaves the address bar (and history) at once.
    if (teacher.keyMatches(key)) return redirect("/teacher", { "Set-Cookie": teacher.sessionCookie() });
    return html(401, renderTeacherSignIn());
  }
  if (!signedIn(req, teacher)) return html(401, renderTeacherSignIn());
  const { students, others } = classRows(state);
  return html(
    200,
    renderClassPage({
      students,
      otherLockouts: others,
      csrf: csrfField(teacher.csrfKey, teacher.sessionValue),
      at: new Date().toISOString().replace("T", " ").slice(0, 19),
      notice: teacher.takeNotice(params.get("notice")),
    }),
  );
}

async function unlock(req: IncomingMessage, state: ServerState, teacher: TeacherAccess): Promise<Reply> {
  const fields = await readForm(req);
  if (!(fields instanceof Map)) return fields;
  const cookie = readCookie(req.headers.cookie, TEACHER_COOKIE);
  if (!signedIn(req, teacher)) return html(401, renderTeacherSignIn());
  if (!sameOrigin(req) || !csrfMatches(teacher.csrfKey, cookie, fields.get("csrf")))
    return html(
      403,
      renderTeacherSignIn().replace(
        "This page is the teacher's.",
        "This form expired or came from another site; reload the page.",
      ),
    );
  const username = decodedName(fields.get("username") ?? "");
  const name = `"${username.slice(0, 256)}"`;
  // The notice says what happened: a name no longer locked out (its lockout ran out) is said so.
  // It stays on the server, and the page shows it once: the address carries only its id.
  const notice =
    state.throttle.unlock(username) > 0
      ? `Unlocked ${name}: they can log in again now.`
      : `${name} is not locked out (any more): nothing was unlocked.`;
  return redirect(`/teacher?notice=${teacher.leaveNotice(notice)}`);
}

/** The page sends names as JSON strings (see teacher-page.ts); one sent otherwise is taken as it is. */
function decodedName(sent: string): string {
  try {
    const name: unknown = JSON.parse(sent);
    return typeof name === "string" ? name : sent;
  } catch {
    return sent;
  }
}

/** Dispatches `/teacher` and `/teacher/unlock`; 404 when the server has no teacher's page. */
export async function routeTeacher(
  req: IncomingMessage,
  rest: string[],
  method: string,
  search: string,
  state: ServerState,
): Promise<Reply> {
  const teacher = state.teacher;
  if (teacher === undefined)
    throw notFound("This server has no teacher's page (startServer's teacherPage option, on in matframe serve).");
  if (rest.length === 0) {
    if (method !== "GET" && method !== "HEAD") throw methodNotAllowed(method, "/teacher", ["GET", "HEAD"]);
    return classPage(req, state, teacher, search);
  }
  if (rest.length === 1 && rest[0] === "unlock") {
    if (method !== "POST") throw methodNotAllowed(method, "/teacher/unlock", ["POST"]);
    return unlock(req, state, teacher);
  }
  throw notFound("The teacher's page is /teacher (and its form posts to /teacher/unlock).");
}
