import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  defaultColumns,
  MAX_KEYED_COLUMNS,
  MAX_PICKED_COLUMNS,
  PAYMENT_COLUMNS,
  PAYMENT_EXPORT,
  paymentRow,
  pickedColumns,
  REFUND_COLUMNS,
  REFUND_EXPORT,
  type RowContext,
  refundRow,
} from '../../functions/domain/book-exports.ts';
import { addPayment, summaryOf, type Totals } from '../../functions/domain/book-totals.ts';
import { type BookPayment, toBookPayment } from '../../functions/domain/books.ts';
import { ValidationError } from '../../functions/domain/errors.ts';
import { fromMinorUnits, toMinorUnits } from '../../functions/domain/money.ts';
import { PAYMENT_STATES, type Payment } from '../../functions/domain/payment.ts';
import { configuredFee } from '../../functions/domain/payment-money.ts';

const at = '2026-11-29T10:00:00.000Z';
const eur = (value: string) => ({ value, currency: 'EUR' });

const payment = (fields: Partial<Payment> = {}): Payment => ({
  id: 'pay_1',
  link_id: 'pl_1',
  account: 'acme',
  mode: 'test',
  connection_id: 'pc_1',
  provider: 'sandbox',
  status: 'succeeded',
  amount: eur('49.90'),
  provider_reference: 'ref',
  failure: null,
  session_id: null,
  session_expires_at: null,
  next_check_at: null,
  checks: 0,
  created_at: at,
  updated_at: at,
  version: 1,
  ...fields,
});

const context = (link: Partial<NonNullable<RowContext['link']>> = {}): RowContext => ({
  link: { description: 'Order 1001', metadata: { order_id: '1001' }, quantities: null, ...link },
  connectionName: 'Main EUR',
});

const book = (fields: Partial<Payment> = {}): BookPayment => toBookPayment(payment(fields), { amount: null });

describe('the columns of the exports', () => {
  it('are, by default, the same list for all of API version 1: new columns go at its end in a new version', () => {
    expect(PAYMENT_COLUMNS).toEqual([
      'id',
      'created_at',
      'updated_at',
      'status',
      'amount',
      'currency',
      'link_id',
      'connection_id',
      'provider',
      'provider_reference',
      'failure_code',
      'client_reference_id',
      'buyer_email',
      'buyer_name',
      'buyer_phone',
      'billing_country',
      'shipping_country',
      'description',
      'quantities',
      'amount_refunded',
      'refund_status',
      'fee',
      'net',
      'fee_source',
      'connection_name',
    ]);
    expect(REFUND_COLUMNS).toEqual([
      'id',
      'created_at',
      'updated_at',
      'status',
      'amount',
      'currency',
      'payment_id',
      'link_id',
      'connection_id',
      'provider_reference',
      'failure_code',
      'client_reference_id',
      'provider',
      'description',
      'connection_name',
    ]);
  });

  it('then one column per metadata key and per custom field present in the rows, each kind sorted', () => {
    const rows = [
      paymentRow(
        book({ custom_fields: [{ key: 'vat', label: 'VAT', type: 'text', value: 'NL1' }] }),
        context(),
      ),
      paymentRow(book(), context({ metadata: { shop: 'north', order_id: '7' } })),
    ];
    const present = new Set(rows.flatMap((row) => Object.keys(row)));
    expect(defaultColumns(PAYMENT_EXPORT, present)).toEqual([
      ...PAYMENT_COLUMNS,
      'metadata.order_id',
      'metadata.shop',
      'custom_field.vat',
    ]);
    expect(defaultColumns(REFUND_EXPORT, present)).toEqual([
      ...REFUND_COLUMNS,
      'metadata.order_id',
      'metadata.shop',
    ]);
  });

  it(`hold at most ${MAX_KEYED_COLUMNS} keys of each kind by default, the first in sort order`, () => {
    const keys = Array.from(
      { length: MAX_KEYED_COLUMNS + 5 },
      (_, n) => `metadata.k${String(n).padStart(3, '0')}`,
    );
    const columns = defaultColumns(PAYMENT_EXPORT, new Set(keys));
    expect(columns.slice(PAYMENT_COLUMNS.length)).toEqual(keys.slice(0, MAX_KEYED_COLUMNS));
  });

  it('are the ones `columns=` picks, in its order, any keyed one included', () => {
    expect(pickedColumns('id,amount, metadata.order_id,custom_field.vat,fee', PAYMENT_EXPORT)).toEqual([
      'id',
      'amount',
      'metadata.order_id',
      'custom_field.vat',
      'fee',
    ]);
    expect(pickedColumns('connection_name,metadata.order_id', REFUND_EXPORT)).toEqual([
      'connection_name',
      'metadata.order_id',
    ]);
  });

  it.each([
    ['id,amount,secret', PAYMENT_EXPORT, /"secret"/],
    ['id,,amount', PAYMENT_EXPORT, /""/],
    ['metadata.', PAYMENT_EXPORT, /"metadata\."/],
    [`metadata.${'k'.repeat(41)}`, PAYMENT_EXPORT, /Not a column/],
    ['custom_field.vat', REFUND_EXPORT, /"custom_field\.vat"/],
    ['id,amount,id', PAYMENT_EXPORT, /at most once/],
    [
      Array.from({ length: MAX_PICKED_COLUMNS + 1 }, (_, n) => `metadata.k${n}`).join(','),
      PAYMENT_EXPORT,
      /At most/,
    ],
  ])('refuse %s at /columns', (text, columns, detail) => {
    let error: unknown;
    try {
      pickedColumns(text, columns);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).errors[0]).toMatchObject({
      pointer: '/columns',
      detail: expect.stringMatching(detail),
    });
  });
});

describe('a row of the payments export', () => {
  it('carries the link, its metadata, the answers, quantities, refunds, fee and the connection name', () => {
    const fee = configuredFee([{ percent: 1.4, fixed: 0.25 }], eur('49.90'), undefined);
    const row = paymentRow(
      book({
        refunded_minor: 1000,
        ...(fee ? { fee } : {}),
        quantities: [2, 1],
        custom_fields: [{ key: 'vat', label: 'VAT', type: 'text', value: 'NL1' }],
        buyer: { erased_at: at },
      }),
      context({ quantities: [1, 1] }),
    );
    expect(row).toMatchObject({
      description: 'Order 1001',
      'metadata.order_id': '1001',
      'custom_field.vat': 'NL1',
      quantities: '2;1',
      amount_refunded: '10.00',
      refund_status: 'partial',
      fee: '0.95',
      net: '48.95',
      fee_source: 'configured',
      connection_name: 'Main EUR',
      buyer_email: '',
    });
  });

  it("shows the link's quantities when the buyer picked none, and empty cells for what is unknown", () => {
    expect(paymentRow(book(), context({ quantities: [3] }))).toMatchObject({ quantities: '3' });
    expect(
      paymentRow(book({ status: 'failed' }), { link: undefined, connectionName: undefined }),
    ).toMatchObject({
      description: '',
      quantities: '',
      fee: '',
      net: '',
      fee_source: '',
      connection_name: '',
      amount_refunded: '0.00',
      refund_status: 'none',
    });
  });

  it('of a refund carries its payment’s connection and the link’s metadata', () => {
    const row = refundRow(
      {
        id: 're_1',
        object: 'refund',
        payment_link_id: 'pl_1',
        payment_id: 'pay_1',
        status: 'succeeded',
        amount: eur('10.00'),
        failure: null,
        provider_reference: 'r',
        created_at: at,
        updated_at: at,
        account: 'acme',
        mode: 'test',
        connection_id: 'pc_1',
        provider: 'acme_pay',
      },
      context(),
    );
    expect(row).toMatchObject({
      link_id: 'pl_1',
      provider: 'acme_pay',
      connection_name: 'Main EUR',
      description: 'Order 1001',
      'metadata.order_id': '1001',
    });
  });
});

describe('the totals of payments', () => {
  it('count succeeded payments only, per currency, with the fees of their currency', () => {
    const totals: Totals = new Map();
    const fee = configuredFee([{ percent: 1.4, fixed: 0.25 }], eur('10.00'), undefined);
    addPayment(totals, book({ amount: eur('10.00'), refunded_minor: 400, ...(fee ? { fee } : {}) }));
    addPayment(totals, book({ amount: eur('5.00') }));
    addPayment(totals, book({ amount: eur('7.00'), status: 'failed' }));
    addPayment(totals, book({ amount: { value: '1000', currency: 'JPY' } }));
    // A fee reported in another currency than the payment's is not summed into this one's.
    addPayment(
      totals,
      book({
        amount: eur('1.00'),
        fee: {
          amount: { value: '0.02', currency: 'USD' },
          net: { value: '1.05', currency: 'USD' },
          source: 'reported',
        },
      }),
    );
    expect(summaryOf(totals)).toEqual([
      {
        currency: 'EUR',
        count: 3,
        gross: '16.00',
        refunded: '4.00',
        fees: '0.39',
        net: '11.61',
        payments_without_fee: 2,
      },
      {
        currency: 'JPY',
        count: 1,
        gross: '1000',
        refunded: '0',
        fees: '0',
        net: '1000',
        payments_without_fee: 1,
      },
    ]);
  });

  it('are what the rows of the export add up to: amount, amount_refunded, fee, and net less amount_refunded', () => {
    const arbitraryPayment = fc
      .record({
        status: fc.constantFrom(...PAYMENT_STATES),
        minor: fc.bigInt({ min: 1n, max: 10n ** 9n }),
        refundedShare: fc.integer({ min: 0, max: 100 }),
        percent: fc.option(fc.integer({ min: 0, max: 5000 }).map((n) => n / 1000)),
      })
      .map(({ status, minor, refundedShare, percent }) => {
        const amount = eur(fromMinorUnits(minor, 'EUR'));
        const fee =
          percent === null ? undefined : configuredFee([{ percent, fixed: 0.25 }], amount, undefined);
        const succeeded = status === 'succeeded';
        return book({
          status,
          amount,
          ...(succeeded ? { refunded_minor: Number((minor * BigInt(refundedShare)) / 100n) } : {}),
          ...(succeeded && fee ? { fee } : {}),
        });
      });
    fc.assert(
      fc.property(fc.array(arbitraryPayment, { maxLength: 30 }), (payments) => {
        const totals: Totals = new Map();
        for (const each of payments) addPayment(totals, each);
        const rows = payments
          .map((each) => paymentRow(each, context()))
          .filter((row) => row.status === 'succeeded');
        const sum = (column: string) =>
          rows.reduce((total, row) => total + toMinorUnits(eur(row[column] || '0')), 0n);
        const [summary] = summaryOf(totals);
        if (!rows.length) {
          expect(summary).toBeUndefined();
          return;
        }
        expect(summary).toMatchObject({
          count: rows.length,
          gross: fromMinorUnits(sum('amount'), 'EUR'),
          refunded: fromMinorUnits(sum('amount_refunded'), 'EUR'),
          fees: fromMinorUnits(sum('fee'), 'EUR'),
          payments_without_fee: rows.filter((row) => row.fee === '').length,
        });
        // With every fee known, `net` is the rows' net less their refunds.
        if (rows.every((row) => row.fee !== '')) {
          expect(summary?.net).toBe(fromMinorUnits(sum('net') - sum('amount_refunded'), 'EUR'));
        }
      }),
    );
  });
});
