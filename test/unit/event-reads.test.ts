import type { BatchGetCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { DynamoEventRepository } from '../../functions/adapters/dynamodb/event-repository.ts';
import { eventItem } from '../../functions/adapters/dynamodb/link-repository.ts';
import { newId } from '../../functions/domain/ids.ts';
import { cancel } from '../../functions/domain/link-events.ts';
import { orderLink } from '../support/psp-fixtures.ts';

const TABLE = 'links';
type Key = { pk: string; sk: string };

/**
 * DynamoDB's answers to BatchGetItem under throttling (UnprocessedKeys) cannot be produced by the embedded
 * store, so this stand-in client gives them: it holds `items` and leaves unprocessed what `throttle` says.
 */
function batchGetClient(
  events: Record<string, unknown>[],
  throttle: (round: number, keys: Key[]) => Key[] = () => [],
) {
  const requests: Key[][] = [];
  const client = {
    async send(command: BatchGetCommand) {
      const request = command.input.RequestItems?.[TABLE];
      const keys = (request?.Keys ?? []) as Key[];
      expect(request?.ConsistentRead).toBe(true);
      requests.push(keys);
      const unprocessed = throttle(requests.length, keys);
      const served = keys.filter((key) => !unprocessed.includes(key));
      return {
        Responses: {
          [TABLE]: served.flatMap((key) => {
            const event = events.find((candidate) => `EVENT#${candidate.id}` === key.pk);
            return event ? [{ ...event, ...key, mode: key.sk.replace('MODE#', '') }] : [];
          }),
        },
        UnprocessedKeys: unprocessed.length ? { [TABLE]: { Keys: unprocessed } } : {},
      };
    },
  };
  return { client: client as unknown as DynamoDBDocumentClient, requests };
}

/** Stored events as the table holds them (each a link's cancellation), so that the repository decodes them. */
const events = (count: number) =>
  Array.from({ length: count }, () => eventItem(cancel(orderLink('10.00'), new Date())!.event));

describe('reading several events', () => {
  it('reads them with one BatchGetItem, each key once, and answers in the order asked', async () => {
    // Prepare
    const stored = events(3);
    const { client, requests } = batchGetClient(stored);
    const repository = new DynamoEventRepository(client, TABLE);
    const missing = newId('evt');
    // Act
    const [first, again, second, absent] = await repository.getMany([
      { id: stored[0]!.id, mode: 'test' },
      { id: stored[0]!.id, mode: 'test' },
      { id: stored[1]!.id, mode: 'test' },
      { id: missing, mode: 'test' },
    ]);
    // Assess
    expect(first).toMatchObject({ id: stored[0]!.id, mode: 'test' });
    expect(again).toEqual(first);
    expect(second).toMatchObject({ id: stored[1]!.id });
    expect(absent).toBeUndefined();
    expect(requests).toHaveLength(1);
    expect(requests[0]).toHaveLength(3);
  });

  it('keeps the modes apart', async () => {
    // Prepare
    const stored = events(1);
    const { client } = batchGetClient(stored);
    const repository = new DynamoEventRepository(client, TABLE);
    // Act
    const [test, live] = await repository.getMany([
      { id: stored[0]!.id, mode: 'test' },
      { id: stored[0]!.id, mode: 'live' },
    ]);
    // Assess
    expect(test).toMatchObject({ mode: 'test' });
    expect(live).toMatchObject({ mode: 'live' });
  });

  it('splits more than 100 keys over several requests', async () => {
    // Prepare
    const stored = events(150);
    const { client, requests } = batchGetClient(stored);
    const repository = new DynamoEventRepository(client, TABLE);
    // Act
    const found = await repository.getMany(stored.map((event) => ({ id: event.id, mode: 'test' as const })));
    // Assess
    expect(found.map((event) => event?.id)).toEqual(stored.map((event) => event.id));
    expect(requests.map((keys) => keys.length)).toEqual([100, 50]);
  });

  it('asks again for the keys DynamoDB left unprocessed', async () => {
    // Prepare
    const stored = events(4);
    const { client, requests } = batchGetClient(stored, (round, keys) => (round === 1 ? keys.slice(2) : []));
    const repository = new DynamoEventRepository(client, TABLE);
    // Act
    const found = await repository.getMany(stored.map((event) => ({ id: event.id, mode: 'test' as const })));
    // Assess
    expect(found.map((event) => event?.id)).toEqual(stored.map((event) => event.id));
    expect(requests.map((keys) => keys.length)).toEqual([4, 2]);
  });

  it('fails, so the records are retried, when keys stay unprocessed', async () => {
    // Prepare
    const stored = events(2);
    const { client, requests } = batchGetClient(stored, (_round, keys) => keys);
    const repository = new DynamoEventRepository(client, TABLE);
    // Act and assess
    await expect(
      repository.getMany(stored.map((event) => ({ id: event.id, mode: 'test' as const }))),
    ).rejects.toThrow('DynamoDB left item reads unprocessed.');
    expect(requests).toHaveLength(5);
  });

  it('answers ids that cannot be event ids, or none at all, without a request', async () => {
    // Prepare
    const { client, requests } = batchGetClient([]);
    const repository = new DynamoEventRepository(client, TABLE);
    // Act and assess
    expect(await repository.getMany([{ id: 'evt_short', mode: 'test' }])).toEqual([undefined]);
    expect(await repository.getMany([])).toEqual([]);
    expect(requests).toHaveLength(0);
  });
});
