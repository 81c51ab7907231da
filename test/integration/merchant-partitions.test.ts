import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linkToItem } from '../../functions/adapters/dynamodb/link-mapper.ts';
import { keys, MERCHANT_SHARDS, tableSchema } from '../../functions/adapters/dynamodb/table-schema.ts';
import { documentClient } from '../../functions/clients/dynamodb.ts';
import { config } from '../../functions/config.ts';
import { newPaymentLink } from '../../functions/domain/payment-link.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack.stop());

/** A link as it was stored before one merchant's listing was split: under the unsplit partition key. */
async function storeUnsplitLink(account: string, createdAt: Date) {
  const link = newPaymentLink(
    { account, mode: 'test' },
    { amount: { value: '3.00', currency: 'EUR' } },
    createdAt,
  );
  await documentClient().send(
    new PutCommand({
      TableName: config().TABLE_NAME,
      Item: { ...linkToItem(link), gsi1pk: keys.linksOfAccount(account, 'test') },
    }),
  );
  return link.id;
}

async function pages(key: string, path: string, limit: number): Promise<string[]> {
  const seen: string[] = [];
  let cursor: string | null = null;
  do {
    const query: string = `?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`;
    const response = await stack.request('GET', `${path}${query}`, { key });
    expect(response.status).toBe(200);
    seen.push(...response.body.data.map((item: { id: string }) => item.id));
    cursor = response.body.next_cursor;
  } while (cursor);
  return seen;
}

describe("one merchant's listing over several partitions (docs/scaling.md#readers-of-the-split-keys)", () => {
  it('spreads new links over the shards and pages through them and the pre-split ones newest first', async () => {
    const tenant = await stack.issueKey('split', 'test');
    const older = await storeUnsplitLink('split', new Date(Date.now() - 60_000));
    const created: string[] = [];
    for (let index = 0; index < 12; index++) {
      const response = await stack.request('POST', '/v1/payment-links', {
        key: tenant.api_key,
        body: { amount: { value: '5.00', currency: 'EUR' } },
      });
      expect(response.status).toBe(201);
      created.push(response.body.id);
    }
    const newer = await storeUnsplitLink('split', new Date(Date.now() + 60_000));

    const used = await Promise.all(
      Array.from({ length: MERCHANT_SHARDS }, async (_, shard) => {
        const { Count } = await documentClient().send(
          new QueryCommand({
            TableName: config().TABLE_NAME,
            IndexName: tableSchema.gsi1.indexName,
            KeyConditionExpression: 'gsi1pk = :pk',
            ExpressionAttributeValues: { ':pk': `${keys.linkListing('split', 'test')}#${shard}` },
          }),
        );
        return Count ?? 0;
      }),
    );
    expect(used.filter((count) => count > 0).length).toBeGreaterThan(1);

    const expected = [newer, ...[...created].reverse(), older];
    expect(await pages(tenant.api_key, '/v1/payment-links', 5)).toEqual(expected);
    expect(await pages(tenant.api_key, '/v1/payment-links', 100)).toEqual(expected);
  });

  it('pages through the events feed of links spread over the shards, newest first, each once', async () => {
    const tenant = await stack.issueKey('split-events', 'test');
    const links: string[] = [];
    for (let index = 0; index < 8; index++) {
      const response = await stack.request('POST', '/v1/payment-links', {
        key: tenant.api_key,
        body: { amount: { value: '5.00', currency: 'EUR' } },
      });
      links.push(response.body.id);
      const canceled = await stack.request('POST', `/v1/payment-links/${response.body.id}/cancel`, {
        key: tenant.api_key,
      });
      expect(canceled.status).toBe(200);
    }
    const paged = await pages(tenant.api_key, '/v1/events', 3);
    const whole = await pages(tenant.api_key, '/v1/events', 100);
    expect(paged).toEqual(whole);
    expect(new Set(whole).size).toBe(whole.length);
    expect(whole.length).toBeGreaterThanOrEqual(links.length);
  });
});
