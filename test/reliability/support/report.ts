import { mkdirSync, writeFileSync } from "node:fs";
import * as path from "node:path";

// The figures the README's "Reliability and security" section quotes (inputs tried, faults
// survived) are counted by the tests themselves and written here, one JSON file per test file,
// because vitest runs each file in its own process.

/** Where the figures go: test/reliability/.report/<name>.json (ignored by git). */
export const REPORT_DIR = path.join(__dirname, "..", ".report");

/** Counts kept by one test file, written after each change so a failed run still leaves them. */
export class Figures {
  private readonly counts: Record<string, number> = {};

  constructor(private readonly name: string) {}

  add(key: string, n = 1): void {
    this.counts[key] = (this.counts[key] ?? 0) + n;
  }

  get(key: string): number {
    return this.counts[key] ?? 0;
  }

  /** Writes the figures and prints them, so they show in the test output too. */
  write(): Record<string, number> {
    mkdirSync(REPORT_DIR, { recursive: true });
    const file = path.join(REPORT_DIR, `${this.name}.json`);
    writeFileSync(file, `${JSON.stringify(this.counts, null, 2)}\n`);
    console.log(`[reliability] ${this.name}: ${JSON.stringify(this.counts)}`);
    return this.counts;
  }
}
