// Debian's Chromium, driven by puppeteer-core, for pages a person uses (the device flow's
// verification page): a fresh profile each launch, nothing of the machine's own.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "puppeteer-core";

export const CHROMIUM = process.env.MATFRAME_CHROMIUM ?? "/usr/bin/chromium";

/** Why the browser tests cannot run here, or undefined when they can. */
export function browserMissing(): string | undefined {
  return existsSync(CHROMIUM)
    ? undefined
    : `no Chromium at ${CHROMIUM} (apt-get install chromium, or set MATFRAME_CHROMIUM)`;
}

/** A headless Chromium with a profile of its own; `close` also removes the profile. */
export async function launchChromium(): Promise<{ browser: Browser; close: () => Promise<void> }> {
  const { launch } = await import("puppeteer-core");
  const profile = mkdtempSync(join(tmpdir(), "matframe-chromium-"));
  const browser = await launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      `--user-data-dir=${profile}`,
    ],
  });
  return {
    browser,
    close: async () => {
      await browser.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** What the person does on the verification page. */
export interface PageVisit {
  username: string;
  password: string;
  button: "Approve" | "Deny";
}

/**
 * Opens `url` (the verification page), types into the fields found by their labels, clicks the
 * button by its text, and returns the page's text and status after the form is sent.
 */
export async function answerInBrowser(
  browser: Browser,
  url: string,
  visit: PageVisit,
): Promise<{ status: number; text: string }> {
  const page = await browser.newPage();
  try {
    await page.goto(url);
    for (const [label, value] of [
      ["Username", visit.username],
      ["Password", visit.password],
    ] as const) {
      // Found as a person finds it: by the text of its label.
      const field = await page.$(`::-p-xpath(//input[@id=//label[normalize-space()="${label}"]/@for])`);
      if (!field) throw new Error(`No field labelled "${label}" on ${new URL(url).pathname}`);
      await field.type(value);
    }
    const button = await page.$(`::-p-xpath(//button[normalize-space()="${visit.button}"])`);
    if (!button) throw new Error(`No "${visit.button}" button on the page`);
    const [response] = await Promise.all([page.waitForNavigation(), button.click()]);
    return { status: response?.status() ?? 0, text: String(await page.evaluate("document.body.innerText")) };
  } finally {
    await page.close();
  }
}
