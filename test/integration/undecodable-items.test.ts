import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { connectionToItem } from '../../functions/adapters/dynamodb/connection-mapper.ts';
import { UNDECODABLE_SKIPPED } from '../../functions/adapters/dynamodb/item-decoder.ts';
import { paymentToItem } from '../../functions/adapters/dynamodb/payment-mapper.ts';
import { DynamoRefundLedger } from '../../functions/adapters/dynamodb/refund-ledger.ts';
import { keys, refundCheckKeys } from '../../functions/adapters/dynamodb/table-schema.ts';
import { documentClient } from '../../functions/clients/dynamodb.ts';
import { config } from '../../functions/config.ts';
import { createConnection } from '../../functions/domain/connection.ts';
import { FIRST_CHECK_AFTER_MS, newPaymentId } from '../../functions/domain/payment.ts';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { seedPayment } from '../support/books.ts';
import { createLink, storedLink } from '../support/checkout-helpers.ts';
import { capturedOutput } from '../support/log-capture.ts';
import { httpRequest, navigate } from '../support/navigate.ts';
import { sweepPendingRefunds } from '../support/sweepers.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';
import { eventually } from '../support/webhooks.ts';

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
afterEach(() => vi.restoreAllMocks());

const put = (item: Record<string, unknown>) =>
  documentClient().send(new PutCommand({ TableName: config().TABLE_NAME, Item: item }));

/** What the request answers, and what the functions logged meanwhile. */
async function loggedRequest(method: 'GET' | 'POST', path: string) {
  let response: Awaited<ReturnType<TestStack['request']>> | undefined;
  const output = await capturedOutput(async () => {
    response = await stack.request(method, path, { key: tenant.api_key });
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

    const ofLink = await loggedRequest('GET', `/v1/payment-links/${link.id}/payments`);
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

    const books = await loggedRequest('GET', '/v1/payments');
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

    const listed = await loggedRequest('GET', '/v1/psp-connections');
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

    const { response, output } = await loggedRequest('GET', `/v1/payment-links/${link.id}`);
    expect(response.status).toBe(500);
    expect(JSON.stringify(response.body)).not.toContain(key.pk);
    expect(output).toContain(
      `The stored payment link ${key.pk} / ${key.sk} does not decode (event_ids: expected a list, found a string).`,
    );
  });
});

describe('an item that does not decode, on a sweeper’s list', () => {
  it('fails alone: the refund sweeper logs it and settles the refunds of the other links', async () => {
    const paid = await createLink(stack, tenant.api_key);
    await navigate(paid.checkout_url);
    const session = (await storedLink(paid.id)).psp_session;
    await httpRequest(`${stack.baseUrl}/sandbox/checkout/${session?.id}/pay`, { method: 'POST' });
    await eventually(async () => (await storedLink(paid.id)).status === 'paid');
    // The refund's outcome is not stored: it stays pending, for the sweeper.
    vi.spyOn(DynamoRefundLedger.prototype, 'commitSettlement').mockRejectedValueOnce(new Error('store down'));
    const refund = await stack.request('POST', `/v1/payment-links/${paid.id}/refunds`, {
      key: tenant.api_key,
    });
    expect(refund.body.status).toBe('pending');
    const corrupt = await createLink(stack, tenant.api_key);
    await documentClient().send(
      new UpdateCommand({
        TableName: config().TABLE_NAME,
        Key: keys.link(corrupt.id, 'test'),
        UpdateExpression: 'SET event_ids = :none, gsi3pk = :shard, gsi3sk = :due',
        ExpressionAttributeValues: {
          ':none': 'none',
          ...Object.fromEntries(
            Object.entries(refundCheckKeys(corrupt.id, refund.body.created_at)).map(([name, value]) => [
              name === 'gsi3pk' ? ':shard' : ':due',
              value,
            ]),
          ),
        },
      }),
    );

    let swept: Awaited<ReturnType<typeof sweepPendingRefunds>> | undefined;
    const output = await capturedOutput(async () => {
      swept = await sweepPendingRefunds(
        new Date(Date.parse(refund.body.created_at) + FIRST_CHECK_AFTER_MS + 1_000),
      );
    });

    expect(swept).toEqual({ checked: 1, failed: 1 });
    expect(output).toContain(`The stored payment link LINK#${corrupt.id} / MODE#test does not decode`);
    expect((await storedLink(paid.id)).refunds).toMatchObject([{ id: refund.body.id, status: 'succeeded' }]);
  });
});
