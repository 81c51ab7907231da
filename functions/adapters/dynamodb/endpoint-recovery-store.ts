import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { isId } from '../../domain/ids.ts';
import type { Mode } from '../../domain/principal.ts';
import type { EndpointRecoveryStore, Recovery } from '../../ports/endpoint-recoveries.ts';
import { recoveryFromItem } from './recovery-mapper.ts';
import { endpointKeys, outboxKeys } from './table-schema.ts';
import { setAttributes } from './update-expressions.ts';

const conditionFailed = (error: unknown) => error instanceof ConditionalCheckFailedException;

async function conditionally(send: () => Promise<unknown>): Promise<boolean> {
  try {
    await send();
    return true;
  } catch (error) {
    if (conditionFailed(error)) return false;
    throw error;
  }
}

/**
 * Recoveries beside their endpoint (`WEBHOOK_ENDPOINTS#<account>#<mode>` / `RECOVERY#<we id>`). A running one is in
 * the outbox (gsi2) like an undelivered event, with `kind = recovery` and its step as `delivery_seq`, so the
 * sweeper brings back a step whose message was lost.
 */
export class DynamoEndpointRecoveryStore implements EndpointRecoveryStore {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;

  constructor(client: DynamoDBDocumentClient, tableName: string) {
    this.client = client;
    this.tableName = tableName;
  }

  start(recovery: Recovery, dueAt: Date): Promise<boolean> {
    const fields: Record<string, unknown> = {
      ...recovery,
      id: recovery.endpoint_id,
      kind: 'recovery',
      delivery_seq: recovery.step,
      ...outboxKeys(recovery.endpoint_id, dueAt),
    };
    const set = setAttributes(fields);
    return conditionally(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: endpointKeys.recovery(recovery.account, recovery.mode, recovery.endpoint_id),
          UpdateExpression: `${set.UpdateExpression} REMOVE finished_at`,
          ConditionExpression: 'attribute_not_exists(pk) OR #status = :done',
          ExpressionAttributeNames: set.ExpressionAttributeNames,
          ExpressionAttributeValues: { ...set.ExpressionAttributeValues, ':done': 'done' },
        }),
      ),
    );
  }

  async get(account: string, mode: Mode, endpointId: string): Promise<Recovery | undefined> {
    if (!isId('we', endpointId)) return undefined;
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: endpointKeys.recovery(account, mode, endpointId),
        ConsistentRead: true,
      }),
    );
    return Item ? recoveryFromItem(Item) : undefined;
  }

  claim(recovery: Recovery, dueAt: Date): Promise<boolean> {
    return conditionally(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: endpointKeys.recovery(recovery.account, recovery.mode, recovery.endpoint_id),
          UpdateExpression: 'SET step = :next, delivery_seq = :next, gsi2pk = :gsi2pk, gsi2sk = :gsi2sk',
          ConditionExpression: '#status = :running AND step = :step',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':running': 'running',
            ':step': recovery.step,
            ':next': recovery.step + 1,
            ':gsi2pk': outboxKeys(recovery.endpoint_id, dueAt).gsi2pk,
            ':gsi2sk': outboxKeys(recovery.endpoint_id, dueAt).gsi2sk,
          },
        }),
      ),
    );
  }

  progress(
    recovery: Recovery,
    update: { cursor: string | undefined; queued: number; done: boolean; at: Date },
  ): Promise<boolean> {
    const values: Record<string, unknown> = {
      ':running': 'running',
      ':step': recovery.step,
      ':queued': update.queued,
    };
    const set = ['queued = :queued'];
    if (update.cursor !== undefined) {
      set.push('#cursor = :cursor');
      values[':cursor'] = update.cursor;
    }
    let remove = '';
    if (update.done) {
      set.push('#status = :done', 'finished_at = :at');
      Object.assign(values, { ':done': 'done', ':at': update.at.toISOString() });
      remove = ' REMOVE gsi2pk, gsi2sk';
    }
    return conditionally(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: endpointKeys.recovery(recovery.account, recovery.mode, recovery.endpoint_id),
          UpdateExpression: `SET ${set.join(', ')}${remove}`,
          ConditionExpression: '#status = :running AND step = :step',
          ExpressionAttributeNames: {
            '#status': 'status',
            ...(update.cursor !== undefined && { '#cursor': 'cursor' }),
          },
          ExpressionAttributeValues: values,
        }),
      ),
    );
  }
}
