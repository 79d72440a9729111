// The device flow over plain HTTP, as a browser would send it: load the verification page (its
// CSRF cookie and field), then post the form. The browser itself is in browser.ts.
import { request, type IncomingHttpHeaders } from "node:http";

/** The platform's root (`http://127.0.0.1:<port>`) from a server's versioned base URL. */
export function rootOf(baseUrl: string): string {
  return new URL(baseUrl).origin;
}

/** POSTs a form to `root + path` and returns the status and the parsed JSON body. */
export async function postForm(
  root: string,
  path: string,
  form: Record<string, string>,
): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(`${root}${path}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(form),
  });
  return { status: res.status, body: await res.json(), headers: res.headers };
}

/** Starts a device grant for the platform's client. */
export async function startGrant(root: string): Promise<{
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  interval: number;
  expires_in: number;
}> {
  const res = await postForm(root, "/oidc/device/auth", {
    client_id: "cli-device-client",
    scope: "openid profile email",
  });
  if (res.status !== 200) throw new Error(`device/auth answered ${res.status}`);
  return res.body;
}

/** One poll of the token endpoint with a device code. */
export function poll(root: string, deviceCode: string): Promise<{ status: number; body: any; headers: Headers }> {
  return postForm(root, "/oidc/token", {
    grant_type: "urn:ietf:params:oauth:grant-type:device_code",
    device_code: deviceCode,
    client_id: "cli-device-client",
  });
}

/** Loads the page at `url` and returns its CSRF cookie and form field. */
export async function loadPage(
  url: string,
): Promise<{ cookie: string; csrf: string; html: string; headers: Headers; status: number }> {
  const res = await fetch(url);
  const html = await res.text();
  const [cookie = ""] = (res.headers.get("set-cookie") ?? "").split(";");
  const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? "";
  return { cookie, csrf, html, headers: res.headers, status: res.status };
}

/** Answers the verification page as a person would: load it, then send the form with `fields`. */
export async function answerPage(
  url: string,
  fields: { username?: string; password?: string; action: "approve" | "deny"; user_code?: string },
  extraHeaders: Record<string, string> = {},
): Promise<{ status: number; html: string }> {
  const page = await loadPage(url);
  const userCode = fields.user_code ?? new URL(url).searchParams.get("user_code") ?? "";
  const res = await fetch(new URL("/oidc/device", url), {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: page.cookie, ...extraHeaders },
    body: new URLSearchParams({
      csrf: page.csrf,
      user_code: userCode,
      username: fields.username ?? "",
      password: fields.password ?? "",
      action: fields.action,
    }),
  });
  return { status: res.status, html: await res.text() };
}

/**
 * One request from the local address `from` (e.g. `127.0.0.2`: Linux answers the whole 127/8 on
 * loopback), so a test can play clients at different addresses on one machine. A new connection
 * each time; the body is read as text.
 */
export function sendFrom(
  from: string,
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; headers: IncomingHttpHeaders; text: string }> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        path: `${target.pathname}${target.search}`,
        method: init.method ?? "GET",
        headers: init.headers,
        localAddress: from,
        agent: false,
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8").on("data", (chunk: string) => {
          text += chunk;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(init.body);
  });
}

/** {@link postForm} from the local address `from`. */
export async function postFormFrom(
  from: string,
  root: string,
  path: string,
  form: Record<string, string>,
): Promise<{ status: number; body: any; headers: IncomingHttpHeaders }> {
  const res = await sendFrom(from, `${root}${path}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(form).toString(),
  });
  return { status: res.status, body: JSON.parse(res.text), headers: res.headers };
}

/** {@link answerPage} from the local address `from`; the page's headers come back too. */
export async function answerPageFrom(
  from: string,
  url: string,
  fields: { username?: string; password?: string; action: "approve" | "deny"; user_code?: string },
): Promise<{ status: number; html: string; headers: IncomingHttpHeaders }> {
  const page = await sendFrom(from, url);
  const [cookie = ""] = String(page.headers["set-cookie"] ?? "").split(";");
  const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)?.[1] ?? "";
  const res = await sendFrom(from, new URL("/oidc/device", url).href, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie },
    body: new URLSearchParams({
      csrf,
      user_code: fields.user_code ?? new URL(url).searchParams.get("user_code") ?? "",
      username: fields.username ?? "",
      password: fields.password ?? "",
      action: fields.action,
    }).toString(),
  });
  return { status: res.status, html: res.text, headers: res.headers };
}
