import { DeleteCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backfillBooks } from '../../functions/adapters/dynamodb/books-backfill.ts';
import { settlementKeys } from '../../functions/adapters/dynamodb/settlement-keys.ts';
import { bookKeys, paymentKeys } from '../../functions/adapters/dynamodb/table-schema.ts';
import { documentClient } from '../../functions/clients/dynamodb.ts';
import { config } from '../../functions/config.ts';
import {
  paymentRepository,
  pspConnectionRepository,
  searchIndex,
  settlementRepository,
} from '../../functions/dependencies.ts';
import { searchTerms } from '../../functions/domain/search.ts';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { createLink, storedLink } from '../support/checkout-helpers.ts';
import { addConnection } from '../support/connections.ts';
import { httpRequest, navigate } from '../support/navigate.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';
import { eventually } from '../support/webhooks.ts';

let stack: TestStack;
let acme: IssuedApiKey;

beforeAll(async () => {
  stack = await startTestStack();
  acme = await stack.issueKey('backfill-acme', 'test');
});
afterAll(() => stack.stop());

const table = () => config().TABLE_NAME;
const ids = async (path: string) =>
  (await stack.request('GET', path, { key: acme.api_key })).body.data.map(
    (entry: { id: string }) => entry.id,
  );

describe('npm run backfill-books', () => {
  it('puts the payments and refunds stored before the books into them, once however often it runs', async () => {
    const link = await createLink(stack, acme.api_key, { amount: { value: '12.00', currency: 'EUR' } });
    await navigate(link.checkout_url);
    const session = (await storedLink(link.id)).psp_session;
    await httpRequest(`${stack.baseUrl}/sandbox/checkout/${session?.id}/pay`, { method: 'POST' });
    await eventually(async () => (await storedLink(link.id)).status === 'paid');
    const refund = await stack.request('POST', `/v1/payment-links/${link.id}/refunds`, { key: acme.api_key });
    const paymentId = (await storedLink(link.id)).payment?.id as string;
    // As stored before the books: the payment without its listing keys, the refund without its entry.
    await documentClient().send(
      new UpdateCommand({
        TableName: table(),
        Key: paymentKeys.payment(link.id, 'test', paymentId),
        UpdateExpression: 'REMOVE gsi1pk, gsi1sk',
      }),
    );
    await documentClient().send(
      new DeleteCommand({ TableName: table(), Key: bookKeys.refundEntry(link.id, 'test', refund.body.id) }),
    );
    expect(await ids('/v1/payments')).toEqual([]);
    expect(await ids('/v1/refunds')).toEqual([]);

    const first = await backfillBooks(documentClient(), table());
    const second = await backfillBooks(documentClient(), table());

    expect(await ids('/v1/payments')).toEqual([paymentId]);
    expect(await ids('/v1/refunds')).toEqual([refund.body.id]);
    expect(first.payments).toBe(1);
    expect(second.payments).toBe(0);
    const listed = await stack.request('GET', '/v1/refunds', { key: acme.api_key });
    expect(listed.body.data[0]).toMatchObject({ status: 'succeeded', amount: { value: '12.00' } });
  });

  it('points the PSP reference of payments stored before settlements at them, and reads payouts from the oldest', async () => {
    const link = await createLink(stack, acme.api_key, { amount: { value: '8.00', currency: 'EUR' } });
    await navigate(link.checkout_url);
    const session = (await storedLink(link.id)).psp_session;
    await httpRequest(`${stack.baseUrl}/sandbox/checkout/${session?.id}/pay`, { method: 'POST' });
    const paid = await eventually(async () => {
      const stored = await storedLink(link.id);
      return stored.status === 'paid' && stored.payment;
    });
    if (!paid) throw new Error('not paid');
    const payment = await paymentRepository().get(link.id, 'test', paid.id);
    const reference = payment?.provider_reference as string;
    const connection = payment?.connection_id as string;
    // As stored before settlements: no pointer, and the connection's reading starting later.
    await documentClient().send(
      new DeleteCommand({
        TableName: table(),
        Key: settlementKeys.paymentByReference(connection, reference),
      }),
    );
    const later = new Date(Date.now() + 86_400_000).toISOString();
    await settlementRepository().saveReading({
      connection_id: connection,
      account: 'backfill-acme',
      mode: 'test',
      read_from: later,
      next_read_at: later,
    });
    expect(await settlementRepository().paymentByReference(connection, reference)).toBeUndefined();

    const first = await backfillBooks(documentClient(), table());

    expect(first.references).toBeGreaterThan(0);
    expect(await settlementRepository().paymentByReference(connection, reference)).toEqual({
      link_id: link.id,
      mode: 'test',
      payment_id: paid.id,
    });
    const [reading] = await settlementRepository().dueReadings(new Date(Date.parse(later) + 1000), 100);
    expect(reading).toMatchObject({ connection_id: connection, next_read_at: later });
    expect(String(reading?.read_from) <= String(payment?.created_at)).toBe(true);
  });

  it("gives payments stored before them their link's refund totals and their connection's fee estimate", async () => {
    const connection = await addConnection({
      account: 'backfill-acme',
      mode: 'test',
      provider: 'sandbox',
      name: 'Backfilled',
    });
    await pspConnectionRepository().setFees(connection.id, [{ percent: 1.4, fixed: 0.25 }]);
    const link = await createLink(stack, acme.api_key, {
      amount: { value: '20.00', currency: 'EUR' },
      connections: [connection.id],
    });
    await navigate(link.checkout_url);
    const session = (await storedLink(link.id)).psp_session;
    await httpRequest(`${stack.baseUrl}/sandbox/checkout/${session?.id}/pay`, { method: 'POST' });
    await eventually(async () => (await storedLink(link.id)).status === 'paid');
    await stack.request('POST', `/v1/payment-links/${link.id}/refunds`, {
      key: acme.api_key,
      body: { amount: { value: '5.00', currency: 'EUR' } },
    });
    const paymentId = (await storedLink(link.id)).payment?.id as string;
    const shown = async () =>
      (await stack.request('GET', `/v1/payment-links/${link.id}/payments`, { key: acme.api_key })).body
        .data[0];
    expect(await shown()).toMatchObject({ amount_refunded: { value: '5.00' }, fee: { value: '0.53' } });
    // As stored before payments kept them.
    await documentClient().send(
      new UpdateCommand({
        TableName: table(),
        Key: paymentKeys.payment(link.id, 'test', paymentId),
        UpdateExpression: 'REMOVE refunded_minor, refunded_version, fee',
      }),
    );
    expect(await shown()).toMatchObject({
      amount_refunded: { value: '0.00' },
      refund_status: 'none',
      fee: null,
    });

    const first = await backfillBooks(documentClient(), table());
    const second = await backfillBooks(documentClient(), table());

    expect(await shown()).toMatchObject({
      amount_refunded: { value: '5.00' },
      refund_status: 'partial',
      fee: { value: '0.53', currency: 'EUR' },
      net: { value: '19.47', currency: 'EUR' },
      fee_source: 'configured',
    });
    expect(first).toMatchObject({ refunded: 1, fees: 1 });
    expect(second).toMatchObject({ refunded: 0, fees: 0 });
  });

  it('gives the payments, refunds and links stored before the search index their search keys', async () => {
    const link = await createLink(stack, acme.api_key, {
      amount: { value: '31.70', currency: 'EUR' },
      metadata: { order: 'LEGACY-CAMPAIGN' },
    });
    await navigate(`${link.checkout_url}?client_reference_id=OLD-31337`);
    const session = (await storedLink(link.id)).psp_session;
    await httpRequest(`${stack.baseUrl}/sandbox/checkout/${session?.id}/pay`, { method: 'POST' });
    await eventually(async () => (await storedLink(link.id)).status === 'paid');
    const refund = await stack.request('POST', `/v1/payment-links/${link.id}/refunds`, {
      key: acme.api_key,
      body: { amount: { value: '1.70', currency: 'EUR' } },
    });
    const paymentId = (await storedLink(link.id)).payment?.id as string;
    const found = async (query: string) =>
      (await searchIndex().find('backfill-acme', 'test', searchTerms(query), 50)).map((result) =>
        result.type === 'payment'
          ? result.payment.id
          : result.type === 'refund'
            ? result.refund.id
            : result.link.id,
      );
    // As stored before the index: no search key of the account.
    const { Items = [] } = await documentClient().send(new ScanCommand({ TableName: table() }));
    const keysOfAccount = Items.filter((item) => String(item.pk).startsWith('SEARCH#backfill-acme#'));
    await Promise.all(
      keysOfAccount.map((item) =>
        documentClient().send(new DeleteCommand({ TableName: table(), Key: { pk: item.pk, sk: item.sk } })),
      ),
    );
    expect(keysOfAccount.length).toBeGreaterThan(0);
    expect(await found('31337')).toEqual([]);

    await backfillBooks(documentClient(), table());

    expect(await found('31337')).toEqual([refund.body.id, paymentId]);
    expect(await found('legacy-campaign')).toEqual([link.id]);
    expect(await found('31.70')).toEqual([paymentId]);
  });
});
