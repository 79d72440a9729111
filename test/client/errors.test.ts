import { describe, expect, it } from "vitest";
import * as client from "../../src";
import { errorFromStatus } from "../../src/errors";

describe("status to error class", () => {
  it.each([
    [400, "BadRequestError", "ERR_BAD_REQUEST"],
    [401, "AuthenticationError", "ERR_AUTHENTICATION"],
    [403, "PermissionDeniedError", "ERR_PERMISSION_DENIED"],
    [404, "NotFoundError", "ERR_NOT_FOUND"],
    [409, "ConflictError", "ERR_CONFLICT"],
    [414, "BadRequestError", "ERR_BAD_REQUEST"],
    [422, "UnprocessableEntityError", "ERR_UNPROCESSABLE_ENTITY"],
    [429, "RateLimitError", "ERR_RATE_LIMITED"],
    [500, "ServerError", "ERR_SERVER"],
    [503, "ServerError", "ERR_SERVER"],
    [418, "ApiError", "ERR_API"],
  ])("%i -> %s (%s)", (status, name, code) => {
    const error = errorFromStatus({
      status,
      endpoint: "GET /api/2018-10-01/materials",
      serverMessage: "why",
      attempts: 1,
    });
    expect(error.name).toBe(name);
    expect(error.code).toBe(code);
    expect(error).toBeInstanceOf(client.ApiError);
    expect(error).toBeInstanceOf(client.MatframeError);
    expect(error).toBeInstanceOf((client as unknown as Record<string, new () => Error>)[name]);
    expect(error.status).toBe(status);
    expect(error.serverMessage).toBe("why");
    expect(error.message).toContain("GET /api/2018-10-01/materials");
    expect(error.message).toContain('"why"');
  });

  it("every class has its own stable code and name", () => {
    const classes = [
      client.MatframeError,
      client.ApiError,
      client.AuthenticationError,
      client.PermissionDeniedError,
      client.NotFoundError,
      client.BadRequestError,
      client.ConflictError,
      client.UnprocessableEntityError,
      client.RateLimitError,
      client.ServerError,
      client.ConnectionError,
      client.TimeoutError,
      client.JobWaitTimeoutError,
      client.AbortError,
      client.ResponseValidationError,
      client.ValidationError,
      client.ClientClosedError,
      client.DuplicateRecordError,
    ];
    const made = classes.map(
      (C) =>
        new (C as unknown as new (...a: unknown[]) => client.MatframeError)(
          "m",
          { status: 1, endpoint: "e", issues: [] },
          1,
        ),
    );
    expect(new Set(made.map((e) => e.code)).size).toBe(classes.length);
    expect(made.map((error) => error.name)).toEqual(classes.map((C) => C.name));
    for (const error of made) expect(error.code).toMatch(/^ERR_[A-Z_]+$/);
  });

  it("a login 401 tells the user to check the username/password", () => {
    const error = errorFromStatus({ status: 401, endpoint: "POST /api/2018-10-01/login", attempts: 1, login: true });
    expect(error.message).toMatch(/Check the username\/password/);
    const later = errorFromStatus({ status: 401, endpoint: "GET /api/2018-10-01/materials", attempts: 1 });
    expect(later.message).toMatch(/log in again/);
  });
});
