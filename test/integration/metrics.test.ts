import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { eventMessage } from '../../functions/adapters/sqs/event-queue.ts';
import { sandboxSessionStore } from '../../functions/dependencies.ts';
import { BUILT_IN_SANDBOX_ID, migratedConnectionId } from '../../functions/domain/connection.ts';
import { handler } from '../../functions/handlers/deliver-webhook.ts';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { lambdaContext } from '../../lib/local/api-gateway.ts';
import {
  createLink,
  sandboxNotification,
  sandboxReportsAmount,
  storedLink,
} from '../support/checkout-helpers.ts';
import { configureLegacyPsp } from '../support/connections.ts';
import { httpRequest, NAVIGATION_HEADERS, navigate } from '../support/navigate.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';
import {
  canceledLinkEvents,
  eventually,
  type Receiver,
  sqsEvent,
  startReceiver,
} from '../support/webhooks.ts';

interface EmfRecord {
  _aws: {
    Timestamp: number;
    CloudWatchMetrics: {
      Namespace: string;
      Dimensions: string[][];
      Metrics: { Name: string; Unit: string }[];
    }[];
  };
  [field: string]: unknown;
}

let stack: TestStack;
let acme: IssuedApiKey;
let endpoint: Receiver;
let written: string[] = [];

beforeAll(async () => {
  stack = await startTestStack({
    environment: {
      // Metrics on here, off in the other suites (vitest.config.ts).
      POWERTOOLS_METRICS_DISABLED: 'false',
      // A Stripe that refuses connections, for the account below that pays through Stripe.
      STRIPE_API_URL: 'http://127.0.0.1:9',
      // Each test uses its own account, so only the last one reaches this limit.
      RATE_LIMIT_REQUESTS: '5',
      RATE_LIMIT_WINDOW_SECONDS: '86400',
    },
  });
  acme = await stack.issueKey('metrics-co', 'test');
  endpoint = await startReceiver();
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: unknown) => {
    written.push(String(chunk));
    return true;
  });
  // The PSP failure below is logged as an error on stderr, as it should be; the report needs none of it.
  vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
});
afterEach(() => {
  written = [];
});
afterAll(async () => {
  vi.restoreAllMocks();
  await endpoint.close();
  await stack.stop();
});

/** The Embedded Metric Format lines the handlers wrote to stdout (CloudWatch's input on Lambda). */
const emfRecords = (): EmfRecord[] =>
  written
    .join('')
    .split('\n')
    .filter((line) => line.startsWith('{"_aws"'))
    .map((line) => JSON.parse(line));

/** The records carrying `name`, with the metric's unit and dimension sets as CloudWatch reads them. */
const recordsOf = (name: string) =>
  emfRecords()
    .filter((record) => record[name] !== undefined)
    .map((record) => {
      const [directive] = record._aws.CloudWatchMetrics;
      return {
        namespace: directive?.Namespace,
        unit: directive?.Metrics.find((metric) => metric.Name === name)?.Unit,
        dimensions: directive?.Dimensions,
        service: record.service,
        provider: record.provider,
        connection: record.connection,
        value: record[name],
      };
    });

describe('metrics (Embedded Metric Format on stdout)', () => {
  it('count a created link once, not its idempotent replay, in the stack namespace under service', async () => {
    const body = { amount: { value: '3.00', currency: 'EUR' } };
    const headers = { 'idempotency-key': 'metrics-once' };
    expect(
      (await stack.request('POST', '/v1/payment-links', { key: acme.api_key, body, headers })).status,
    ).toBe(201);
    expect(
      (await stack.request('POST', '/v1/payment-links', { key: acme.api_key, body, headers })).status,
    ).toBe(201);
    expect(recordsOf('LinksCreated')).toEqual([
      {
        namespace: 'PaymentLinks-local',
        unit: 'Count',
        dimensions: [['service']],
        service: 'payment-links',
        provider: undefined,
        value: 1,
      },
    ]);
  });

  it('count buyers visiting checkout, not link previews, and a confirmed payment per provider', async () => {
    const link = await createLink(stack, acme.api_key);
    await httpRequest(link.checkout_url, {
      headers: { ...NAVIGATION_HEADERS, 'user-agent': 'Slackbot-LinkExpanding 1.0' },
    });
    expect(recordsOf('CheckoutVisits')).toEqual([]);
    await navigate(link.checkout_url);
    await navigate(link.checkout_url);
    expect(recordsOf('CheckoutVisits').map((record) => record.value)).toEqual([1, 1]);

    const session = (await storedLink(link.id)).psp_session;
    if (!session) throw new Error('no session');
    await sandboxSessionStore().complete(session.id, `sbpay_metrics_${session.id}`, new Date());
    const notification = sandboxNotification({ session_id: session.id, link_id: link.id });
    const notify = () =>
      stack.request('POST', `/psp/sandbox/notifications/${BUILT_IN_SANDBOX_ID}`, {
        rawBody: notification.rawBody,
        headers: notification.headers,
      });
    expect((await notify()).body.outcome).toBe('paid');
    expect((await notify()).body.outcome).toBe('already_paid');
    // Once per provider and once in the total, in one line: a repeated notification is not a second payment.
    expect(recordsOf('PaymentsSucceeded')).toEqual([
      expect.objectContaining({
        unit: 'Count',
        dimensions: [['service', 'provider'], ['service']],
        provider: 'sandbox',
        value: 1,
      }),
    ]);
  });

  it('count a payment failed when the PSP cannot open a checkout session, under that provider', async () => {
    const shop = await stack.issueKey('metrics-stripe', 'test');
    await configureLegacyPsp('metrics-stripe', 'test', 'stripe', {
      secret_key: 'sk_test_metrics',
      webhook_secret: 'whsec_metrics',
    });

    const link = await createLink(stack, shop.api_key);
    expect((await navigate(link.checkout_url)).status).toBe(503);
    expect(recordsOf('PspSessionFailures')).toEqual([
      expect.objectContaining({
        dimensions: [['service', 'connection'], ['service']],
        connection: migratedConnectionId('metrics-stripe', 'test'),
        value: 1,
      }),
    ]);
    expect(recordsOf('PaymentsFailed')).toEqual([
      expect.objectContaining({
        dimensions: [['service', 'provider'], ['service']],
        provider: 'stripe',
        value: 1,
      }),
    ]);
    expect(recordsOf('PaymentsSucceeded')).toEqual([]);
  });

  it('count webhook attempts, successes, failures, and the latency of a delivered one', async () => {
    const hooks = await stack.issueKey('metrics-hooks', 'test');
    endpoint.reply(503);
    const failing = await createLink(stack, hooks.api_key, { webhook_url: endpoint.url });
    expect(
      (await stack.request('POST', `/v1/payment-links/${failing.id}/cancel`, { key: hooks.api_key })).status,
    ).toBe(200);
    await eventually(async () => recordsOf('WebhookAttempts').length === 1);

    const delivered = await createLink(stack, hooks.api_key, { webhook_url: endpoint.url });
    const canceledAt = Date.now();
    await stack.request('POST', `/v1/payment-links/${delivered.id}/cancel`, { key: hooks.api_key });
    await eventually(async () => recordsOf('WebhookAttempts').length === 2);
    const receivedAt = Date.now();

    expect(recordsOf('WebhookAttempts').map((record) => record.value)).toEqual([1, 1]);
    expect(recordsOf('WebhookFailures').map((record) => record.value)).toEqual([1, 0]);
    expect(recordsOf('WebhookSuccesses').map((record) => record.value)).toEqual([0, 1]);
    const [latency, ...more] = recordsOf('WebhookDeliveryLatency');
    expect(more).toEqual([]);
    expect(latency).toMatchObject({ unit: 'Milliseconds', dimensions: [['service']] });
    expect(latency?.value).toBeGreaterThanOrEqual(0);
    expect(latency?.value).toBeLessThanOrEqual(receivedAt - canceledAt);
  });

  it('count the webhook attempts of one batch in one line: summed, with a latency per delivered webhook', async () => {
    await stack.issueKey('metrics-batch', 'test');
    const ids = await canceledLinkEvents('metrics-batch', endpoint.url, 3);
    const messages = ids.map(
      (id) => eventMessage({ id, account: 'metrics-batch', mode: 'test', committed: true }).MessageBody,
    );

    await handler(sqsEvent(messages), lambdaContext('deliver-webhook', 30_000));

    const [line, ...more] = emfRecords().filter((record) => record.WebhookAttempts !== undefined);
    expect(more).toEqual([]);
    expect(line).toMatchObject({ WebhookAttempts: 3, WebhookSuccesses: 3, WebhookFailures: 0 });
    expect(line?.WebhookDeliveryLatency).toEqual([
      expect.any(Number),
      expect.any(Number),
      expect.any(Number),
    ]);
  });

  it('count a success reported at another amount than its payment, under its provider, once', async () => {
    const shop = await stack.issueKey('metrics-mismatch', 'test');
    const link = await createLink(stack, shop.api_key);
    await navigate(link.checkout_url);
    const session = (await storedLink(link.id)).psp_session;
    if (!session) throw new Error('no session');
    await sandboxSessionStore().complete(session.id, `sbpay_metrics_${session.id}`, new Date());
    await sandboxReportsAmount(stack.tableName, session.id, { value: '0.01', currency: 'USD' });
    const notification = sandboxNotification({ session_id: session.id, link_id: link.id });
    const notify = () =>
      stack.request('POST', `/psp/sandbox/notifications/${BUILT_IN_SANDBOX_ID}`, {
        rawBody: notification.rawBody,
        headers: notification.headers,
      });
    expect((await notify()).body.outcome).toBe('failed');
    expect((await notify()).body.outcome).toBe('failed');
    expect(recordsOf('PaymentAmountMismatches')).toEqual([
      expect.objectContaining({
        unit: 'Count',
        dimensions: [['service', 'provider'], ['service']],
        provider: 'sandbox',
        value: 1,
      }),
    ]);
    expect(recordsOf('PaymentsSucceeded')).toEqual([]);
  });

  it('count requests refused by the rate limit', async () => {
    const busy = await stack.issueKey('metrics-busy', 'test');
    const statuses: number[] = [];
    for (let index = 0; index < 7; index++) {
      statuses.push((await stack.request('GET', '/v1/payment-links', { key: busy.api_key })).status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
    expect(recordsOf('RateLimitRejections').map((record) => record.value)).toEqual([1, 1]);
  });
});
