import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { personalDataKeys } from '../../functions/adapters/dynamodb/table-schema.ts';
import { documentClient } from '../../functions/clients/dynamodb.ts';
import { config } from '../../functions/config.ts';
import { paymentRepository, pspConnectionRepository } from '../../functions/dependencies.ts';
import type { PspConnection } from '../../functions/domain/connection.ts';
import { fromMinorUnits, toMinorUnits } from '../../functions/domain/money.ts';
import { startOfDay } from '../../functions/domain/time-zones.ts';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { csvRecords, seedPayment } from '../support/books.ts';
import { browser } from '../support/buyers.ts';
import { createLink, storedLink } from '../support/checkout-helpers.ts';
import { addConnection } from '../support/connections.ts';
import { signInToConsole } from '../support/console.ts';
import { httpRequest, navigate } from '../support/navigate.ts';
import { expectDocumented } from '../support/openapi-check.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';

/**
 * A month of an account's books through the sandbox (docs/api.md#books): payments on three connections, two
 * with fee lines, in two currencies, some declined, some refunded in part or in full, a reusable link whose
 * buyers answer a custom field; its CSV export and its totals.
 */

const ACCOUNT = 'books-month';
const ZONE = 'Europe/Amsterdam';
const DAY_MS = 86_400_000;

let stack: TestStack;
let key: IssuedApiKey;
let withPercent: PspConnection;
let withFixed: PspConnection;
let withoutFees: PspConnection;

/** Today in the account's time zone, and the dates of a month around it. */
const dateIn = (instant: number) =>
  new Intl.DateTimeFormat('en-CA', {
    timeZone: ZONE,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(instant);
const FROM = dateIn(Date.now() - 14 * DAY_MS);
const TO = dateIn(Date.now() + 15 * DAY_MS);

beforeAll(async () => {
  stack = await startTestStack();
  key = await stack.issueKey(ACCOUNT, 'test');
  const sandbox = (name: string) =>
    addConnection({ account: ACCOUNT, mode: 'test', provider: 'sandbox', name });
  withPercent = await sandbox('Sandbox NL');
  withFixed = await sandbox('Sandbox US');
  withoutFees = await sandbox('Sandbox spare');
  await pspConnectionRepository().setFees(withPercent.id, [{ percent: 1.4, fixed: 0.25, currency: 'EUR' }]);
  await pspConnectionRepository().setFees(withFixed.id, [{ percent: 2.9, fixed: 0.3 }]);
  const settings = await stack.request('PUT', '/v1/account-settings', {
    key: key.api_key,
    body: { personal_data_retention_days: 400, time_zone: ZONE },
  });
  expect(settings.status).toBe(200);
  await makeMonth();
});
afterAll(() => stack.stop());

const api = (method: string, path: string, body?: unknown) =>
  stack.request(method, path, { key: key.api_key, ...(body === undefined ? {} : { body }) });

async function sandbox(sessionId: string, action: 'pay' | 'decline') {
  // As the sandbox's page posts it: a pay is answered with the way back, a decline with the page again.
  const response = await httpRequest(`${stack.baseUrl}/sandbox/checkout/${sessionId}/${action}`, {
    method: 'POST',
  });
  expect(response.status).toBe(action === 'pay' ? 303 : 200);
}

/** A single-use link for order `order`, through `connection`, paid (or declined) by its buyer. */
async function order(
  order: string,
  amount: string,
  currency: string,
  connection: PspConnection,
  paid = true,
) {
  const link = await createLink(stack, key.api_key, {
    amount: { value: amount, currency },
    description: `Order ${order}`,
    metadata: { order_id: order, channel: 'web' },
    connections: [connection.id],
  });
  await navigate(link.checkout_url);
  const session = (await storedLink(link.id)).psp_session;
  if (!session) throw new Error('no session opened');
  await sandbox(session.id, paid ? 'pay' : 'decline');
  return link.id as string;
}

/** A buyer of a reusable link, at their own address, answers its custom field on our page and pays. */
async function buyTicket(linkId: string, checkoutUrl: string, address: string, vat: string) {
  const buyer = browser(address);
  expect((await buyer.answer(checkoutUrl, { answers: '1', custom_vat: vat })).status).toBe(303);
  const payment = await paymentRepository().get(linkId, 'test', buyer.payment ?? '');
  if (!payment?.session_id) throw new Error('no session opened');
  await sandbox(payment.session_id, 'pay');
  return payment.id;
}

const refund = async (linkId: string, body: Record<string, unknown> = {}) => {
  const response = await api('POST', `/v1/payment-links/${linkId}/refunds`, body);
  expect(response.status).toBe(201);
  expect(response.body.status).toBe('succeeded');
};

const sum = (values: readonly string[], currency: string) =>
  fromMinorUnits(
    values.reduce((total, value) => total + toMinorUnits({ value: value || '0', currency }), 0n),
    currency,
  );

/** The month's payments, made once for every test of the file. */
const month = {
  orders: {} as Record<'A-2' | 'A-3' | 'A-4' | 'A-5' | 'A-6', string>,
  tickets: '',
  ticketPayments: [] as string[],
};

async function makeMonth() {
  // Before the month (in the account's zone: a millisecond before its first day), and within it.
  const start = Date.parse(startOfDay(FROM, ZONE));
  const earlier = await createLink(stack, key.api_key, { metadata: { order_id: 'A-0' } });
  await seedPayment(ACCOUNT, { created_at: new Date(start - 1).toISOString(), link_id: earlier.id });
  const first = await createLink(stack, key.api_key, { metadata: { order_id: 'A-1' } });
  await seedPayment(ACCOUNT, {
    created_at: new Date(start).toISOString(),
    link_id: first.id,
    amount: { value: '10.50', currency: 'EUR' },
  });

  const orders = {
    'A-2': await order('A-2', '49.90', 'EUR', withPercent),
    'A-3': await order('A-3', '20.00', 'EUR', withPercent),
    'A-4': await order('A-4', '15.00', 'EUR', withoutFees),
    'A-5': await order('A-5', '99.00', 'USD', withFixed),
    'A-6': await order('A-6', '12.00', 'EUR', withFixed, false),
  };
  month.orders = orders;
  await refund(orders['A-2'], { amount: { value: '10.00', currency: 'EUR' } });
  await refund(orders['A-3']);
  await refund(orders['A-5'], { amount: { value: '9.00', currency: 'USD' } });

  const tickets = await createLink(stack, key.api_key, {
    amount: { value: '25.00', currency: 'EUR' },
    description: 'Concert',
    reusable: true,
    metadata: { order_id: 'T' },
    custom_fields: [{ key: 'vat', label: 'VAT number', type: 'text' }],
    connections: [withPercent.id],
  });
  const ticketPayments = [
    await buyTicket(tickets.id, tickets.checkout_url, '127.0.51.1', 'NL001'),
    await buyTicket(tickets.id, tickets.checkout_url, '127.0.51.2', 'NL002'),
  ];
  month.ticketPayments = ticketPayments;
  await refund(tickets.id, { payment_id: ticketPayments[1], amount: { value: '5.00', currency: 'EUR' } });

  month.tickets = tickets.id;
}

describe('a month of books', () => {
  it('exports to a CSV whose rows carry order ids, fees and refunds, and whose totals are the summary', async () => {
    const period = `created[gte]=${FROM}&created[lt]=${TO}`;
    const exported = await stack.request('GET', `/v1/payments?${period}`, {
      key: key.api_key,
      headers: { accept: 'text/csv' },
    });
    expect(exported.status).toBe(200);
    const rows = csvRecords(exported.body);
    const byOrder = (id: string) => rows.find((row) => row['metadata.order_id'] === id);

    // The first day of the month in the account's zone is in; the millisecond before is not.
    expect(byOrder('A-1')).toMatchObject({ amount: '10.50', refund_status: 'none', fee: '' });
    expect(byOrder('A-0')).toBeUndefined();
    expect(byOrder('A-2')).toMatchObject({
      status: 'succeeded',
      description: 'Order A-2',
      'metadata.channel': 'web',
      amount: '49.90',
      amount_refunded: '10.00',
      refund_status: 'partial',
      fee: '0.95',
      net: '48.95',
      fee_source: 'configured',
      connection_id: withPercent.id,
      connection_name: 'Sandbox NL',
    });
    expect(byOrder('A-3')).toMatchObject({ amount_refunded: '20.00', refund_status: 'full', fee: '0.53' });
    expect(byOrder('A-4')).toMatchObject({
      fee: '',
      net: '',
      fee_source: '',
      connection_name: 'Sandbox spare',
    });
    expect(byOrder('A-5')).toMatchObject({
      currency: 'USD',
      fee: '3.17',
      net: '95.83',
      amount_refunded: '9.00',
    });
    expect(byOrder('A-6')).toMatchObject({ status: 'failed', fee: '', amount_refunded: '0.00' });
    const ticketRows = rows.filter((row) => row['metadata.order_id'] === 'T');
    expect(ticketRows.map((row) => row['custom_field.vat']).sort()).toEqual(['NL001', 'NL002']);
    expect(ticketRows.map((row) => row.amount_refunded).sort()).toEqual(['0.00', '5.00']);
    expect(Object.keys(rows[0] ?? {}).slice(-3)).toEqual([
      'metadata.channel',
      'metadata.order_id',
      'custom_field.vat',
    ]);

    const summary = await api('GET', `/v1/payments/summary?${period}`);
    expect(summary.status).toBe(200);
    expectDocumented('get', '/v1/payments/summary', summary);
    expect(summary.body).toMatchObject({
      created_gte: startOfDay(FROM, ZONE),
      created_lt: startOfDay(TO, ZONE),
      next_cursor: null,
    });
    for (const currency of ['EUR', 'USD']) {
      const succeeded = rows.filter((row) => row.currency === currency && row.status === 'succeeded');
      const column = (name: string) => succeeded.map((row) => row[name] ?? '');
      const net =
        toMinorUnits({ value: sum(column('amount'), currency), currency }) -
        toMinorUnits({ value: sum(column('amount_refunded'), currency), currency }) -
        toMinorUnits({ value: sum(column('fee'), currency), currency });
      expect(
        summary.body.currencies.find((entry: { currency: string }) => entry.currency === currency),
      ).toEqual({
        currency,
        count: succeeded.length,
        gross: sum(column('amount'), currency),
        refunded: sum(column('amount_refunded'), currency),
        fees: sum(column('fee'), currency),
        net: fromMinorUnits(net, currency),
        payments_without_fee: succeeded.filter((row) => row.fee === '').length,
      });
    }
    expect(
      summary.body.currencies.find((entry: { currency: string }) => entry.currency === 'EUR'),
    ).toMatchObject({
      count: 6,
      gross: '145.40',
      refunded: '35.00',
    });

    // The same filters as the list: one connection's.
    const one = await api('GET', `/v1/payments/summary?${period}&connection_id=${withFixed.id}`);
    expect(one.body.currencies).toEqual([
      {
        currency: 'USD',
        count: 1,
        gross: '99.00',
        refunded: '9.00',
        fees: '3.17',
        net: '86.83',
        payments_without_fee: 0,
      },
    ]);
  });

  it("shows a payment's refunds where its money is shown: the API, the link, its webhooks, the console", async () => {
    const link = month.orders['A-2'];
    const payments = await api('GET', `/v1/payment-links/${link}/payments`);
    expectDocumented('get', '/v1/payment-links/{id}/payments', payments);
    expect(payments.body.data[0]).toMatchObject({
      amount_refunded: { value: '10.00', currency: 'EUR' },
      refund_status: 'partial',
      fee: { value: '0.95', currency: 'EUR' },
      net: { value: '48.95', currency: 'EUR' },
      fee_source: 'configured',
    });
    const resource = await api('GET', `/v1/payment-links/${link}`);
    expect(resource.body).toMatchObject({
      amount_received: { value: '49.90', currency: 'EUR' },
      amount_refunded: { value: '10.00', currency: 'EUR' },
      refund_status: 'partial',
    });
    const tickets = await api('GET', `/v1/payment-links/${month.tickets}`);
    expect(tickets.body).toMatchObject({ amount_received: { value: '50.00' }, refund_status: 'partial' });

    // The refund's webhook carries the link with its sums.
    const events = await api('GET', `/v1/payment-links/${link}/events`);
    const refunded = events.body.data.find((event: { type: string }) => event.type === 'refund.succeeded');
    const event = await api('GET', `/v1/events/${refunded.id}`);
    expect(event.body.data.payment_link).toMatchObject({
      amount_received: { value: '49.90', currency: 'EUR' },
      amount_refunded: { value: '10.00', currency: 'EUR' },
      refund_status: 'partial',
    });

    const admin = await signInToConsole(stack.baseUrl, ACCOUNT, 'finance');
    const page = await httpRequest(`${stack.baseUrl}/console/payments`, {
      headers: { cookie: admin.cookie },
    });
    expect(page.text).toContain('paid, partly refunded, €39.90 left');
    expect(page.text).toContain('paid, refunded');
  });

  it('takes the columns asked, in their order, and exports refunds with their link and connection', async () => {
    const period = `created[gte]=${FROM}&created[lt]=${TO}`;
    const picked = await stack.request(
      'GET',
      `/v1/payments?${period}&status=succeeded&columns=metadata.order_id,amount,amount_refunded,fee,net,metadata.none`,
      { key: key.api_key, headers: { accept: 'text/csv' } },
    );
    expect(picked.status).toBe(200);
    const [header] = String(picked.body).split('\r\n');
    expect(header).toBe('metadata.order_id,amount,amount_refunded,fee,net,metadata.none');
    expect(csvRecords(picked.body)).toContainEqual({
      'metadata.order_id': 'A-2',
      amount: '49.90',
      amount_refunded: '10.00',
      fee: '0.95',
      net: '48.95',
      'metadata.none': '',
    });

    const refunds = await stack.request('GET', `/v1/refunds?${period}`, {
      key: key.api_key,
      headers: { accept: 'text/csv' },
    });
    expect(csvRecords(refunds.body)).toContainEqual(
      expect.objectContaining({
        link_id: month.orders['A-5'],
        amount: '9.00',
        currency: 'USD',
        provider: 'sandbox',
        connection_name: 'Sandbox US',
        description: 'Order A-5',
        'metadata.order_id': 'A-5',
      }),
    );

    const unknown = await stack.request('GET', `/v1/payments?${period}&columns=id,password`, {
      key: key.api_key,
      headers: { accept: 'text/csv' },
    });
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors[0]).toMatchObject({ pointer: '/columns' });
  });

  it("counts a date as a day of the account's time zone, written with brackets as pasted or encoded", async () => {
    const encoded = await api('GET', `/v1/payments?created%5Bgte%5D=${FROM}&created%5Blt%5D=${TO}&limit=100`);
    const plain = await api('GET', `/v1/payments?created[gte]=${FROM}&created[lt]=${TO}&limit=100`);
    expect(encoded.status).toBe(200);
    expect(encoded.body.data.map((payment: { id: string }) => payment.id)).toEqual(
      plain.body.data.map((payment: { id: string }) => payment.id),
    );
    // The month's first payment was made at the start of its first day in Europe/Amsterdam, 23:00 UTC the day
    // before; in UTC that day starts an hour later.
    const firstDay = `created[gte]=${FROM}&created[lt]=${dateIn(Date.parse(startOfDay(FROM, ZONE)) + DAY_MS)}`;
    expect((await api('GET', `/v1/payments?${firstDay}`)).body.data).toHaveLength(1);
    await api('PUT', '/v1/account-settings', { personal_data_retention_days: 400, time_zone: 'UTC' });
    expect((await api('GET', `/v1/payments?${firstDay}`)).body.data).toHaveLength(0);
    await api('PUT', '/v1/account-settings', { personal_data_retention_days: 400, time_zone: ZONE });

    const invalid = await api('GET', '/v1/payments?created[gte]=2026-02-30');
    expect(invalid.status).toBe(422);
    expect(invalid.body.errors[0]).toMatchObject({ pointer: '/created[gte]' });
  });
});

describe("the account's time zone", () => {
  it('is UTC until set, an IANA name of the platform when set, and UTC again when a PUT leaves it out', async () => {
    const other = (await stack.issueKey('books-zones', 'test')).api_key;
    const settings = (method: string, body?: unknown) =>
      stack.request(method, '/v1/account-settings', { key: other, ...(body ? { body } : {}) });

    const fresh = await settings('GET');
    expect(fresh.body).toMatchObject({ time_zone: 'UTC' });
    expectDocumented('get', '/v1/account-settings', fresh);
    for (const zone of ['Mars/Olympus', '+01:00', 'Europe/', '']) {
      const refused = await settings('PUT', { personal_data_retention_days: 400, time_zone: zone });
      expect(refused.status).toBe(422);
      expect(refused.body.errors[0].pointer).toBe('/time_zone');
    }
    const set = await settings('PUT', { personal_data_retention_days: 400, time_zone: 'America/Sao_Paulo' });
    expectDocumented('put', '/v1/account-settings', set);
    expect((await settings('GET')).body.time_zone).toBe('America/Sao_Paulo');
    // A name the platform takes for a zone of its list reads back as that zone.
    await settings('PUT', { personal_data_retention_days: 400, time_zone: 'europe/amsterdam' });
    expect((await settings('GET')).body.time_zone).toBe('Europe/Amsterdam');
    await settings('PUT', { personal_data_retention_days: 400 });
    expect((await settings('GET')).body.time_zone).toBe('UTC');

    // Settings stored before they had a time zone.
    await documentClient().send(
      new PutCommand({
        TableName: config().TABLE_NAME,
        Item: {
          ...personalDataKeys.accountSettings('books-zones', 'test'),
          account: 'books-zones',
          mode: 'test',
          personal_data_retention_days: 90,
          updated_at: new Date().toISOString(),
        },
      }),
    );
    expect((await settings('GET')).body).toMatchObject({
      personal_data_retention_days: 90,
      time_zone: 'UTC',
    });
  });
});
