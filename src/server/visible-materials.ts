// The start-up line's count of materials. The served (bank) materials are one number, but a user
// lists those and the account's own: `matframe serve` gives every account a copy of silicon
// (account-defaults.ts), so demo saw 30 where the line said 29. The line now says both, so the
// number a user checks against is the one they will see.
import { escapeForTerminal } from "../terminal-text";

/** Each account's name and how many materials of its own it holds when the server starts. */
export interface AccountMaterials {
  readonly username: string;
  readonly own: number;
}

/**
 * What accounts see beyond the served materials, for the start-up line: "" when no account holds
 * materials of its own, else "; demo sees 30 (these and 1 of its own)", or for several accounts
 * "; each of the 3 accounts sees 30 (...)" or "; the 3 accounts see 29 to 35 (these and their own)".
 */
export function describeVisibleMaterials(served: number, accounts: readonly AccountMaterials[]): string {
  if (!accounts.some((account) => account.own > 0)) return "";
  const first = accounts[0];
  if (accounts.length === 1 && first)
    return `; ${escapeForTerminal(first.username)} sees ${served + first.own} (these and ${first.own} of its own)`;
  const counts = accounts.map((account) => served + account.own);
  const low = Math.min(...counts);
  const high = Math.max(...counts);
  if (low === high)
    return `; each of the ${accounts.length} accounts sees ${high} (these and ${high - served} of its own)`;
  return `; the ${accounts.length} accounts see ${low} to ${high} (these and their own)`;
}
