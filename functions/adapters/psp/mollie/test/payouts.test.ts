import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLink, storedLink } from '../../../../../test/support/checkout-helpers.ts';
import { navigate } from '../../../../../test/support/navigate.ts';
import type { PspFakeDefinition } from '../../../../../test/support/psp-fakes.ts';
import { type PspStack, startPspStack } from '../../../../../test/support/psp-stack.ts';
import { sweepSettlements } from '../../../../../test/support/sweepers.ts';
import type { PspConnection } from '../../../../domain/connection.ts';
import type { IssuedApiKey } from '../../../../use-cases/api-keys.ts';
import { type FakeMollie, startFakeMollie } from './fake.ts';

/**
 * Live payments through Mollie's fake, some refunded, settled by the fake: the settlement sweeper reads the
 * settlement with the connection's organization access token (Mollie lists settlements to no API key, and settles
 * live payments only) through `@mollie/api-client`, every request and answer held to Mollie's OpenAPI document,
 * and matches every payment and refund it contains (docs/api.md#settlements).
 */
const MOLLIE_LIVE = {
  provider: 'mollie',
  credentials: {
    api_key: 'live_fakepspMollie7LxsDOtmnkVtjNVWXL',
    access_token: 'access_fakepspMollieOrganization7LxsDOtmnkV',
  },
  async start() {
    const { api_key, access_token } = MOLLIE_LIVE.credentials;
    const fake = await startFakeMollie({ apiKeys: [api_key, access_token] });
    return Object.assign(fake, { apiUrl: fake.apiEndpoint });
  },
} as const satisfies PspFakeDefinition<FakeMollie & { apiUrl: string }>;

const FAKES = { mollie: MOLLIE_LIVE };
let psps: PspStack<typeof FAKES>;
let key: IssuedApiKey;
let connection: PspConnection;

beforeAll(async () => {
  psps = await startPspStack({ fakes: FAKES });
  key = await psps.stack.issueKey('molliepayouts', 'live');
  connection = await psps.connect('molliepayouts', 'mollie', 'live');
});
afterAll(async () => {
  await psps?.stop();
});

const api = (path: string) => psps.stack.request('GET', path, { key: key.api_key });

async function paid(value: string) {
  const link = await createLink(psps.stack, key.api_key, { amount: { value, currency: 'EUR' } });
  await navigate(link.checkout_url);
  const session = (await storedLink(link.id)).psp_session;
  if (!session) throw new Error('no Mollie payment');
  psps.mollie.setStatus(session.id, 'paid');
  const notified = await psps.stack.request('POST', `/psp/mollie/notifications/${connection.id}`, {
    rawBody: psps.mollie.webhookBody(session.id),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  expect(notified.body.outcome).toBe('paid');
  return { link, paymentId: session.payment_id as string };
}

async function refunded(linkId: string, value: string) {
  const refund = await psps.stack.request('POST', `/v1/payment-links/${linkId}/refunds`, {
    key: key.api_key,
    body: { amount: { value, currency: 'EUR' } },
  });
  expect(refund.status).toBe(201);
  const stored = (await storedLink(linkId)).refunds.find((each) => each.id === refund.body.id);
  psps.mollie.setRefundStatus(String(stored?.provider_reference).split('/')[1] as string, 'refunded');
  return refund.body.id as string;
}

describe("Mollie's settlements matched to the books", () => {
  it('matches every payment and refund a settlement contains, lists the rest unmatched, and records the costs', async () => {
    const payments = [];
    for (const value of ['12.00', '45.95', '7.50', '120.00', '33.33', '80.00'])
      payments.push(await paid(value));
    const refunds = [
      await refunded(payments[1]?.link.id as string, '45.95'),
      await refunded(payments[3]?.link.id as string, '20.00'),
    ];
    psps.mollie.settlements.foreignPayment('9.99', 'EUR');
    const settled = psps.mollie.settlements.settle();

    await sweepSettlements(new Date());

    const listed = await api('/v1/settlements');
    expect(listed.body.data).toEqual([
      expect.objectContaining({
        provider: 'mollie',
        connection_id: connection.id,
        psp_reference: settled.id,
        amount: settled.amount,
        arrival_date: new Date().toISOString().slice(0, 10),
        status: 'paid',
        matched_count: 8,
        unmatched_count: 1,
      }),
    ]);
    const read = await api(`/v1/settlements/${listed.body.data[0].id}`);
    const matched = read.body.items.filter((item: { matched: boolean }) => item.matched);
    expect(
      matched
        .filter((item: { kind: string }) => item.kind === 'payment')
        .map((item: { payment_id: string }) => item.payment_id)
        .sort(),
    ).toEqual(payments.map((payment) => payment.paymentId).sort());
    expect(matched.flatMap((item: { refund_id: string | null }) => item.refund_id ?? []).sort()).toEqual(
      [...refunds].sort(),
    );
    expect(read.body.items.filter((item: { matched: boolean }) => !item.matched)).toEqual([
      expect.objectContaining({ kind: 'payment', amount: { value: '9.99', currency: 'EUR' } }),
    ]);

    // Mollie's costs of a payment: its amount less what it settles (120.00 less 1.8% + 0.25).
    const fourth = await api(`/v1/payment-links/${payments[3]?.link.id}/payments`);
    expect(fourth.body.data[0]).toMatchObject({
      fee: { value: '2.41', currency: 'EUR' },
      net: { value: '117.59', currency: 'EUR' },
      fee_source: 'reported',
    });

    await sweepSettlements(new Date(Date.now() + 2 * 3_600_000));
    expect((await api(`/v1/settlements/${listed.body.data[0].id}`)).body).toEqual(read.body);
    expect(psps.mollie.violations).toEqual([]);
    expect(psps.mollie.exchanges.map((exchange) => exchange.path)).toContain(
      `/v2/settlements/${settled.id}/refunds`,
    );
  });
});
