import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectionToItem } from '../../functions/adapters/dynamodb/connection-mapper.ts';
import { UNDECODABLE_SKIPPED } from '../../functions/adapters/dynamodb/item-decoder.ts';
import { paymentToItem } from '../../functions/adapters/dynamodb/payment-mapper.ts';
import { keys } from '../../functions/adapters/dynamodb/table-schema.ts';
import { documentClient } from '../../functions/clients/dynamodb.ts';
import { config } from '../../functions/config.ts';
import { createConnection } from '../../functions/domain/connection.ts';
import { newPaymentId } from '../../functions/domain/payment.ts';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { seedPayment } from '../support/books.ts';
import { createLink } from '../support/checkout-helpers.ts';
import { capturedOutput } from '../support/log-capture.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';

/**
 * An item that does not decode (docs/data-model.md#reading-an-item), read through the functions as deployed:
 * a list answers the others and logs it; a read of that one item answers a 500 and logs which item it was.
 */
let stack: TestStack;
let tenant: IssuedApiKey;
const ACCOUNT = 'undecodable';

beforeAll(async () => {
  stack = await startTestStack();
  tenant = await stack.issueKey(ACCOUNT, 'test');
});
afterAll(() => stack.stop());

const put = (item: Record<string, unknown>) =>
  documentClient().send(new PutCommand({ TableName: config().TABLE_NAME, Item: item }));

/** What `GET path` answers, and what the functions logged meanwhile. */
async function getLogged(path: string) {
  let response: Awaited<ReturnType<TestStack['request']>> | undefined;
  const output = await capturedOutput(async () => {
    response = await stack.request('GET', path, { key: tenant.api_key });
  });
  if (!response) throw new Error(`no answer to ${path}`);
  return { response, output };
}

/** The log lines of items left out of a list. */
const skipped = (output: string) =>
  output
    .split('\n')
    .filter((line) => line.includes(UNDECODABLE_SKIPPED))
    .map((line) => JSON.parse(line));

describe('an item that does not decode, in a list', () => {
  it("is left out of its link's payments and of the books, which answer the others, and logged with its keys", async () => {
    const link = await createLink(stack, tenant.api_key);
    const older = await seedPayment(ACCOUNT, { link_id: link.id, created_at: '2026-11-29T08:00:00.000Z' });
    const newer = await seedPayment(ACCOUNT, { link_id: link.id, created_at: '2026-11-29T09:00:00.000Z' });
    const corrupt = paymentToItem({ ...newer, id: newPaymentId(new Date(), false) });
    await put({ ...corrupt, status: 'lost' });

    const ofLink = await getLogged(`/v1/payment-links/${link.id}/payments`);
    expect(ofLink.response.status).toBe(200);
    expect(ofLink.response.body.data.map((payment: { id: string }) => payment.id)).toEqual([
      newer.id,
      older.id,
    ]);
    expect(skipped(ofLink.output)).toEqual([
      expect.objectContaining({
        level: 'ERROR',
        entity: 'payment',
        pk: corrupt.pk,
        sk: corrupt.sk,
        reason: expect.stringMatching(/^status: expected one of pending, /),
      }),
    ]);

    const books = await getLogged('/v1/payments');
    expect(books.response.status).toBe(200);
    expect(books.response.body.data.map((payment: { id: string }) => payment.id)).toEqual([
      newer.id,
      older.id,
    ]);
    expect(skipped(books.output)).toEqual([expect.objectContaining({ pk: corrupt.pk, sk: corrupt.sk })]);
  });

  it('is left out of the connections, which list the others', async () => {
    const good = createConnection(
      { account: ACCOUNT, mode: 'test', provider: 'sandbox', name: 'Good' },
      's/',
      new Date(),
    );
    const bad = createConnection(
      { account: ACCOUNT, mode: 'test', provider: 'sandbox', name: 'Bad' },
      's/',
      new Date(),
    );
    await put(connectionToItem(good));
    await put({ ...connectionToItem(bad), enabled: 'yes' });

    const listed = await getLogged('/v1/psp-connections');
    expect(listed.response.status).toBe(200);
    expect(listed.response.body.data.map((connection: { id: string }) => connection.id)).toEqual([good.id]);
    expect(skipped(listed.output)).toEqual([
      expect.objectContaining({
        entity: 'connection',
        reason: 'enabled: expected a boolean, found a string',
      }),
    ]);
  });
});

describe('an item that does not decode, read alone', () => {
  it('answers a 500 that tells nothing of it, and logs which item it was and why', async () => {
    const link = await createLink(stack, tenant.api_key);
    const key = keys.link(link.id, 'test');
    await documentClient().send(
      new UpdateCommand({
        TableName: config().TABLE_NAME,
        Key: key,
        UpdateExpression: 'SET event_ids = :none',
        ExpressionAttributeValues: { ':none': 'none' },
      }),
    );

    const { response, output } = await getLogged(`/v1/payment-links/${link.id}`);
    expect(response.status).toBe(500);
    expect(JSON.stringify(response.body)).not.toContain(key.pk);
    expect(output).toContain(
      `The stored payment link ${key.pk} / ${key.sk} does not decode (event_ids: expected a list, found a string).`,
    );
  });
});
