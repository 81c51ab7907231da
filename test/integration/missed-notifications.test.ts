import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADYEN_FAKE, type FakeAdyen } from '../../functions/adapters/psp/adyen/test/fake.ts';
import { documentClient } from '../../functions/clients/dynamodb.ts';
import { paymentRepository, sandboxSessionStore } from '../../functions/dependencies.ts';
import type { PspConnection } from '../../functions/domain/connection.ts';
import { FIRST_CHECK_AFTER_MS } from '../../functions/domain/payment.ts';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { createLink, storedLink } from '../support/checkout-helpers.ts';
import { httpRequest, navigate } from '../support/navigate.ts';
import { type PspStack, startPspStack } from '../support/psp-stack.ts';
import { sweepPendingPayments } from '../support/sweepers.ts';
import type { TestStack } from '../support/test-stack.ts';

const FAKES = { adyen: ADYEN_FAKE };

let psps: PspStack<typeof FAKES>;
let stack: TestStack;
let key: IssuedApiKey;
let adyen: FakeAdyen;
let adyenKey: IssuedApiKey;
let adyenConnection: PspConnection;

beforeAll(async () => {
  psps = await startPspStack({ fakes: FAKES });
  ({ stack, adyen } = psps);
  key = await stack.issueKey('sweeper', 'test');
  adyenKey = await stack.issueKey('sweeper-adyen', 'test');
  adyenConnection = await psps.connect('sweeper-adyen', 'adyen');
});
afterAll(() => psps?.stop());

const sweep = sweepPendingPayments;

describe('the sweeper of missed notifications', () => {
  it('records a payment whose notification was lost, once the payment has been pending for 10 minutes', async () => {
    const link = await createLink(stack, key.api_key);
    await navigate(link.checkout_url);
    const session = (await storedLink(link.id)).psp_session!;
    // The buyer paid at the PSP; its notification never arrived.
    await sandboxSessionStore().complete(session.id, `sbpay_lost_${session.id}`, new Date());

    await sweep(new Date(Date.now() + FIRST_CHECK_AFTER_MS - 60_000));
    expect((await storedLink(link.id)).status).toBe('open');

    await sweep(new Date(Date.now() + FIRST_CHECK_AFTER_MS + 1_000));
    const paid = await storedLink(link.id);
    expect(paid.status).toBe('paid');
    expect(paid.payment).toMatchObject({ id: session.payment_id, reference: `sbpay_lost_${session.id}` });
    const payment = await paymentRepository().get(link.id, 'test', session.payment_id);
    expect(payment).toMatchObject({ status: 'succeeded', next_check_at: null });
    const events = await stack.request('GET', `/v1/payment-links/${link.id}/events`, { key: key.api_key });
    expect(events.body.data.map((event: { type: string }) => event.type)).toEqual(['payment_link.paid']);
  });

  it('keeps a success pending while its link cannot be paid, so that the sweeper pays the link later', async () => {
    const link = await createLink(stack, key.api_key);
    await navigate(link.checkout_url);
    const session = (await storedLink(link.id)).psp_session!;
    // The buyer pays and the sandbox notifies us, but the table refuses every write of the link meanwhile (an
    // outage between the payment's write and the link's); the sandbox stops retrying, as a PSP eventually does.
    const refusing = 'refuse-link-writes';
    const text = (value: unknown) => (value as { S?: string } | undefined)?.S ?? value;
    documentClient().middlewareStack.add(
      (next, context) => (args) => {
        const input = args.input as { Key?: Record<string, unknown>; Item?: Record<string, unknown> };
        const written = input.Key ?? input.Item;
        const write = /^(Put|Update|Delete)/.test(String(context.commandName));
        if (write && text(written?.pk) === `LINK#${link.id}` && text(written?.sk) === 'MODE#test') {
          throw new Error('The table refused the write.');
        }
        return next(args);
      },
      { step: 'initialize', name: refusing },
    );
    try {
      const paid = await httpRequest(`${stack.baseUrl}/sandbox/checkout/${session.id}/pay`, {
        method: 'POST',
      });
      expect(paid.status).toBeLessThan(400);
    } finally {
      documentClient().middlewareStack.remove(refusing);
    }
    expect((await storedLink(link.id)).status).toBe('open');
    // Not `succeeded` with no check due: nothing would then ever pay the link.
    expect(await paymentRepository().get(link.id, 'test', session.payment_id)).toMatchObject({
      status: 'pending',
      next_check_at: expect.any(String),
    });

    await sweep(new Date(Date.now() + FIRST_CHECK_AFTER_MS + 1_000));
    expect((await storedLink(link.id)).status).toBe('paid');
    expect(await paymentRepository().get(link.id, 'test', session.payment_id)).toMatchObject({
      status: 'succeeded',
      next_check_at: null,
    });
    const events = await stack.request('GET', `/v1/payment-links/${link.id}/events`, { key: key.api_key });
    expect(events.body.data.map((event: { type: string }) => event.type)).toEqual(['payment_link.paid']);
  });

  it('asks again with growing intervals while the PSP says pending, and settles it once the session is over', async () => {
    const link = await createLink(stack, key.api_key);
    await navigate(link.checkout_url);
    const session = (await storedLink(link.id)).psp_session!;
    const start = Date.now();

    await sweep(new Date(start + FIRST_CHECK_AFTER_MS + 1_000));
    const first = await paymentRepository().get(link.id, 'test', session.payment_id);
    expect(first).toMatchObject({ status: 'pending', checks: 1 });
    const firstWait = Date.parse(first?.next_check_at as string) - (start + FIRST_CHECK_AFTER_MS + 1_000);

    await sweep(new Date(Date.parse(first?.next_check_at as string) + 1_000));
    const second = await paymentRepository().get(link.id, 'test', session.payment_id);
    const secondWait =
      Date.parse(second?.next_check_at as string) - (Date.parse(first?.next_check_at as string) + 1_000);
    expect(second?.checks).toBe(2);
    expect(secondWait).toBeGreaterThan(firstWait);

    await sweep(new Date(Date.parse(session.expires_at) + 120_000));
    const settled = await paymentRepository().get(link.id, 'test', session.payment_id);
    expect(settled).toMatchObject({ status: 'expired', failure: { code: 'expired' }, next_check_at: null });
    expect((await storedLink(link.id)).status).toBe('open');
  });

  it('pays the link when Adyen says its payment link is completed, before the AUTHORISATION, whose reference then follows', async () => {
    const link = await createLink(stack, adyenKey.api_key);
    await navigate(link.checkout_url);
    const session = (await storedLink(link.id)).psp_session!;
    // The buyer paid; Adyen's AUTHORISATION notification is late (Adyen has no API to read the payment back).
    const authorisation = adyen.pay(session.id);

    await sweep(new Date(Date.now() + FIRST_CHECK_AFTER_MS + 1_000));
    const paid = await storedLink(link.id);
    expect(paid.status).toBe('paid');
    expect(paid.payment).toMatchObject({ id: session.payment_id, provider: 'adyen', reference: null });
    expect(await paymentRepository().get(link.id, 'test', session.payment_id)).toMatchObject({
      status: 'succeeded',
      provider_reference: null,
    });
    const eventTypes = async () =>
      (
        await stack.request('GET', `/v1/payment-links/${link.id}/events`, { key: adyenKey.api_key })
      ).body.data.map((event: { type: string }) => event.type);
    expect(await eventTypes()).toEqual(['payment_link.paid']);
    // Nothing to refund through yet: Adyen refunds name the payment's PSP reference.
    const refund = await stack.request('POST', `/v1/payment-links/${link.id}/refunds`, {
      key: adyenKey.api_key,
      body: {},
    });
    expect(refund.status).toBe(409);
    expect(refund.body.code).toBe('invalid_state');

    const notified = await stack.request('POST', `/psp/adyen/notifications/${adyenConnection.id}`, {
      rawBody: adyen.notification([authorisation], { hmacKey: ADYEN_FAKE.credentials.hmac_key }),
      headers: { 'content-type': 'application/json' },
    });
    expect(notified.status).toBe(200);
    expect((await storedLink(link.id)).payment).toMatchObject({
      id: session.payment_id,
      reference: authorisation.pspReference,
    });
    expect(await paymentRepository().get(link.id, 'test', session.payment_id)).toMatchObject({
      provider_reference: authorisation.pspReference,
    });
    expect(await eventTypes()).toEqual(['payment_link.paid']);
  });

  it('asks later about a payment whose check fails, instead of picking it first on every run', async () => {
    const link = await createLink(stack, adyenKey.api_key);
    await navigate(link.checkout_url);
    const session = (await storedLink(link.id)).psp_session!;
    const at = new Date(Date.now() + FIRST_CHECK_AFTER_MS + 1_000);
    adyen.outage = 'error';
    try {
      const run = await sweep(at);
      expect(run.failed).toBeGreaterThan(0);
    } finally {
      adyen.outage = 'none';
    }
    const postponed = await paymentRepository().get(link.id, 'test', session.payment_id);
    expect(postponed).toMatchObject({ status: 'pending', checks: 1 });
    expect(Date.parse(postponed?.next_check_at as string)).toBeGreaterThan(at.getTime());
    const due = await paymentRepository().dueForCheck(at, 100);
    expect(due.map((payment) => payment.id)).not.toContain(session.payment_id);
  });
});
