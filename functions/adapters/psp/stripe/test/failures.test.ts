// @module-tag waits: a hang waits out the 5 s PSP call budget (test/support/sequencer.ts)
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { timeoutFor } from '../../../../../test/support/eventually.ts';
import {
  failureOf,
  orderLink,
  sessionRequest,
  storedConnection,
} from '../../../../../test/support/psp-fixtures.ts';
import { PSP_CALL_TIMEOUT_MS } from '../../../../domain/call-budgets.ts';
import type { Psp } from '../../../../ports/psp.ts';
import type { Refunds } from '../../../../ports/psp-capabilities.ts';
import { StripePsp, stripeEndpoint } from '../adapter.ts';
import { stripe as stripeDescriptor } from '../descriptor.ts';
import { type FakeStripe, startFakeStripe } from './fake.ts';

const session = (psp: Psp, value = '5.00', currency = 'EUR') =>
  psp.createSession(
    sessionRequest(orderLink(value, currency), storedConnection(psp.provider, 'test', 'pc_x')),
  );
const refund = (psp: Refunds, paymentReference: string) =>
  psp.refund({
    refundId: 're_failures0000000000000000001',
    linkId: 'pl_failures0000000000000000001',
    paymentReference,
    amount: { value: '1.00', currency: 'EUR' },
  });

describe('the Stripe adapter translates what Stripe answers into the closed set of PSP failures', () => {
  const credentials = { secret_key: 'sk_test_failures_1', webhook_secret: 'whsec_failures' };
  const connection = storedConnection('stripe', 'test', 'pc_stripefailures0000000000000');
  let stripe: FakeStripe;
  /** A Stripe that answers every request with `answer.status` (and says not to retry), or never. */
  let broken: Server;
  const answer = { status: 503, hang: false };

  beforeAll(async () => {
    stripe = await startFakeStripe({ secretKey: credentials.secret_key });
    broken = createServer((_request, response) => {
      if (answer.hang) return;
      response.writeHead(answer.status, {
        'content-type': 'application/json',
        'stripe-should-retry': 'false',
      });
      response.end(
        JSON.stringify({ error: { type: 'api_error', message: `Stripe answered ${answer.status}` } }),
      );
    });
    await new Promise<void>((resolve) => broken.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    broken.closeAllConnections();
    await Promise.all([stripe.stop(), new Promise((resolve) => broken.close(resolve))]);
  });

  const brokenStripe = () =>
    new StripePsp(stripeDescriptor, Stripe, credentials, connection, {
      host: '127.0.0.1',
      port: (broken.address() as AddressInfo).port,
      protocol: 'http',
    });

  it('its 400 to a session is a refusal; a key it does not know (401) is refused credentials', async () => {
    const psp = new StripePsp(stripeDescriptor, Stripe, credentials, connection, stripeEndpoint(stripe.url));
    // Stripe refuses a session that would live longer than 24 hours.
    const tooLong = {
      ...sessionRequest(orderLink('5.00'), connection),
      expiresAt: new Date(Date.now() + 48 * 3_600_000),
    };
    expect(await failureOf(psp.createSession(tooLong))).toBe('refused');
    expect(stripe.requests.at(-1)?.path).toBe('/v1/checkout/sessions');
    const unknownKey = new StripePsp(
      stripeDescriptor,
      Stripe,
      { ...credentials, secret_key: 'sk_test_revoked_1' },
      connection,
      stripeEndpoint(stripe.url),
    );
    expect(await failureOf(session(unknownKey))).toBe('credentials_rejected');
    expect(await failureOf(refund(unknownKey, 'pi_1'))).toBe('credentials_rejected');
    expect(await failureOf(unknownKey.retrieveSession('cs_test_1'))).toBe('credentials_rejected');
  });

  it('a refund of a PaymentIntent it does not know (404) is a refusal', async () => {
    const psp = new StripePsp(stripeDescriptor, Stripe, credentials, connection, stripeEndpoint(stripe.url));
    expect(await failureOf(refund(psp, 'pi_unknown'))).toBe('refused');
  });

  it('its 5xx and 429 are Stripe failing, to a session, a refund and a lookup alike', async () => {
    const psp = brokenStripe();
    for (const status of [500, 503, 429]) {
      answer.status = status;
      expect(await failureOf(session(psp))).toBe('unavailable');
      expect(await failureOf(refund(psp, 'pi_1'))).toBe('unavailable');
      expect(await failureOf(psp.retrieveRefund('re_1'))).toBe('unavailable');
    }
  });

  it('no server to answer (a network error) is Stripe failing', async () => {
    const psp = new StripePsp(stripeDescriptor, Stripe, credentials, connection, {
      host: '127.0.0.1',
      port: 9,
      protocol: 'http',
    });
    expect(await failureOf(session(psp))).toBe('unavailable');
  });

  it('no answer within the PSP call budget is Stripe failing', {
    timeout: timeoutFor(PSP_CALL_TIMEOUT_MS),
  }, async () => {
    answer.hang = true;
    try {
      expect(await failureOf(session(brokenStripe()))).toBe('unavailable');
    } finally {
      answer.hang = false;
    }
  });
});
