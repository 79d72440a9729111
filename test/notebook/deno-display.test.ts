// The Deno side of the display helpers, against the API Deno 2.9's Jupyter kernel gives cell code:
// `Deno.jupyter.broadcast(msgType, content)` and the kernel's per-cell hook
// `Deno[Deno.internal].jupyter.broadcastResult(executionCount, value)` (Deno's cli/js/40_jupyter.js).
// The messages are recorded as the kernel would send them. test/notebooks.test.ts runs the same
// helpers in the real kernel.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { at } from "../structure/support/checked";

interface Message {
  msgType: string;
  content: { data: Record<string, unknown>; metadata: Record<string, unknown>; transient: { display_id?: string } };
}

const sent: Message[] = [];
const internal = Symbol("Deno.internal");
/** What Deno's own display of a cell's value received (the value after matframe's hook). */
const denoShown: unknown[] = [];
const kernelInternals = {
  async broadcastResult(_count: number, value: unknown) {
    if (value !== undefined) denoShown.push(value);
  },
};

let notebook: typeof import("../../src/notebook");
let cellCount = 0;

/** Runs one "cell": its code, then the kernel's display of its value, as Deno's kernel does. */
async function cell(code: () => unknown | Promise<unknown>): Promise<{ messages: Message[]; denoShown: unknown[] }> {
  sent.length = 0;
  denoShown.length = 0;
  const value = await code();
  cellCount += 1;
  await kernelInternals.broadcastResult(cellCount, value);
  return { messages: [...sent], denoShown: [...denoShown] };
}

beforeAll(async () => {
  (globalThis as Record<string, unknown>).Deno = {
    internal,
    [internal]: { jupyter: kernelInternals },
    jupyter: {
      broadcast: async (msgType: string, content: Message["content"]) => {
        sent.push({ msgType, content });
      },
    },
  };
  // The helpers hook the kernel once per module instance; the core tests share a process's
  // modules between files, so this file loads its own instance with the kernel in place.
  vi.resetModules();
  notebook = await import("../../src/notebook/index.js");
});

afterAll(() => {
  delete (globalThis as Record<string, unknown>).Deno;
});

describe("the display helpers in Deno's Jupyter kernel", () => {
  it("know they are in a notebook", () => {
    expect(notebook.inNotebook()).toBe(true);
  });

  it("show() as a cell's last expression displays the table once, HTML with its text fallback", async () => {
    const result = await cell(() => notebook.show([{ formula: "Si", a: 5.469 }]));
    expect(result.messages.map((m) => m.msgType)).toEqual(["display_data"]);
    const { data } = at(result.messages, 0, "the messages sent").content;
    expect(data["text/html"]).toMatch(/^<table class="matframe-table"/);
    expect(data["text/plain"]).toMatch(/^formula/);
    expect(result.denoShown).toEqual([]);
  });

  it("a chart drawn in a cell is displayed once, with the PNG's display size and the Vega-Lite spec", async () => {
    const result = await cell(() => notebook.barChart([{ k: "a" }, { k: "b" }], { x: "k" }));
    expect(result.messages).toHaveLength(1);
    const { data, metadata } = at(result.messages, 0, "the messages sent").content;
    expect(Object.keys(data).sort()).toEqual(["application/vnd.vegalite.v5+json", "image/png", "text/plain"]);
    expect(metadata["image/png"]).toEqual({ width: expect.any(Number), height: expect.any(Number) });
    expect(result.denoShown).toEqual([]);
  });

  it("a chart from an earlier cell, as a cell's last value, is displayed again", async () => {
    let chart: Awaited<ReturnType<typeof notebook.barChart>> | undefined;
    await cell(async () => {
      chart = await notebook.barChart([{ k: "a" }], { x: "k" });
      return 1;
    });
    const again = await cell(() => chart);
    expect(again.messages).toHaveLength(1);
    expect(at(again.messages, 0, "the messages sent").content.data["text/plain"]).toMatch(/^\[bar chart: 1 bar, /);
  });

  it("a progress display updates one output in place", async () => {
    const result = await cell(() => {
      const onProgress = notebook.progress({ label: "materials", expected: 2 });
      onProgress(2);
      onProgress.done();
      return undefined;
    });
    expect(result.messages.map((m) => m.msgType)).toEqual(["display_data", "update_display_data"]);
    const ids = new Set(result.messages.map((m) => m.content.transient.display_id));
    expect(ids.size).toBe(1);
    expect([...ids][0]).toMatch(/^matframe-deno-/);
    expect(at(result.messages, 1, "the messages sent").content.data["text/plain"]).toBe("done: 2 / 2 materials (100%)");
  });

  it("other values go on to Deno's own display", async () => {
    const result = await cell(() => ({ plain: true }));
    expect(result.messages).toEqual([]);
    expect(result.denoShown).toEqual([{ plain: true }]);
  });
});
