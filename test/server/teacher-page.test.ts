// The teacher's page over HTTP: only with the key, the class's activity, Unlock behind a CSRF
// field, everything a student sent escaped; the request log names the user; a login leaves no 404.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServerHandle } from "../../src/server";
import { login, PREFIX, startTestServer } from "./helpers";

const USERS = ["alice:wonderland-42", "bob:battery staple"];
let server: ServerHandle;
let root: string;
const logLines: string[] = [];

beforeAll(async () => {
  server = await startTestServer({
    users: USERS,
    teacherPage: true,
    loginThrottle: { maxFailures: 2 },
    log: (line) => logLines.push(line),
  });
  root = new URL(server.baseUrl).origin;
});
afterAll(async () => {
  await server?.close();
});

function tryLogin(username: string, password: string): Promise<number> {
  return fetch(`${server.baseUrl}/login`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ username, password }),
  }).then(async (res) => {
    await res.arrayBuffer();
    return res.status;
  });
}

/** Opens the teacher's address as a browser does: the key's redirect sets the session cookie. */
async function teacherSession(): Promise<{ cookie: string; html: string; csrf: string }> {
  const opened = await fetch(server.teacherUrl!, { redirect: "manual" });
  expect(opened.status).toBe(303);
  expect(opened.headers.get("location")).toBe("/teacher");
  const setCookie = opened.headers.get("set-cookie") ?? "";
  expect(setCookie).toMatch(/^matframe_teacher=[A-Za-z0-9_-]{43}; Path=\/teacher; HttpOnly; SameSite=Strict$/);
  const [cookie = ""] = setCookie.split(";");
  const page = await fetch(`${root}/teacher`, { headers: { cookie } });
  expect(page.status).toBe(200);
  const html = await page.text();
  return { cookie, html, csrf: /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? "" };
}

/** The page at `address` (a path under the server's origin), as the teacher's browser loads it. */
async function shownAt(address: string, cookie: string): Promise<string> {
  const page = await fetch(`${root}${address}`, { headers: { cookie } });
  expect(page.status).toBe(200);
  return page.text();
}

describe("the teacher's page", () => {
  it("is only for the key's holder, cannot be framed, runs no script and reloads itself", async () => {
    expect(server.teacherUrl).toMatch(new RegExp(`^${root}/teacher\\?key=[A-Za-z0-9_-]{43}$`));
    const anonymous = await fetch(`${root}/teacher`);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.text()).toContain("Open the address");
    const wrongKey = await fetch(`${root}/teacher?key=${"A".repeat(43)}`, { redirect: "manual" });
    expect(wrongKey.status).toBe(401);
    const { cookie, html } = await teacherSession();
    const page = await fetch(`${root}/teacher`, { headers: { cookie } });
    await page.arrayBuffer();
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(page.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(page.headers.get("x-frame-options")).toBe("DENY");
    expect(html).not.toContain("<script");
    // The reload goes to the page itself: an action's notice in the address is not reloaded with it.
    expect(html).toContain('<meta http-equiv="refresh" content="5; url=/teacher">');
    // The key is in no log line, nor the query string of the address that held it.
    expect(logLines.join("\n")).not.toContain(new URL(server.teacherUrl!).searchParams.get("key")!);
    expect((await fetch(`${root}/teacher`, { method: "DELETE" })).status).toBe(405);
  });

  it("lists every account with its sessions, requests and writes, and names the user in the request log", async () => {
    const bob = await login(server, "bob", "battery staple");
    const created = await fetch(`${server.baseUrl}/materials/create`, {
      method: "PUT",
      headers: {
        "content-type": "application/json",
        "x-account-id": bob["X-Account-Id"],
        "x-auth-token": bob["X-Auth-Token"],
      },
      body: JSON.stringify({
        name: "bob's silicon",
        basis: { elements: [{ id: 0, value: "Si" }], coordinates: [{ id: 0, value: [0, 0, 0] }], units: "crystal" },
        lattice: {
          type: "FCC",
          a: 3.87,
          b: 3.87,
          c: 3.87,
          alpha: 60,
          beta: 60,
          gamma: 60,
          units: { length: "angstrom", angle: "degree" },
        },
      }),
    });
    expect(created.status).toBe(200);
    const { html } = await teacherSession();
    const row = (name: string) => new RegExp(`<tr data-username="${name}">([\\s\\S]*?)</tr>`).exec(html)?.[1] ?? "";
    expect(row("alice")).toContain("not signed in");
    expect(row("bob")).toContain("signed in");
    // Sessions 1, requests 2 (login and create), writes 1 (the create; a login is no write).
    expect(row("bob")).toMatch(/<td class="n">1<\/td><td class="n">2<\/td><td class="n">1<\/td>/);
    expect(row("bob")).toContain(`PUT ${PREFIX}/materials/create`);
    expect(logLines.some((l) => new RegExp(`^PUT ${PREFIX}/materials/create 200 \\d+ms by bob$`).test(l))).toBe(true);
    expect(logLines.some((l) => new RegExp(`^POST ${PREFIX}/login 200 \\d+ms by bob$`).test(l))).toBe(true);
  });

  it("shows a locked-out student, and Unlock (with the page's CSRF field) lets them in", async () => {
    expect(await tryLogin("alice", "typo-1")).toBe(401);
    expect(await tryLogin("alice", "typo-2")).toBe(401);
    expect(await tryLogin("<b>mallory</b>\u009b", "x")).toBe(401);
    expect(await tryLogin("<b>mallory</b>\u009b", "y")).toBe(401);
    const { cookie, html, csrf } = await teacherSession();
    expect(html).toMatch(/<tr data-username="alice">[\s\S]*?locked out<\/span> at 127\.0\.0\.1 for 15 min/);
    // A name that is no account is listed too, escaped: HTML, and its control characters written out.
    expect(html).toContain("<code>&#60;b&#62;mallory&#60;/b&#62;\\u009b</code>");
    expect(html).not.toContain("<b>mallory");
    expect(html).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
    const unlock = (fields: Record<string, string>, headers: Record<string, string> = {}) =>
      fetch(`${root}/teacher/unlock`, {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded", cookie, ...headers },
        body: new URLSearchParams(fields),
      });
    expect((await unlock({ username: "alice" })).status).toBe(403);
    expect((await unlock({ username: "alice", csrf }, { origin: "https://evil.example" })).status).toBe(403);
    const anonymous = await fetch(`${root}/teacher/unlock`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ username: "alice", csrf }),
    });
    expect(anonymous.status).toBe(401);
    expect(await tryLogin("alice", "wonderland-42")).toBe(429);
    const done = await unlock({ username: "alice", csrf });
    expect(done.status).toBe(303);
    expect(done.headers.get("location")).toMatch(/^\/teacher\?notice=[A-Za-z0-9_-]{22}$/);
    expect(await tryLogin("alice", "wonderland-42")).toBe(200);
    const after = await shownAt(done.headers.get("location")!, cookie);
    expect(after).toContain("Unlocked &#34;alice&#34;: they can log in again now.");
    expect(after).not.toMatch(/<tr data-username="alice">[\s\S]*?locked out<\/span>[\s\S]*?<\/tr>/);
    // Unlocking again says there was nothing to unlock, rather than that it worked.
    const again = await unlock({ username: "alice", csrf });
    expect(await shownAt(again.headers.get("location")!, cookie)).toContain(
      "&#34;alice&#34; is not locked out (any more): nothing was unlocked.",
    );
  });

  it("shows an Unlock's notice once, and none for an address it did not make", async () => {
    expect(await tryLogin("bob", "typo-1")).toBe(401);
    expect(await tryLogin("bob", "typo-2")).toBe(401);
    const { cookie, csrf } = await teacherSession();
    const done = await fetch(`${root}/teacher/unlock`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie },
      body: new URLSearchParams({ username: "bob", csrf }),
    });
    const location = done.headers.get("location")!;
    expect(await shownAt(location, cookie)).toContain("Unlocked &#34;bob&#34;");
    // Bob locks himself out again: the same address, reloaded, shows that and no stale "Unlocked".
    expect(await tryLogin("bob", "typo-3")).toBe(401);
    expect(await tryLogin("bob", "typo-4")).toBe(401);
    const reloaded = await shownAt(location, cookie);
    expect(reloaded).not.toContain('class="notice"');
    expect(reloaded).toMatch(/<tr data-username="bob">[\s\S]*?locked out<\/span>/);
    // The address the page used to carry its notice in, and an id never given, say nothing.
    for (const address of ["/teacher?unlocked=anyname", "/teacher?notLocked=bob", "/teacher?notice=made-up"])
      expect(await shownAt(address, cookie), address).not.toContain('class="notice"');
    expect(server.unlock("bob")).toBe(1);
  });

  it("unlocks a name with a carriage return and a bidirectional override as a browser sends its form", async () => {
    const name = "car\rol\u202e";
    expect(await tryLogin(name, "x")).toBe(401);
    expect(await tryLogin(name, "y")).toBe(401);
    const { cookie, html, csrf } = await teacherSession();
    expect(html).toContain("<code>car\\u000dol\\u202e</code>");
    expect(html).not.toMatch(/[\r\u202e]/);
    // The form's hidden value, as the browser reads it from the page and sends it.
    const hidden = /<li><code>car[^<]*<\/code>[^<]*<form[^>]*>.*?name="username" value="([^"]+)"/.exec(html)?.[1];
    expect(hidden).toBe("&#34;car\\rol\\u202e&#34;");
    const done = await fetch(`${root}/teacher/unlock`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie },
      body: new URLSearchParams({ username: hidden!.replaceAll("&#34;", '"'), csrf }),
    });
    const after = await shownAt(done.headers.get("location")!, cookie);
    expect(after).toContain("Unlocked &#34;car\\u000dol\\u202e&#34;");
    expect(after).not.toContain("<code>car");
  });

  it("lists and unlocks a name with a lone surrogate, which no URL can carry", async () => {
    const name = "half\ud800";
    // JSON carries it (a form would send U+FFFD instead).
    const jsonLogin = (password: string) =>
      fetch(`${server.baseUrl}/login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ username: name, password }),
      }).then((res) => res.status);
    expect(await jsonLogin("x")).toBe(401);
    expect(await jsonLogin("y")).toBe(401);
    expect(await jsonLogin("w")).toBe(429);
    const { cookie, html, csrf } = await teacherSession();
    expect(html).toContain("<code>half\\ud800</code>");
    const hidden = /<li><code>half[^<]*<\/code>[^<]*<form[^>]*>.*?name="username" value="([^"]+)"/.exec(html)?.[1];
    const done = await fetch(`${root}/teacher/unlock`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie },
      body: new URLSearchParams({ username: hidden!.replaceAll("&#34;", '"'), csrf }),
    });
    // The notice stays on the server, so it names the very name unlocked (no URL could carry it).
    expect(await shownAt(done.headers.get("location")!, cookie)).toContain("Unlocked &#34;half\\ud800&#34;");
    expect(await jsonLogin("z")).toBe(401);
  });
});

describe("the request log", () => {
  it("shows no 404 for the client's probe of the API's root at login", async () => {
    const res = await fetch(`${server.baseUrl}/`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: { apiVersion: string } }).data.apiVersion).toBe("2018-10-01");
    expect(logLines.filter((l) => / 404 /.test(l))).toEqual([]);
  });
});
