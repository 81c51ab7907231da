import { expect } from 'vitest';
import type { TestStack } from '../../../../../test/support/test-stack.ts';
import { ADYEN_FAKE, type FakeAdyen, type NotificationItem } from './fake.ts';

/**
 * Brings a connection's notification address Adyen's notification of `item`, signed as the fake's connections are
 * (`ADYEN_FAKE`'s HMAC key), and expects it accepted.
 */
export async function notifyAdyen(
  stack: TestStack,
  adyen: FakeAdyen,
  connectionId: string,
  item: NotificationItem,
): Promise<void> {
  const notified = await stack.request('POST', `/psp/adyen/notifications/${connectionId}`, {
    rawBody: adyen.notification([item], { hmacKey: ADYEN_FAKE.credentials.hmac_key }),
    headers: { 'content-type': 'application/json' },
  });
  expect(notified.status).toBe(200);
}
