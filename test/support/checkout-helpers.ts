import { readFileSync } from 'node:fs';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { checkoutKeys } from '../../functions/adapters/dynamodb/table-schema.ts';
import { signSandboxPayload } from '../../functions/adapters/psp/sandbox/notifications.ts';
import { documentClient } from '../../functions/clients/dynamodb.ts';
import { linkRepository } from '../../functions/dependencies.ts';
import type { Amount } from '../../functions/domain/money.ts';
import type { PaymentLink } from '../../functions/domain/payment-link.ts';
import { LOCAL_SANDBOX_SECRET_NAME } from '../../lib/local/local-secrets.ts';
import type { TestStack } from './test-stack.ts';

/** Creates a link through the API and returns its resource. */
export async function createLink(
  stack: TestStack,
  key: string,
  body: Record<string, unknown> = {},
  // biome-ignore lint/suspicious/noExplicitAny: the API's JSON resource, asserted on by the tests
): Promise<any> {
  const response = await stack.request('POST', '/v1/payment-links', {
    key,
    body: { amount: { value: '10.50', currency: 'EUR' }, description: 'Order 1001', ...body },
  });
  if (response.status !== 201)
    throw new Error(`create failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

/** The stored link, as the functions see it (both modes tried). */
export async function storedLink(id: string): Promise<PaymentLink> {
  const link = (await linkRepository().get(id, 'test')) ?? (await linkRepository().get(id, 'live'));
  if (!link) throw new Error(`no link ${id}`);
  return link;
}

/** The sandbox's signing secret, from the secrets file the local stack generated. */
export function sandboxSecret(): string {
  const file = process.env.LOCAL_SECRETS_FILE as string;
  return JSON.parse(readFileSync(file, 'utf8'))[LOCAL_SANDBOX_SECRET_NAME];
}

/** A sandbox notification as the sandbox PSP sends it, signed with `secret` (the real one by default). */
export function sandboxNotification(
  body: { session_id: string; link_id: string; mode?: string; type?: string },
  options: { secret?: string; timestamp?: number } = {},
): { rawBody: string; headers: Record<string, string> } {
  const rawBody = JSON.stringify({
    type: 'sandbox.session.completed',
    mode: 'test',
    created: Math.floor(Date.now() / 1000),
    ...body,
  });
  const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
  return {
    rawBody,
    headers: {
      'content-type': 'application/json',
      'sandbox-signature': signSandboxPayload(options.secret ?? sandboxSecret(), rawBody, timestamp),
    },
  };
}

/**
 * The sandbox reports `amount` for its session from now on, as a PSP whose session was changed behind our back
 * would (docs/security.md#amounts-the-psp-reports).
 */
export async function sandboxReportsAmount(
  tableName: string,
  sessionId: string,
  amount: Amount,
): Promise<void> {
  await documentClient().send(
    new UpdateCommand({
      TableName: tableName,
      Key: checkoutKeys.sandboxSession(sessionId),
      UpdateExpression: 'SET amount = :amount',
      ExpressionAttributeValues: { ':amount': amount },
    }),
  );
}
