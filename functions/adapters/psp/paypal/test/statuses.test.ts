import type { Order } from '@paypal/paypal-server-sdk';
import { describe, expect, it } from 'vitest';
import { amountProblem } from '../../../../domain/psp-rules.ts';
import { paypalLocale } from '../adapter.ts';
import { verificationBody } from '../client.ts';
import { paypal } from '../descriptor.ts';
import { paypalNotification, paypalOrderStatus, paypalRefundStatus, paypalValue } from '../statuses.ts';

const order = (status: string, capture?: string): Order =>
  ({
    id: '5O190127TN364715T',
    status,
    purchaseUnits: [
      {
        invoiceId: 'pay_1',
        customId: 'pl_1',
        amount: { currencyCode: 'EUR', value: '10.00' },
        ...(capture && { payments: { captures: [{ id: '3C679366HH908993F', status: capture }] } }),
      },
    ],
  }) as Order;

describe('what a PayPal order says of the attempt', () => {
  it('awaits the buyer, then our capture, as pending', () => {
    expect(paypalOrderStatus(order('PAYER_ACTION_REQUIRED'), false)).toMatchObject({
      state: 'pending',
      deferredCapture: 'awaiting_approval',
      paymentId: 'pay_1',
      linkId: 'pl_1',
      amount: { value: '10.00', currency: 'EUR' },
    });
    expect(paypalOrderStatus(order('APPROVED'), false)).toMatchObject({
      state: 'pending',
      deferredCapture: 'approved',
    });
  });

  it('is paid once its capture completed, its capture id the reference; a capture under review stays pending', () => {
    expect(paypalOrderStatus(order('COMPLETED', 'COMPLETED'), true)).toMatchObject({
      state: 'succeeded',
      paymentReference: '3C679366HH908993F',
      livemode: true,
    });
    expect(paypalOrderStatus(order('COMPLETED', 'PARTIALLY_REFUNDED'), false).state).toBe('succeeded');
    expect(paypalOrderStatus(order('COMPLETED', 'PENDING'), false).state).toBe('pending');
    expect(paypalOrderStatus(order('COMPLETED', 'PENDING'), false).deferredCapture).toBeUndefined();
  });

  it("reports the fee and net of its completed capture's seller_receivable_breakdown, and none without one", () => {
    const captured = order('COMPLETED', 'COMPLETED');
    const capture = captured.purchaseUnits?.[0]?.payments?.captures?.[0];
    expect(paypalOrderStatus(captured, false).fee).toBeUndefined();
    if (capture) {
      capture.sellerReceivableBreakdown = {
        grossAmount: { currencyCode: 'EUR', value: '10.00' },
        paypalFee: { currencyCode: 'EUR', value: '0.64' },
        netAmount: { currencyCode: 'EUR', value: '9.36' },
      };
    }
    expect(paypalOrderStatus(captured, false).fee).toEqual({
      fee: { value: '0.64', currency: 'EUR' },
      net: { value: '9.36', currency: 'EUR' },
    });
    // A capture under review has not paid: its breakdown is no fee of a payment yet.
    const reviewed = order('COMPLETED', 'PENDING');
    const pending = reviewed.purchaseUnits?.[0]?.payments?.captures?.[0];
    if (pending) pending.sellerReceivableBreakdown = capture?.sellerReceivableBreakdown;
    expect(paypalOrderStatus(reviewed, false).fee).toBeUndefined();
  });

  it('fails with a declined capture and is canceled when voided', () => {
    expect(paypalOrderStatus(order('COMPLETED', 'DECLINED'), false)).toMatchObject({
      state: 'failed',
      failure: { code: 'declined' },
    });
    expect(paypalOrderStatus(order('VOIDED'), false).state).toBe('canceled');
  });

  it('reports what its capture took once there is one, else what the order asks', () => {
    const captured = order('COMPLETED', 'COMPLETED');
    const capture = captured.purchaseUnits?.[0]?.payments?.captures?.[0];
    if (capture) capture.amount = { currencyCode: 'USD', value: '0.01' };
    expect(paypalOrderStatus(captured, false).amount).toEqual({ value: '0.01', currency: 'USD' });
    expect(paypalOrderStatus(order('APPROVED'), false).amount).toEqual({ value: '10.00', currency: 'EUR' });
    const bare = { ...order('APPROVED'), purchaseUnits: [{ invoiceId: 'pay_1' }] } as Order;
    expect(paypalOrderStatus(bare, false).amount).toBeNull();
  });
});

describe('what a verified PayPal event names', () => {
  it('an order: the resource of CHECKOUT.ORDER.*, the related order of PAYMENT.CAPTURE.*', () => {
    expect(
      paypalNotification({ event_type: 'CHECKOUT.ORDER.APPROVED', resource: { id: 'O1' } }, false),
    ).toEqual({
      type: 'CHECKOUT.ORDER.APPROVED',
      sessionId: 'O1',
      refundReference: null,
      livemode: false,
    });
    const capture = { id: 'C1', supplementary_data: { related_ids: { order_id: 'O2' } } };
    expect(
      paypalNotification({ event_type: 'PAYMENT.CAPTURE.DENIED', resource: capture }, false).sessionId,
    ).toBe('O2');
  });

  it('a refund: the resource of PAYMENT.CAPTURE.REFUNDED and REVERSED; anything else nothing', () => {
    for (const type of ['PAYMENT.CAPTURE.REFUNDED', 'PAYMENT.CAPTURE.REVERSED']) {
      expect(paypalNotification({ event_type: type, resource: { id: 'R1' } }, false)).toMatchObject({
        sessionId: null,
        refundReference: 'R1',
      });
    }
    expect(
      paypalNotification({ event_type: 'BILLING.PLAN.CREATED', resource: { id: 'P1' } }, false),
    ).toMatchObject({
      sessionId: null,
      refundReference: null,
    });
  });

  it('a refund’s outcome, with our ids echoed back', () => {
    expect(
      paypalRefundStatus({ id: 'R1', status: 'COMPLETED', invoiceId: 're_1', customId: 'pl_1' } as never),
    ).toEqual({
      reference: 'R1',
      refundId: 're_1',
      linkId: 'pl_1',
      state: 'succeeded',
      failureMessage: null,
    });
    expect(paypalRefundStatus({ id: 'R2', status: 'CANCELLED' } as never).state).toBe('failed');
    expect(paypalRefundStatus({ id: 'R3', status: 'PENDING' } as never).state).toBe('pending');
  });
});

describe('PayPal’s verification call', () => {
  const headers = {
    'paypal-auth-algo': 'SHA256withRSA',
    'paypal-cert-url': 'https://api.paypal.com/v1/notifications/certs/CERT-1',
    'paypal-transmission-id': '69cd13f0-d67a-11e5-baa3-778b53f4ae55',
    'paypal-transmission-sig':
      'lmI95Jx3Y9nhR5SJWlHVIWpg4AgFk7n9bCHSRxbrd8A9zrhdu2rMyFrmz+Zjh3s3boXB07VXCXUZy/UFzUlnGJn0wDugt7FlSvdKeIJenLRemUxYCPVoEZzg9VFNqOa48gMkvF+XTpxBeUx/kWy6B5cp7GkT2+pOowfRK7OaynuxUoKW3JcMWw272VKjLTtTAShncla7tGF+55rxyt2KNZIIqxNMJ48RDZheGU5w1npu9dZHnPgTXB9iomeVRoD8O/jhRpnKsGrDschyNdkeh81BJJMH4Ctc6lnCCquoP/GzCzz33MMsNdid7vL/NIWaCsekQpW26FpWPi/tfj8nLA==',
    'paypal-transmission-time': '2016-02-18T20:01:35Z',
  };

  it('carries the exact bytes received as webhook_event, with the webhook id', () => {
    const raw = '{"id":"WH-1","event_type":"CHECKOUT.ORDER.APPROVED",  "resource":{"id":"O1","amount":1.10}}';
    const body = verificationBody(raw, headers, 'WEBHOOKID1') as string;
    expect(body.endsWith(`"webhook_event":${raw}}`)).toBe(true);
    expect(JSON.parse(body)).toMatchObject({
      webhook_id: 'WEBHOOKID1',
      transmission_id: headers['paypal-transmission-id'],
    });
  });

  it('is not made for a delivery missing one of its headers', () => {
    const { 'paypal-cert-url': _, ...without } = headers;
    expect(verificationBody('{}', without, 'WEBHOOKID1')).toBeUndefined();
  });
});

describe('PayPal’s amounts and locales', () => {
  it('sends the currency’s decimals, none for HUF, JPY and TWD', () => {
    expect(paypalValue(paypal, { value: '10.5', currency: 'EUR' })).toBe('10.50');
    expect(paypalValue(paypal, { value: '500', currency: 'JPY' })).toBe('500');
    expect(paypalValue(paypal, { value: '500.00', currency: 'HUF' })).toBe('500');
  });

  it('refuses currencies PayPal does not take, and decimals where it takes none', () => {
    expect(amountProblem(paypal.amounts, { value: '10.00', currency: 'RON' }, 'payment')).toMatch(/RON/);
    expect(amountProblem(paypal.amounts, { value: '10.50', currency: 'HUF' }, 'payment')).toMatch(/decimals/);
    expect(amountProblem(paypal.amounts, { value: '10.50', currency: 'EUR' }, 'refund')).toBeUndefined();
  });

  it('spells our locale as PayPal’s language-region tag', () => {
    expect(paypalLocale('nl')).toBe('nl-NL');
    expect(paypalLocale('nl-BE')).toBe('nl-BE');
    expect(paypalLocale('en')).toBe('en-US');
  });
});
