import { ResponseValidationError } from "../../errors";
import { redact } from "./redact";
import type { SendResult } from "./transport";

/**
 * The `data` of a JSend success envelope. Checked by hand rather than with
 * `JSendEnvelope.parse`, because that would walk every record of a page.
 */
export function jsendData(res: SendResult, secrets: readonly string[] = []): unknown {
  const body = res.body as { status?: unknown; data?: { message?: unknown } | unknown; message?: unknown } | null;
  if (
    body !== null &&
    typeof body === "object" &&
    !Array.isArray(body) &&
    body.status === "success" &&
    "data" in body
  ) {
    return body.data;
  }
  const isJSendError = body !== null && typeof body === "object" && (body.status === "error" || body.status === "fail");
  // data.message first, as the platform's own client reads it, then message.
  const dataMessage = isJSendError ? (body.data as { message?: unknown } | null)?.message : undefined;
  const text = typeof dataMessage === "string" ? dataMessage : isJSendError ? body.message : undefined;
  const said = typeof text === "string" ? `: "${redact(text, secrets)}"` : "";
  const message = isJSendError
    ? `${res.endpoint} answered ${res.status} with a JSend ${String(body.status)}${said}.`
    : `${res.endpoint} answered ${res.status} with JSON that is not a JSend envelope ({"status":"success","data":...}); ` +
      `check that baseUrl points at the platform API.`;
  return fail(res, message, isJSendError ? "JSend error in a success response" : "Not a JSend success envelope");
}

function fail(res: SendResult, message: string, issue: string): never {
  throw new ResponseValidationError(message, {
    endpoint: res.endpoint,
    status: res.status,
    issues: [{ code: "custom", path: [], message: issue }],
  });
}
