import { KMSClient } from '@aws-sdk/client-kms';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoSigningSecretStore } from '../../functions/adapters/dynamodb/signing-secret-store.ts';
import { keys } from '../../functions/adapters/dynamodb/table-schema.ts';
import { KmsCipher } from '../../functions/adapters/secrets/kms-cipher.ts';
import { documentClient } from '../../functions/clients/dynamodb.ts';
import { apiKeyRepository, signingSecretStore } from '../../functions/dependencies.ts';
import { rotateWebhookSecret } from '../../functions/use-cases/api-keys.ts';
import { asFunction } from '../../lib/local/permissions.ts';
import { type FakeKms, startFakeKms } from '../support/fake-kms.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';

let stack: TestStack;
let kms: FakeKms;

beforeAll(async () => {
  stack = await startTestStack();
  kms = await startFakeKms();
});
afterAll(async () => {
  await kms.stop();
  await stack.stop();
});

const stored = async (key: { pk: string; sk: string }) =>
  (await documentClient().send(new GetCommand({ TableName: stack.tableName, Key: key }))).Item;

describe('webhook signing secrets at rest', () => {
  it('are stored sealed, never in plaintext, and open only for their own account and mode', async () => {
    const issued = await stack.issueKey('sealed-co', 'test');
    const item = await stored(keys.signingSecret('sealed-co', 'test'));
    expect(item?.secret).toMatch(/^local1\./);
    expect(JSON.stringify(item)).not.toContain(issued.webhook_secret);
    expect(JSON.stringify(item)).not.toContain(issued.webhook_secret.slice('whsec_'.length));
    expect(await signingSecretStore().getWebhookSecret('sealed-co', 'test')).toBe(issued.webhook_secret);

    // The same ciphertext copied under another tenant does not open there.
    await documentClient().send(
      new PutCommand({
        TableName: stack.tableName,
        Item: { ...keys.signingSecret('thief-co', 'test'), secret: item?.secret },
      }),
    );
    await expect(signingSecretStore().getWebhookSecret('thief-co', 'test')).rejects.toThrow();
  });

  it('keep a plaintext secret of an earlier version working, sealing it and blanking the old item on first use', async () => {
    const legacySecret = `whsec_${Buffer.from('l'.repeat(32)).toString('base64')}`;
    await documentClient().send(
      new PutCommand({
        TableName: stack.tableName,
        Item: { ...keys.legacyWebhookSecret('legacy-co', 'live'), secret: legacySecret, created_at: 'x' },
      }),
    );
    const signing = await asFunction('deliver-webhook', () =>
      signingSecretStore().getSigningSecrets('legacy-co', 'live', new Date()),
    );
    expect(signing).toEqual([legacySecret]);
    expect((await stored(keys.signingSecret('legacy-co', 'live')))?.secret).toMatch(/^local1\./);
    const old = await stored(keys.legacyWebhookSecret('legacy-co', 'live'));
    expect(old?.secret).toBeUndefined();
    expect(JSON.stringify(old)).not.toContain(legacySecret);
  });

  it('keep signing with a plaintext secret when sealing it fails, and try again at the next read', async () => {
    const legacySecret = `whsec_${Buffer.from('f'.repeat(32)).toString('base64')}`;
    await documentClient().send(
      new PutCommand({
        TableName: stack.tableName,
        Item: { ...keys.legacyWebhookSecret('kms-down', 'test'), secret: legacySecret },
      }),
    );
    const failing = new DynamoSigningSecretStore(documentClient(), stack.tableName, {
      encrypt: () => Promise.reject(new Error('KMS is down')),
      decrypt: () => Promise.reject(new Error('KMS is down')),
    });
    expect(await failing.getSigningSecrets('kms-down', 'test', new Date())).toEqual([legacySecret]);
    expect((await stored(keys.legacyWebhookSecret('kms-down', 'test')))?.secret).toBe(legacySecret);
    expect(await signingSecretStore().getSigningSecrets('kms-down', 'test', new Date())).toEqual([
      legacySecret,
    ]);
    expect((await stored(keys.legacyWebhookSecret('kms-down', 'test')))?.secret).toBeUndefined();
  });

  it('move a plaintext secret on rotation too, so that it keeps signing through the overlap', async () => {
    const legacySecret = `whsec_${Buffer.from('r'.repeat(32)).toString('base64')}`;
    await documentClient().send(
      new PutCommand({
        TableName: stack.tableName,
        Item: { ...keys.legacyWebhookSecret('rotating-legacy', 'test'), secret: legacySecret },
      }),
    );
    const rotated = await rotateWebhookSecret(signingSecretStore(), 'rotating-legacy', 'test');
    expect(await signingSecretStore().getSigningSecrets('rotating-legacy', 'test', new Date())).toEqual([
      rotated.webhook_secret,
      legacySecret,
    ]);
  });
});

describe('who may read them, in the local stack as on AWS', () => {
  it('refuses API-key records and signing secrets to the public-facing functions, whatever they may read otherwise', async () => {
    const issued = await stack.issueKey('guarded-co', 'test');
    for (const handler of ['checkout-page', 'psp-notifications', 'sandbox-checkout'] as const) {
      await expect(asFunction(handler, () => apiKeyRepository().get(issued.key_id))).rejects.toMatchObject({
        name: 'AccessDeniedException',
        message: expect.stringContaining('APIKEY#'),
      });
      await expect(
        asFunction(handler, () => signingSecretStore().getWebhookSecret('guarded-co', 'test')),
      ).rejects.toMatchObject({ name: 'AccessDeniedException' });
    }
  });

  it('lets only the delivery function open a signing secret', async () => {
    const issued = await stack.issueKey('opened-co', 'test');
    await expect(
      asFunction('get-payment-link', () => signingSecretStore().getWebhookSecret('opened-co', 'test')),
    ).rejects.toMatchObject({
      name: 'AccessDeniedException',
      message: expect.stringContaining('kms:Decrypt'),
    });
    await expect(
      asFunction('deliver-webhook', () =>
        signingSecretStore().getSigningSecrets('opened-co', 'test', new Date()),
      ),
    ).resolves.toEqual([issued.webhook_secret]);
  });
});

describe('KMS envelope encryption, through the official KMS client', () => {
  const cipher = (now = Date.now) =>
    new KmsCipher({
      client: () =>
        new KMSClient({
          endpoint: kms.endpoint,
          region: 'us-east-1',
          credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
        }),
      keyId: kms.keyId,
      now,
    });
  const context = { purpose: 'webhook-signing-secret', account: 'acme', mode: 'live' };

  it('seals under a fresh data key and opens under the same context only', async () => {
    const sealing = cipher();
    const sealed = await sealing.encrypt('whsec_abc', context);
    expect(sealed).toMatch(/^kms1\./);
    expect(sealed).not.toContain('whsec_abc');
    expect(await sealing.decrypt(sealed, context)).toBe('whsec_abc');
    await expect(cipher().decrypt(sealed, { ...context, account: 'other' })).rejects.toThrow();
  });

  it('asks KMS to decrypt a data key once while it is cached, and again after', async () => {
    let clock = 0;
    const opening = cipher(() => clock);
    const sealed = await opening.encrypt('whsec_cached', context);
    const before = kms.calls.filter((call) => call === 'Decrypt').length;
    await Promise.all(Array.from({ length: 5 }, () => opening.decrypt(sealed, context)));
    expect(kms.calls.filter((call) => call === 'Decrypt').length - before).toBe(1);
    clock += 5 * 60_000 + 1;
    expect(await opening.decrypt(sealed, context)).toBe('whsec_cached');
    expect(kms.calls.filter((call) => call === 'Decrypt').length - before).toBe(2);
  });
});
