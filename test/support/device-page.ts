// The device flow over plain HTTP, as a browser would send it: load the verification page (its
// CSRF cookie and field), then post the form. The browser itself is in browser.ts.

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
  const cookie = (res.headers.get("set-cookie") ?? "").split(";")[0];
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
