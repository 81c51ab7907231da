// @module-tag waits: injected PSP and DynamoDB timeouts wait out their budgets (test/support/sequencer.ts)
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { documentClient } from '../../functions/clients/dynamodb.ts';
import { sqsClient } from '../../functions/clients/sqs.ts';
import { FaultInjector, installFaults, parseFaults } from '../../lib/local/faults.ts';
import { asFunction } from '../../lib/local/permissions.ts';
import { createLink } from '../support/checkout-helpers.ts';
import { addConnection } from '../support/connections.ts';
import { navigate } from '../support/navigate.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';

let stack: TestStack;
let removeFaults: (() => void) | undefined;

beforeAll(async () => {
  // A sweeper timer running a function while a test holds a 100% fault mix would count faults that test did not cause.
  stack = await startTestStack({ schedules: false });
});
afterEach(() => {
  removeFaults?.();
  removeFaults = undefined;
});
afterAll(() => stack.stop());

/** Turns on `spec` (the FAULTS syntax) for what follows in the test; answers its injector. */
function inject(spec: string): FaultInjector {
  const injector = new FaultInjector(parseFaults(spec, '1') as NonNullable<ReturnType<typeof parseFaults>>);
  removeFaults = installFaults(injector);
  return injector;
}

const getItem = () =>
  documentClient().send(new GetCommand({ TableName: stack.tableName, Key: { pk: 'nothing', sk: 'here' } }));

describe('FAULTS', () => {
  it('reads target:kind:probability entries, and refuses any other with the kinds it knows', () => {
    expect(parseFaults('dynamodb:throttle:0.05, webhook:reset:1', '7')).toEqual({
      seed: 7,
      rules: [
        { target: 'dynamodb', kind: 'throttle', probability: 0.05 },
        { target: 'webhook', kind: 'reset', probability: 1 },
      ],
    });
    expect(parseFaults('', undefined)).toBeUndefined();
    expect(() => parseFaults('dynamodb:slow:0.1')).toThrow(/"dynamodb:slow:0.1".*dynamodb:throttle/);
    expect(() => parseFaults('sqs:error:2')).toThrow(/probability from 0 to 1/);
    expect(() => parseFaults('sqs:error:0.1', 'x')).toThrow(/FAULTS_SEED/);
  });

  it('draws the same faults from the same seed', () => {
    const draws = (seed: string) => {
      const injector = new FaultInjector(parseFaults('psp:5xx:0.3,psp:timeout:0.2', seed) as never);
      return Array.from({ length: 50 }, () => injector.draw('psp') ?? '-').join(',');
    };
    expect(draws('42')).toBe(draws('42'));
    expect(draws('42')).not.toBe(draws('43'));
  });

  it("throttles a function's DynamoDB call with DynamoDB's own answer, which the SDK parses and retries", async () => {
    const injector = inject('dynamodb:throttle:1');
    const error = await asFunction('get-payment-link', getItem).catch((caught: unknown) => caught);
    expect(error).toMatchObject({
      name: 'ProvisionedThroughputExceededException',
      $fault: 'client',
      $metadata: { httpStatusCode: 400 },
    });
    const { attempts } = (error as { $metadata: { attempts: number } }).$metadata;
    expect(attempts).toBeGreaterThan(1);
    // Each try was drawn (the scheduled functions running meanwhile meet the faults too).
    expect(injector.injected['dynamodb:throttle']).toBeGreaterThanOrEqual(attempts);
  });

  it("times out a function's DynamoDB call with the SDK's TimeoutError, retried as transient", async () => {
    inject('dynamodb:timeout:1');
    const error = await asFunction('get-payment-link', getItem).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ name: 'TimeoutError', code: 'ETIMEDOUT' });
    expect((error as { $metadata: { attempts: number } }).$metadata.attempts).toBeGreaterThan(1);
  });

  it("fails a function's SQS call with SQS's HTTP 500, which the SDK retries", async () => {
    inject('sqs:error:1');
    const error = await asFunction('outbox-sweeper', () =>
      sqsClient().send(
        new SendMessageCommand({
          QueueUrl: process.env.EVENTS_QUEUE_URL,
          MessageBody: '{}',
          MessageGroupId: 'faults',
        }),
      ),
    ).catch((caught: unknown) => caught);
    expect(error).toMatchObject({
      name: 'InternalFailure',
      $fault: 'server',
      $metadata: { httpStatusCode: 500 },
    });
    expect((error as { $metadata: { attempts: number } }).$metadata.attempts).toBeGreaterThan(1);
  });

  it('leaves calls made outside any function alone (the CLIs, tests arranging data)', async () => {
    const injector = inject('dynamodb:throttle:1,sqs:error:1');
    await expect(getItem()).resolves.toBeDefined();
    expect(injector.total()).toBe(0);
  });

  it('answers a request whose DynamoDB calls stay throttled with 503 temporarily_unavailable and Retry-After', async () => {
    const { api_key } = await stack.issueKey('faults-api', 'test');
    inject('dynamodb:throttle:1');
    const response = await stack.request('GET', '/v1/payment-links', { key: api_key });
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('1');
    expect(response.body).toMatchObject({ code: 'temporarily_unavailable', status: 503 });
  });

  it('fails every PSP call with psp:5xx: the checkout page answers 503 with Retry-After, the link stays open', async () => {
    const { api_key } = await stack.issueKey('faults-psp', 'test');
    await addConnection({ account: 'faults-psp', mode: 'test', provider: 'sandbox', name: 'only' });
    const link = await createLink(stack, api_key);
    const injector = inject('psp:5xx:1');
    const page = await navigate(link.checkout_url);
    expect(page.status).toBe(503);
    expect(page.headers['retry-after']).toBeDefined();
    expect(injector.injected['psp:5xx']).toBe(1);
    removeFaults?.();
    removeFaults = undefined;
    expect((await navigate(link.checkout_url)).status).toBe(200);
  });
});
