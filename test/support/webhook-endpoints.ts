import { Webhook } from 'standardwebhooks';
import { afterEach } from 'vitest';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { expectDocumented } from './openapi-check.ts';
import type { TestStack } from './test-stack.ts';
import { type ReceivedWebhook, type Receiver, startReceiver } from './webhooks.ts';

/**
 * What the files of webhook endpoints share (test/integration/webhook-endpoints.test.ts and its neighbours):
 * receivers closed after each test, a fresh account per test, requests checked against the OpenAPI document.
 * Called once at the top of a file, with the file's own stack.
 */
export function endpointHelpers(stackOf: () => TestStack) {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    while (cleanups.length) await cleanups.pop()?.();
  });

  async function receiver(): Promise<Receiver> {
    const started = await startReceiver();
    cleanups.push(() => started.close());
    return started;
  }

  let accounts = 0;
  /** A fresh account for each test (endpoints are per account and mode): its test key, and its name. */
  async function newAccount(): Promise<IssuedApiKey & { account: string }> {
    const account = `endpoints-${accounts++}`;
    return { ...(await stackOf().issueKey(account, 'test')), account };
  }

  /** A request whose answer must match the OpenAPI document's schema for `template` (e.g. `/v1/events/{id}`). */
  async function documented(
    method: string,
    path: string,
    template: string,
    options: Parameters<TestStack['request']>[2],
  ) {
    const response = await stackOf().request(method, path, options);
    expectDocumented(method.toLowerCase(), template, response);
    return response;
  }

  async function createEndpoint(key: string, body: Record<string, unknown>) {
    const response = await stackOf().request('POST', '/v1/webhook-endpoints', { key, body });
    if (response.status !== 201) throw new Error(`endpoint not created: ${JSON.stringify(response.body)}`);
    return response.body as { id: string; secret: string };
  }

  return { cleanups, receiver, newAccount, documented, createEndpoint };
}

export const verified = (webhook: ReceivedWebhook | undefined, secret: string) =>
  new Webhook(secret).verify(webhook?.body ?? '', webhook?.headers as Record<string, string>) as {
    type: string;
    data: { id: string };
  };

/** The `webhook-id` of a webhook that verifies with `secret`. */
export function verifiedId(webhook: ReceivedWebhook, secret: string): string {
  verified(webhook, secret);
  return String(webhook.headers['webhook-id']);
}
