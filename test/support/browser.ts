import { type Browser, chromium } from 'playwright-core';

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
