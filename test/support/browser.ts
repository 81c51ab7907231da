import { type Browser, chromium } from 'playwright-core';
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
