import { request } from "undici";
import { LoginResult } from "../../src/schemas";

/**
 * Logs in with plain undici and returns the credentials, for tests that need the same token
 * in two clients (the client itself keeps its token out of reach).
 */
export async function rawLogin(
  baseUrl: string,
  username: string,
  password: string,
): Promise<{ accountId: string; authToken: string }> {
  const res = await request(`${baseUrl}/login`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ username, password }).toString(),
  });
  const body = await res.body.json();
  if (res.statusCode !== 200) throw new Error(`login answered ${res.statusCode}`);
  return LoginResult.parse(body);
}
