// A response's text as JSON: what the client accepts as an answer, and what it says when the
// answer is a web page, a proxy's login form or a cut-off body instead.
import type { IncomingHttpHeaders } from "node:http";
import { ResponseValidationError } from "../../errors";
import { redact, redactedExcerpt } from "./redact";

/** A response read whole: its status, headers and decoded text. */
export type Raw = { status: number; headers: IncomingHttpHeaders; text: string };

/** Whether the body says it is JSON (or says nothing). */
export function isJson(raw: Raw): boolean {
  const type = mediaType(raw);
  return (
    type === "" || type === "application/json" || /^application\/[\w.+-]*\+json$/.test(type) || type === "text/json"
  );
}

/** The Content-Type without its parameters, lower case: `application/json; charset=utf-8` is `application/json`. */
function mediaType(raw: Raw): string {
  const [type = ""] = String(raw.headers["content-type"] ?? "").split(";");
  return type.trim().toLowerCase();
}

/** A 2xx answer that says it is not JSON (a proxy's login page, say) is reported as such. */
export function checkContentType(raw: Raw, endpoint: string, secrets: readonly (string | undefined)[]): void {
  if (isJson(raw)) return;
  const type = mediaType(raw);
  const excerpt = redactedExcerpt(raw.text, secrets, 80);
  throw new ResponseValidationError(
    `${endpoint} answered ${raw.status} with ${type}, not JSON (starting ${JSON.stringify(excerpt)}); ` +
      `the baseUrl may point at a web page or a proxy rather than the platform API.`,
    {
      endpoint,
      status: raw.status,
      issues: [{ code: "custom", path: [], message: `Content-Type ${type} is not JSON` }],
    },
  );
}

/** The body parsed; a `ResponseValidationError` with a redacted excerpt when it is not JSON. */
export function parseJson(raw: Raw, endpoint: string, secrets: readonly (string | undefined)[] = []): unknown {
  try {
    return JSON.parse(raw.text);
  } catch (cause) {
    const excerpt = redactedExcerpt(raw.text, secrets, 80);
    const message =
      `${endpoint} answered ${raw.status} with a body that is not valid JSON ` +
      `(${raw.text.length} bytes${raw.text.length ? `, starting ${JSON.stringify(excerpt)}` : ""}); ` +
      `it may have been cut off, or the baseUrl may point at something other than the platform API.`;
    throw new ResponseValidationError(
      message,
      {
        endpoint,
        status: raw.status,
        issues: [{ code: "custom", path: [], message: "Body is not valid JSON", input: excerpt }],
      },
      { cause },
    );
  }
}

/**
 * The message of an error body: JSend `data.message` first (where the platform's own Python
 * client looks), then the top-level `message`, then the first line of a JSON:API error's
 * `detail` (what OPTIMADE providers send: https://jsonapi.org/format/#error-objects).
 */
export function serverMessage(text: string, secrets: readonly (string | undefined)[]): string | undefined {
  try {
    const body = JSON.parse(text) as {
      message?: unknown;
      data?: { message?: unknown } | null;
      errors?: { detail?: unknown; title?: unknown }[];
    };
    const message = typeof body?.data?.message === "string" ? body.data.message : body?.message;
    if (typeof message === "string") return redact(message, secrets);
    const first = Array.isArray(body?.errors) ? body.errors[0] : undefined;
    const detail = typeof first?.detail === "string" ? first.detail : first?.title;
    if (typeof detail === "string") {
      const [firstLine = ""] = detail.trim().split("\n");
      return redact(firstLine, secrets);
    }
  } catch {
    // Not JSON (a proxy's HTML page, say): the status alone has to do.
  }
  return undefined;
}
