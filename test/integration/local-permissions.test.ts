import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventQueue, linkRepository } from '../../functions/dependencies.ts';
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

  it('does not check code that is not a function (tests, CLIs, the local poller)', async () => {
    await expect(linkRepository().get(anyLinkId, 'test')).resolves.toBeUndefined();
  });
});
