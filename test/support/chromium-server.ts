import { join } from 'node:path';
import { chromium } from 'playwright-core';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  interface ProvidedContext {
    /** Where the browser files connect to the run's one Chromium (test/support/browser.ts). */
    chromiumEndpoint: string;
  }
}

/**
 * Debian's headless Chromium, as the browser tests drive it. Background networking, component updates and sync
 * are off: this machine has no network beyond its own loopback, and Chromium would otherwise keep trying.
 * Two more cut the CPU the browser files cost (docs/testing.md#cpu-per-file):
 * - no omnibox WebUI popups: headless Chromium opens each page in a window of its own, and each window loaded two
 *   (chrome://omnibox-popup.top-chrome/, about 200 scripts, in a renderer of their own) that no test ever shows,
 *   about 0.4 CPU-s per browser context;
 * - V8 without its optimizing compilers, Maglev and Turbofan: each document is checked once and thrown away, and
 *   what they compiled for axe's code on other threads never ran long enough to repay them.
 * Chromium is started through test/support/chromium.sh, which adds our `--disable-features` to Playwright's own:
 * Chromium keeps only the last of the switch.
 */
const CHROMIUM = {
  executablePath: join(import.meta.dirname, 'chromium.sh'),
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup',
    '--js-flags=--no-maglev --no-turbofan',
  ],
};

/**
 * The browser project's `globalSetup`: one Chromium for the whole run, which every browser file connects to.
 * Starting Chromium costs about 3.4 CPU-seconds, connecting to it 1.3 (docs/testing.md#speed);
 * each test still gets a browser context of its own (`browser.newPage()`), so files share no cookies or storage.
 */
export default async function setup(project: TestProject) {
  const server = await chromium.launchServer(CHROMIUM);
  project.provide('chromiumEndpoint', server.wsEndpoint());
  return () => server.close();
}
