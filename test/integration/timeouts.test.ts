import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SandboxNotifier } from '../../functions/adapters/psp/sandbox/notifier.ts';
import { StripePsp } from '../../functions/adapters/psp/stripe/adapter.ts';
import { stripe } from '../../functions/adapters/psp/stripe/descriptor.ts';
import {
  ANSWER_ROOM_MS,
  CALL_BUDGETS,
  type CallKind,
  PSP_CALL_TIMEOUT_MS,
} from '../../functions/domain/call-budgets.ts';
import {
  API_INTEGRATION_TIMEOUT_SECONDS,
  type FunctionDefinition,
  functions,
  type HandlerName,
  routes,
  timeoutSecondsOf,
} from '../../lib/routes.ts';

/** What the adapter hands to the official SDK, recorded by a subclass the adapter cannot tell apart. */
function stripeClientSettings(): Stripe.StripeConfig {
  let settings: Stripe.StripeConfig | undefined;
  class RecordingStripe extends Stripe {
    constructor(key: string, config?: Stripe.StripeConfig) {
      super(key, config);
      settings = config;
    }
  }
  new StripePsp(
    stripe,
    RecordingStripe as typeof Stripe,
    { secret_key: 'sk_test_x', webhook_secret: 'whsec_x' },
    {
      id: 'pc_timeouts0000000000000000000',
      account: 'acme',
      mode: 'test',
      provider: 'stripe',
      name: 'Stripe',
      enabled: true,
      simulate: null,
      secret_name: 'connections/pc_timeouts0000000000000000000',
      created_at: new Date(0).toISOString(),
    },
  );
  if (!settings) throw new Error('The adapter built no Stripe client');
  return settings;
}

/** The Stripe SDK's own worst case for these settings: every try times out, with its longest backoff between. */
function stripeWorstCaseMs(settings: Stripe.StripeConfig): number {
  const sdk = new Stripe('sk_test_x');
  const retries = settings.maxNetworkRetries ?? sdk.getMaxNetworkRetries();
  let backoffSeconds = 0;
  for (let retry = 1; retry <= retries; retry++) {
    backoffSeconds += Math.min(
      sdk.getInitialNetworkRetryDelay() * 2 ** (retry - 1),
      sdk.getMaxNetworkRetryDelay(),
    );
  }
  return (settings.timeout ?? 80_000) * (retries + 1) + backoffSeconds * 1000;
}

let failingServer: Server;
let failingUrl: string;
let requestsSeen = 0;

beforeAll(async () => {
  failingServer = createServer((request, response) => {
    requestsSeen++;
    request.resume();
    response.writeHead(503).end();
  });
  await new Promise<void>((resolve) => failingServer.listen(0, '127.0.0.1', resolve));
  failingUrl = `http://127.0.0.1:${(failingServer.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => failingServer.close(() => resolve())));

/** The worst case of one invocation, from what each client really does. */
function worstCaseOf(handler: HandlerName, clientWorstCaseMs: Record<CallKind, number>): number {
  const calls = (functions[handler] as FunctionDefinition).calls ?? {};
  return Object.entries(calls).reduce(
    (total, [kind, count]) => total + count * clientWorstCaseMs[kind as CallKind],
    0,
  );
}

describe('every outbound call fits the function that makes it', () => {
  it('bounds each PSP try at the PSP call bound', () => {
    expect(stripeClientSettings().timeout).toBe(PSP_CALL_TIMEOUT_MS);
  });

  it('makes the sandbox notifier try exactly as often as its budget says, each try bounded by it', async () => {
    const notifier = new SandboxNotifier({
      baseUrl: failingUrl,
      signingSecret: async () => 'secret',
      now: () => new Date(),
    });
    requestsSeen = 0;
    const acknowledged = await notifier.notify({
      id: 'sbx_1',
      link_id: 'pl_1',
      account: 'acme',
      mode: 'test',
      amount: { value: '10.00', currency: 'EUR' },
      description: null,
      success_url: 'https://shop.example/thanks',
      cancel_url: 'https://pay.example/checkout/pl_1',
      status: 'complete',
      payment_reference: 'sbx_pay_1',
      declined_attempts: 0,
      created_at: new Date().toISOString(),
      expires_at: new Date(Date.now() + 3_600_000).toISOString(),
    });
    expect(acknowledged).toBe(false);
    expect(requestsSeen).toBe(CALL_BUDGETS.sandboxNotification.tries);
    expect(notifier.budget).toEqual(CALL_BUDGETS.sandboxNotification);
  });

  it('gives every function a timeout that its clients’ tries × timeouts and the room to answer fit in', () => {
    const clientWorstCaseMs: Record<CallKind, number> = {
      psp: stripeWorstCaseMs(stripeClientSettings()),
      sandboxNotification:
        CALL_BUDGETS.sandboxNotification.timeoutMs * CALL_BUDGETS.sandboxNotification.tries,
    };
    const outlasted = (Object.keys(functions) as HandlerName[])
      .map((handler) => ({
        handler,
        needsMs: worstCaseOf(handler, clientWorstCaseMs) + ANSWER_ROOM_MS,
        timeoutMs: timeoutSecondsOf(handler) * 1000,
      }))
      .filter(({ needsMs, timeoutMs }) => needsMs > timeoutMs);
    expect(outlasted).toEqual([]);
  });

  it('keeps every function behind the HTTP API within the time API Gateway waits for it', () => {
    for (const route of routes) {
      expect(timeoutSecondsOf(route.handler), route.handler).toBeLessThanOrEqual(
        API_INTEGRATION_TIMEOUT_SECONDS,
      );
    }
  });
});
