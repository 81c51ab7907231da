import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventQueue, linkRepository, secretStore } from '../../functions/dependencies.ts';
import { LOCAL_PSP_SECRET_PREFIX, LOCAL_SANDBOX_SECRET_NAME } from '../../lib/local/local-secrets.ts';
import { asFunction } from '../../lib/local/permissions.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack.stop());

const anyLinkId = 'pl_000000000000000000000000';

describe('the local stack runs each handler with its function’s permissions only', () => {
  it('allows what lib/routes.ts grants the function', async () => {
    await expect(
      asFunction('get-payment-link', () => linkRepository().get(anyLinkId, 'test')),
    ).resolves.toBeUndefined();
  });

  it('refuses a DynamoDB action the function is not granted, as AWS would', async () => {
    await expect(
      asFunction('route-fallback', () => linkRepository().get(anyLinkId, 'test')),
    ).rejects.toMatchObject({
      name: 'AccessDeniedException',
      message: expect.stringContaining('dynamodb:GetItem'),
    });
  });

  it('refuses a queue send to a function that does not send events', async () => {
    const event = { id: 'evt_000000000000000000000000', account: 'acct_a', mode: 'test' as const };
    await expect(asFunction('get-payment-link', () => eventQueue().publish(event))).rejects.toMatchObject({
      name: 'AccessDeniedException',
      message: expect.stringContaining('sqs:SendMessage'),
    });
    await expect(
      asFunction('cancel-payment-link', () => eventQueue().publish(event)),
    ).resolves.toBeUndefined();
  });

  it('lets a function read only the secrets lib/routes.ts grants it: the sandbox secret, PSP credentials', async () => {
    const pspSecret = `${LOCAL_PSP_SECRET_PREFIX}connections/pc_000000000000000000000000`;

    await expect(
      asFunction('sandbox-checkout', () => secretStore().get(LOCAL_SANDBOX_SECRET_NAME)),
    ).resolves.toEqual(expect.any(String));
    await expect(
      asFunction('update-payment-link', () => secretStore().get(pspSecret)),
    ).resolves.toBeUndefined();
    await expect(asFunction('sandbox-checkout', () => secretStore().get(pspSecret))).rejects.toMatchObject({
      name: 'AccessDeniedException',
      message: expect.stringContaining('secretsmanager:GetSecretValue'),
    });
    await expect(
      asFunction('get-payment-link', () => secretStore().get(LOCAL_SANDBOX_SECRET_NAME)),
    ).rejects.toMatchObject({ name: 'AccessDeniedException' });
  });

  it('does not check code that is not a function (tests, CLIs, the local poller)', async () => {
    await expect(linkRepository().get(anyLinkId, 'test')).resolves.toBeUndefined();
  });
});
