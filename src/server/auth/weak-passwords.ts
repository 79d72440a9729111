import type { UserAccount } from "./auth";

/** Shortest password not called weak when the server is reachable from other machines. */
export const MIN_PASSWORD_LENGTH = 8;

/**
 * Passwords of 8 characters or more that head the published lists of the most common ones (the
 * yearly lists of SplashData and NordPass, and the NCSC's list of passwords seen in breaches), plus
 * this project's own names, which a class would guess first. Shorter common ones are caught by the
 * length rule.
 */
const COMMON_PASSWORDS = new Set([
  "password",
  "password1",
  "passw0rd",
  "12345678",
  "123456789",
  "1234567890",
  "987654321",
  "11111111",
  "00000000",
  "88888888",
  "12341234",
  "qwertyuiop",
  "qwerty123",
  "1q2w3e4r",
  "q1w2e3r4",
  "1qaz2wsx",
  "zaq12wsx",
  "abcd1234",
  "abcdefgh",
  "iloveyou",
  "sunshine",
  "princess",
  "football",
  "baseball",
  "superman",
  "starwars",
  "trustno1",
  "computer",
  "michelle",
  "jennifer",
  "welcome1",
  "letmein1",
  "changeme",
  "matframe",
  "materials",
  "exabyte",
  "mat3ra",
  "platform",
]);

/**
 * Why a password is too easy to guess for a server other machines can reach, or undefined when
 * it is not. Looks only at the password and the name; the reason never quotes the password.
 */
export function weakPasswordReason({ username, password }: UserAccount): string | undefined {
  const lower = password.toLowerCase();
  if (username === "demo" && password === "demo") return "is the demo account's published password";
  if (lower === username.toLowerCase()) return "is the account's name";
  if (password.length < MIN_PASSWORD_LENGTH) return `is shorter than ${MIN_PASSWORD_LENGTH} characters`;
  if (COMMON_PASSWORDS.has(lower)) return "is one of the most common passwords";
  if (new Set(password).size === 1) return "repeats one character";
  return undefined;
}
