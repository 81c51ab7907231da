import { type Browser, chromium } from 'playwright-core';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { startTestStack, type TestStack } from './test-stack.ts';

/**
 * Debian's headless Chromium, as the browser tests drive it. Background networking, component updates and sync
 * are off: this machine has no network beyond its own loopback, and Chromium would otherwise keep trying.
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** The stack shape of the browser tests: a local stack, a test-mode key of the merchant `acme`, and Chromium. */
export interface BrowserStack {
  stack: TestStack;
  acme: IssuedApiKey;
  browser: Browser;
  stop(): Promise<void>;
}

export async function startBrowserStack(): Promise<BrowserStack> {
  const [stack, browser] = await Promise.all([startTestStack(), launchChromium()]);
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
