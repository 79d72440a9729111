import { describe, expect, it } from "vitest";
import { duration, ProgressBar } from "../../src/cli/progress-bar";

// The export's progress as the user reads it: a total, a percentage and the time left when the
// count is known; off a terminal, a plain line every few seconds and never more often. The clock
// is the bar's own injected one, stepped by the test: nothing waits.

function bar(options: { total?: number; terminal: boolean }) {
  let now = 0;
  const written: string[] = [];
  const report = new ProgressBar({
    ...options,
    noun: "materials",
    interval: 5000,
    write: (text) => written.push(text),
    now: () => now,
  });
  return { report, written, at: (ms: number) => (now = ms) };
}

describe("the export's progress line", () => {
  it("says the total, the percentage and about how long is left when the count is known", () => {
    const { report, at } = bar({ total: 20_029, terminal: false });
    at(4000);
    expect(report.line({ pages: 3, items: 1500 })).toBe(
      "exporting: 1,500 of 20,029 materials (7%), 3 pages, 4.0 s, about 49 s left",
    );
    at(60_000);
    expect(report.line({ pages: 20, items: 10_000 })).toBe(
      "exporting: 10,000 of 20,029 materials (49%), 20 pages, 60.0 s, about 1 min left",
    );
  });

  it("says the count and time alone when no total is known", () => {
    const { report, at } = bar({ terminal: false });
    at(2500);
    expect(report.line({ pages: 1, items: 500 })).toBe("exporting: 500 materials, 1 page, 2.5 s");
    // Pages in thousands are grouped as the records are, as the closing summary groups them.
    expect(report.line({ pages: 1350, items: 151_800 })).toBe("exporting: 151,800 materials, 1,350 pages, 2.5 s");
  });

  it("off a terminal, writes a line every five seconds at most, none for a short export", () => {
    const { report, written, at } = bar({ total: 1000, terminal: false });
    for (let ms = 0; ms <= 12_000; ms += 500) {
      at(ms);
      report.update({ pages: ms / 500, items: ms / 20 });
    }
    expect(written).toEqual([
      "exporting: 250 of 1,000 materials (25%), 10 pages, 5.0 s, about 15 s left\n",
      "exporting: 500 of 1,000 materials (50%), 20 pages, 10.0 s, about 10 s left\n",
    ]);
    const short = bar({ total: 10, terminal: false });
    short.at(900);
    short.report.update({ pages: 1, items: 10 });
    expect(short.written).toEqual([]);
  });

  it("on a terminal, redraws one line with a bar and clears it", () => {
    const { report, written, at } = bar({ total: 100, terminal: true });
    at(2000);
    report.update({ pages: 1, items: 50 });
    report.clear();
    expect(written).toEqual([
      "\r\x1b[Kexporting: [############------------] 50 of 100 materials (50%), 1 page, 2.0 s, about 2 s left",
      "\r\x1b[K",
    ]);
  });

  it("takes the smaller of --max-items and the platform's count", () => {
    const { report, at } = bar({ total: 50, terminal: false });
    report.setTotal(29);
    at(1000);
    expect(report.line({ pages: 1, items: 29 })).toBe("exporting: 29 of 29 materials (100%), 1 page, 1.0 s");
  });

  it("rounds the time left as a person says it", () => {
    expect([400, 42_000, 150_000, 4_980_000].map(duration)).toEqual(["1 s", "42 s", "3 min", "1 h 23 min"]);
  });
});
