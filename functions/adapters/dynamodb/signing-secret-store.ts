import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Mode } from '../../domain/principal.ts';
import { logger } from '../../logger.ts';
import type { SecretCipher } from '../../ports/secret-cipher.ts';
import type { SigningSecretStore } from '../../ports/signing-secret-store.ts';
import { keys } from './table-schema.ts';

interface StoredSecrets {
  secret: string;
  previous_secret?: string;
  previous_until?: string;
}

/**
 * Signing secrets sealed by `cipher` (KMS on AWS), one item per (account, mode) under `SIGNING_SECRET#<account>`.
 * Writes are UpdateItems only, so the delivery function needs no more than GetItem and UpdateItem.
 *
 * Secrets stored in plaintext by earlier versions (`ACCOUNT#<account>` / `WEBHOOK_SECRET#<mode>`) keep working:
 * the first read or rotation seals them into the new item and removes the plaintext from the old one
 * (docs/security.md#webhook-signing-secrets).
 */
export class DynamoSigningSecretStore implements SigningSecretStore {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;
  private readonly cipher: SecretCipher;

  constructor(client: DynamoDBDocumentClient, tableName: string, cipher: SecretCipher) {
    this.client = client;
    this.tableName = tableName;
    this.cipher = cipher;
  }

  async ensureWebhookSecret(account: string, mode: Mode, candidate: string): Promise<string> {
    const existing = await this.read(account, mode);
    if (existing) return existing.secret;
    const context = secretContext(account, mode);
    const created = await this.create(account, mode, {
      secret: await this.cipher.encrypt(candidate, context),
    });
    if (created) return candidate;
    const winner = await this.read(account, mode);
    if (!winner) throw new Error(`The ${mode} signing secret of ${account} vanished`);
    return winner.secret;
  }

  async createWebhookSecretIfNone(account: string, mode: Mode, candidate: string): Promise<boolean> {
    const [sealed, legacy] = await Promise.all([
      this.item(keys.signingSecret(account, mode)),
      this.item(keys.legacyWebhookSecret(account, mode)),
    ]);
    if (typeof sealed?.secret === 'string' || typeof legacy?.secret === 'string') return false;
    const secret = await this.cipher.encrypt(candidate, secretContext(account, mode));
    return this.create(account, mode, { secret });
  }

  async getWebhookSecret(account: string, mode: Mode): Promise<string | undefined> {
    return (await this.read(account, mode))?.secret;
  }

  async getSigningSecrets(account: string, mode: Mode, now: Date): Promise<string[]> {
    const stored = await this.read(account, mode);
    if (!stored) return [];
    const previousValid =
      stored.previous_secret !== undefined &&
      stored.previous_until !== undefined &&
      Date.parse(stored.previous_until) > now.getTime();
    return previousValid ? [stored.secret, stored.previous_secret as string] : [stored.secret];
  }

  async rotateWebhookSecret(
    account: string,
    mode: Mode,
    candidate: string,
    previousUntil: Date,
  ): Promise<void> {
    await this.read(account, mode); // moves a plaintext secret first, so that it becomes the previous one
    await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: keys.signingSecret(account, mode),
        UpdateExpression:
          'SET previous_secret = secret, previous_until = :until, secret = :next, rotated_at = :now',
        ConditionExpression: 'attribute_exists(secret)',
        ExpressionAttributeValues: {
          ':next': await this.cipher.encrypt(candidate, secretContext(account, mode)),
          ':until': previousUntil.toISOString(),
          ':now': new Date().toISOString(),
        },
      }),
    );
  }

  /** The opened secrets of (account, mode), moving a plaintext legacy item first. */
  private async read(account: string, mode: Mode): Promise<StoredSecrets | undefined> {
    const sealed = await this.item(keys.signingSecret(account, mode));
    if (typeof sealed?.secret === 'string') {
      const context = secretContext(account, mode);
      return {
        secret: await this.cipher.decrypt(sealed.secret, context),
        ...(typeof sealed.previous_secret === 'string' && typeof sealed.previous_until === 'string'
          ? {
              previous_secret: await this.cipher.decrypt(sealed.previous_secret, context),
              previous_until: sealed.previous_until,
            }
          : {}),
      };
    }
    const legacy = await this.item(keys.legacyWebhookSecret(account, mode));
    if (typeof legacy?.secret !== 'string') return undefined;
    const plaintext: StoredSecrets = { secret: legacy.secret };
    if (typeof legacy.previous_secret === 'string' && typeof legacy.previous_until === 'string') {
      plaintext.previous_secret = legacy.previous_secret;
      plaintext.previous_until = legacy.previous_until;
    }
    // Webhooks go on being signed even when sealing fails this time: the next read tries again.
    await this.migrate(account, mode, plaintext).catch((error: unknown) =>
      logger.warn('A plaintext signing secret could not be sealed yet', { account, mode, error }),
    );
    return plaintext;
  }

  /** Seals a plaintext secret of an earlier version into the new item, then blanks the old one. */
  private async migrate(account: string, mode: Mode, plaintext: StoredSecrets): Promise<void> {
    const context = secretContext(account, mode);
    const sealed: StoredSecrets = { secret: await this.cipher.encrypt(plaintext.secret, context) };
    if (plaintext.previous_secret !== undefined && plaintext.previous_until !== undefined) {
      sealed.previous_secret = await this.cipher.encrypt(plaintext.previous_secret, context);
      sealed.previous_until = plaintext.previous_until;
    }
    await this.create(account, mode, sealed); // a concurrent migration wrote the same secrets: either wins
    await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: keys.legacyWebhookSecret(account, mode),
        UpdateExpression: 'REMOVE secret, previous_secret SET moved_at = :now',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':now': new Date().toISOString() },
      }),
    );
  }

  /** Writes a new item unless one exists; whether it did. */
  private async create(account: string, mode: Mode, sealed: StoredSecrets): Promise<boolean> {
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = { ':now': new Date().toISOString() };
    const assignments = ['created_at = :now'];
    for (const [field, value] of Object.entries(sealed)) {
      names[`#${field}`] = field;
      values[`:${field}`] = value;
      assignments.push(`#${field} = :${field}`);
    }
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.signingSecret(account, mode),
          UpdateExpression: `SET ${assignments.join(', ')}`,
          ConditionExpression: 'attribute_not_exists(pk)',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }

  private async item(key: { pk: string; sk: string }) {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: true }),
    );
    return Item;
  }
}

/** What a sealed signing secret is bound to: it opens for this account and mode only. */
export function secretContext(account: string, mode: Mode): Record<string, string> {
  return { purpose: 'webhook-signing-secret', account, mode };
}
