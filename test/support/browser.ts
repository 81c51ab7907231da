import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { inject } from 'vitest';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { startTestStack, type TestStack } from './test-stack.ts';

/**
 * The run's one Chromium (test/support/chromium-server.ts), connected to from this file. Closing what this
 * returns closes the file's contexts and pages, not the browser.
 */
export function connectChromium(): Promise<Browser> {
  return chromium.connect(inject('chromiumEndpoint'));
}

/** The stack shape of the browser tests: a local stack, a test-mode key of the merchant `acme`, and Chromium. */
export interface BrowserStack {
  stack: TestStack;
  acme: IssuedApiKey;
  browser: Browser;
  stop(): Promise<void>;
}

export async function startBrowserStack(): Promise<BrowserStack> {
  const [stack, browser] = await Promise.all([startTestStack(), connectChromium()]);
  const acme = await stack.issueKey('acme', 'test');
  return {
    stack,
    acme,
    browser,
    async stop() {
      await browser.close();
      await stack.stop();
    },
  };
}

const CONSOLE_SCREENSHOTS = join(import.meta.dirname, '..', '..', 'docs', 'console');

/**
 * With UPDATE_SCREENSHOTS=1, saves the page as docs/console/<name>.png, the pictures of docs/console.md
 * (`UPDATE_SCREENSHOTS=1 npx vitest run test/browser/console*.test.ts` renews them all).
 */
export async function saveConsoleScreenshot(page: Page, name: string): Promise<void> {
  if (process.env.UPDATE_SCREENSHOTS !== '1') return;
  mkdirSync(CONSOLE_SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(CONSOLE_SCREENSHOTS, `${name}.png`), fullPage: true });
}
