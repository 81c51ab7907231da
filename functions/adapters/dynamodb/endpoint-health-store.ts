import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  type DynamoDBDocumentClient,
  UpdateCommand,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import {
  type EndpointHealth,
  type EndpointRef,
  endpointKey,
  UNKNOWN_ENDPOINT,
} from '../../domain/endpoint-health.ts';
import type { EndpointHealthStore } from '../../ports/endpoint-health.ts';
import { deliveryKeys } from './table-schema.ts';

/** An endpoint nobody has written about for this long is forgotten (the table's TTL deletes its item). */
const FORGET_AFTER_SECONDS = 7 * 24 * 3600;
/** BatchGetItem reads at most this many keys per request (a queue batch names at most 10 endpoints). */
const BATCH_GET_LIMIT = 100;
/** Slot attributes are `slot_0`, `slot_1`, ...; the domain bounds how many exist. */
const slotAttribute = (slot: number) => `slot_${slot}`;

const keyOf = (endpoint: EndpointRef) =>
  deliveryKeys.endpointHealth(endpoint.account, endpoint.mode, endpoint.origin);

function toHealth(item: Record<string, unknown> | undefined): EndpointHealth {
  if (!item) return UNKNOWN_ENDPOINT;
  const slots: number[] = [];
  for (const [name, value] of Object.entries(item)) {
    const slot = /^slot_(\d+)$/.exec(name)?.[1];
    if (slot !== undefined) slots[Number(slot)] = Number(value) || 0;
  }
  return {
    healthyUntil: Number(item.healthy_until ?? 0),
    failures: Number(item.failures ?? 0),
    slots: Array.from(slots, (lease) => lease ?? 0),
  };
}

/** The endpoint-health port on the single table: one small item per tenant endpoint. */
export class DynamoEndpointHealthStore implements EndpointHealthStore {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;

  constructor(client: DynamoDBDocumentClient, tableName: string) {
    this.client = client;
    this.tableName = tableName;
  }

  async getMany(endpoints: readonly EndpointRef[]): Promise<EndpointHealth[]> {
    const unique = [...new Map(endpoints.map((endpoint) => [endpointKey(endpoint), endpoint])).values()];
    const found = new Map<string, Record<string, unknown>>();
    for (let start = 0; start < unique.length; start += BATCH_GET_LIMIT) {
      let keys: Record<string, unknown>[] = unique.slice(start, start + BATCH_GET_LIMIT).map(keyOf);
      // Keys DynamoDB leaves unprocessed are asked again; health is advisory, so a few rounds suffice.
      for (let round = 0; keys.length && round < 3; round++) {
        const { Responses, UnprocessedKeys } = await this.client.send(
          new BatchGetCommand({ RequestItems: { [this.tableName]: { Keys: keys, ConsistentRead: true } } }),
        );
        for (const item of Responses?.[this.tableName] ?? []) found.set(`${item.pk}`, item);
        keys = UnprocessedKeys?.[this.tableName]?.Keys ?? [];
      }
    }
    return endpoints.map((endpoint) => toHealth(found.get(keyOf(endpoint).pk)));
  }

  claimSlot(
    endpoint: EndpointRef,
    slot: number,
    leaseUntil: number,
    now: number,
  ): Promise<EndpointHealth | undefined> {
    return this.update({
      Key: keyOf(endpoint),
      UpdateExpression: 'SET #slot = :lease, #ttl = :ttl',
      ConditionExpression: 'attribute_not_exists(#slot) OR #slot <= :now',
      ExpressionAttributeNames: { '#slot': slotAttribute(slot), '#ttl': 'ttl' },
      ExpressionAttributeValues: { ':lease': leaseUntil, ':now': now, ':ttl': forgetAt(now) },
    });
  }

  async recordAnswer(
    endpoint: EndpointRef,
    answered: boolean,
    healthyUntil: number,
    held?: { slot: number; lease: number; pauseUntil?: number | undefined },
  ): Promise<EndpointHealth> {
    const names: Record<string, string> = { '#ttl': 'ttl' };
    const values: Record<string, unknown> = { ':ttl': forgetAt(Date.now()), ':zero': 0 };
    let update: string;
    if (answered) {
      update = 'SET healthy_until = :until, failures = :zero, #ttl = :ttl';
      values[':until'] = healthyUntil;
    } else {
      update = 'SET failures = if_not_exists(failures, :zero) + :one, #ttl = :ttl REMOVE healthy_until';
      values[':one'] = 1;
    }
    if (held) {
      // Freed only while the lease is this attempt's: after it ended, another attempt may hold the slot.
      let slotUpdate: string;
      const slotValues: Record<string, unknown> = { ...values, ':lease': held.lease };
      if (held.pauseUntil !== undefined) {
        slotUpdate = update.replace('SET ', 'SET #slot = :pause, ');
        slotValues[':pause'] = held.pauseUntil;
      } else {
        slotUpdate = `${update}${answered ? ' REMOVE' : ','} #slot`;
      }
      const freed = await this.update({
        Key: keyOf(endpoint),
        UpdateExpression: slotUpdate,
        ConditionExpression: '#slot = :lease',
        ExpressionAttributeNames: { ...names, '#slot': slotAttribute(held.slot) },
        ExpressionAttributeValues: slotValues,
      });
      if (freed) return freed;
    }
    return (
      (await this.update({
        Key: keyOf(endpoint),
        UpdateExpression: update,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      })) ?? UNKNOWN_ENDPOINT
    );
  }

  markSlow(endpoint: EndpointRef): Promise<EndpointHealth | undefined> {
    return this.update({
      Key: keyOf(endpoint),
      UpdateExpression: 'REMOVE healthy_until',
      ConditionExpression: 'attribute_exists(healthy_until)',
    });
  }

  /** A conditional update returning the item after it; undefined when its condition did not hold. */
  private async update(input: Omit<UpdateCommandInput, 'TableName'>): Promise<EndpointHealth | undefined> {
    try {
      const { Attributes } = await this.client.send(
        new UpdateCommand({ ...input, TableName: this.tableName, ReturnValues: 'ALL_NEW' }),
      );
      return toHealth(Attributes);
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return undefined;
      throw error;
    }
  }
}

const forgetAt = (now: number) => Math.floor(now / 1000) + FORGET_AFTER_SECONDS;
