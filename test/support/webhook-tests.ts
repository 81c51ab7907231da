import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { Webhook } from 'standardwebhooks';
import { afterEach } from 'vitest';
import { keys } from '../../functions/adapters/dynamodb/table-schema.ts';
import { documentClient } from '../../functions/clients/dynamodb.ts';
import { config } from '../../functions/config.ts';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { expectDocumented } from './openapi-check.ts';
import type { TestStack } from './test-stack.ts';
import { type ReceivedWebhook, type Receiver, startReceiver } from './webhooks.ts';

// What the webhook test files share (test/integration/webhooks.test.ts, webhook-endpoints.test.ts and their
// neighbours). Kept out of test/support/webhooks.ts, which the benchmark imports too: this module registers
// vitest hooks.

/**
 * Receivers, and anything else a test pushes on `cleanups`, closed after each test. Called once at the top of a
 * file.
 */
export function closedAfterEach() {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    while (cleanups.length) await cleanups.pop()?.();
  });

  async function receiver(): Promise<Receiver> {
    const started = await startReceiver();
    cleanups.push(() => started.close());
    return started;
  }

  return { cleanups, receiver };
}

/**
 * For the files of webhook endpoints: besides `closedAfterEach`, a fresh account per test and requests checked
 * against the OpenAPI document. Called once at the top of a file, with the file's own stack.
 */
export function endpointHelpers(stackOf: () => TestStack) {
  const { cleanups, receiver } = closedAfterEach();

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

/** A queue whose every send fails, as SQS does when it is down. */
export const failingQueue = { publish: () => Promise.reject(new Error('SQS is down')) };

/** Puts an event into a state only a long history would reach. */
export async function setEventAttributes(eventId: string, attributes: Record<string, unknown>) {
  const names = Object.keys(attributes);
  await documentClient().send(
    new UpdateCommand({
      TableName: config().TABLE_NAME,
      Key: keys.event(eventId, 'test'),
      UpdateExpression: `SET ${names.map((name) => `#${name} = :${name}`).join(', ')}`,
      ExpressionAttributeNames: Object.fromEntries(names.map((name) => [`#${name}`, name])),
      ExpressionAttributeValues: Object.fromEntries(names.map((name) => [`:${name}`, attributes[name]])),
    }),
  );
}

/** The Lambda context the delivery function is invoked with. */
export function lambdaContext() {
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: 'deliver-webhook',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:local:000000000000:function:deliver-webhook',
    memoryLimitInMB: '512',
    awsRequestId: 'test',
    logGroupName: 'test',
    logStreamName: 'test',
    getRemainingTimeInMillis: () => 30_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
