import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { buyerDetails } from '../../functions/domain/buyer-details.ts';
import { ValidationError } from '../../functions/domain/errors.ts';
import { markPaid, type Transition } from '../../functions/domain/link-events.ts';
import { toMinorUnits } from '../../functions/domain/money.ts';
import { newPaymentLink, type PaymentLink } from '../../functions/domain/payment-link.ts';
import { requestRefund, settleRefund } from '../../functions/domain/refund.ts';
import { MAX_URL_LENGTH } from '../../functions/domain/urls.ts';
import {
  decideAfterAttempt,
  MAX_RETRY_AFTER_MS,
  parseRetryAfter,
  RETRY_SCHEDULE_MS,
  retryDelayMs,
  webhookBody,
} from '../../functions/domain/webhook.ts';
import { signedWebhookHeaders } from '../../functions/domain/webhook-signature.ts';
import { MAX_METADATA_BYTES, MAX_METADATA_VALUE_LENGTH } from '../../functions/http/api/metadata-limits.ts';
import { createPaymentLinkRequest, MAX_DESCRIPTION_LENGTH } from '../../functions/http/api/schemas.ts';
import { validate } from '../../functions/http/validate.ts';
import { withEventCheckoutUrl } from '../../functions/use-cases/link-transitions.ts';
import { anyRefunds } from '../support/psp-fixtures.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const secret = `whsec_${Buffer.from('a'.repeat(32)).toString('base64')}`;
const result = (status_code: number | null, retry_after_ms?: number) => ({
  status_code,
  duration_ms: 12,
  error: null,
  retry_after_ms,
});

describe('the retry schedule', () => {
  it('waits about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h and 24 h, then gives up', () => {
    const waits = Array.from({ length: 10 }, (_, index) => retryDelayMs(index + 1, { random: () => 0.5 }));
    expect(waits).toEqual([
      5000,
      5 * MINUTE,
      30 * MINUTE,
      2 * HOUR,
      5 * HOUR,
      10 * HOUR,
      14 * HOUR,
      20 * HOUR,
      24 * HOUR,
      undefined,
    ]);
  });

  it('jitters every wait by at most 20% either way', () => {
    for (const [index, base] of RETRY_SCHEDULE_MS.entries()) {
      expect(retryDelayMs(index + 1, { random: () => 0 })).toBe(Math.round(base * 0.8));
      expect(retryDelayMs(index + 1, { random: () => 0.999999 })).toBeLessThanOrEqual(Math.round(base * 1.2));
    }
  });

  it('honours a Retry-After that asks for a longer wait, up to 24 hours, and never retries sooner than planned', () => {
    const random = () => 0.5;
    expect(retryDelayMs(1, { random, retryAfterMs: 60_000 })).toBe(60_000);
    expect(retryDelayMs(1, { random, retryAfterMs: 10 * 24 * HOUR })).toBe(MAX_RETRY_AFTER_MS);
    expect(retryDelayMs(3, { random, retryAfterMs: 1000 })).toBe(30 * MINUTE);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:10:00 GMT', now)).toBe(10 * MINUTE);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});

describe('the outcome of an attempt', () => {
  const options = { random: () => 0.5 };

  it('is delivered for any 2xx', () => {
    for (const code of [200, 201, 202, 204, 299]) {
      expect(decideAfterAttempt(result(code), 0, options)).toEqual({ status: 'delivered' });
    }
  });

  it('is final failure for 410 Gone, whatever attempts are left', () => {
    expect(decideAfterAttempt(result(410), 0, options)).toEqual({ status: 'failed', reason: 'gone' });
  });

  it('is a scheduled retry for redirects, other errors and no response', () => {
    for (const code of [301, 302, 400, 404, 429, 500, 503, null]) {
      expect(decideAfterAttempt(result(code), 0, options)).toEqual({ status: 'pending', retryInMs: 5000 });
    }
  });

  it('is final failure when the tenth attempt fails', () => {
    expect(decideAfterAttempt(result(500), 9, options)).toEqual({ status: 'failed', reason: 'exhausted' });
  });
});

describe('the webhook body of the largest link the API accepts', () => {
  /** Characters that cost the most once encoded: multi-byte UTF-8, and those JSON escapes (`\u0001`, `\"`). */
  const costly = ['r', '\u0001', '"', '\\', '\u00e9', '\u20ac', '\u{1F600}'];
  const schema = createPaymentLinkRequest('live', false);
  const accepted = (body: Record<string, unknown>) => {
    try {
      validate(schema, { amount: { value: '1', currency: 'EUR' }, ...body });
      return true;
    } catch {
      return false;
    }
  };
  /** The field value, filled to its limit with one costly character, that is accepted and encodes longest. */
  const costliest = (field: string, fill: (character: string) => unknown) =>
    costly
      .map((character) => fill(character))
      .filter((value) => accepted({ [field]: value }))
      .sort((a, b) => Buffer.byteLength(JSON.stringify(b)) - Buffer.byteLength(JSON.stringify(a)))[0];

  /**
   * The largest buyer a payment can hold (`BuyerSchema`'s lengths, and twice as many bytes), in a character that
   * costs most once it has been through `buyerDetails` (control characters are removed there).
   */
  const largestBuyer = async () => {
    const fill = (length: number) => '\u20ac'.repeat(length);
    const address = {
      line1: fill(200),
      line2: fill(200),
      city: fill(100),
      postal_code: fill(20),
      state: fill(100),
      country: 'NL',
    };
    const buyer = await buyerDetails({
      email: `${fill(120)}@${fill(133)}`,
      name: fill(200),
      phone: '+31612345678',
      billing_address: address,
      shipping_address: address,
    });
    // Twice each length in bytes at most (`buyerDetails`), which `€` fills.
    expect(Buffer.byteLength(JSON.stringify(buyer))).toBeGreaterThan(3400);
    return buyer;
  };

  it('stays under 20 KB (docs/webhooks.md#the-request), whatever characters fill the fields', async () => {
    const url = (path: string) => (character: string) => {
      const prefix = `https://shop.example.com/${path}/`;
      return prefix + character.repeat(Math.floor((MAX_URL_LENGTH - prefix.length) / character.length));
    };
    const metadata = costliest('metadata', (character) => {
      const filled: Record<string, string> = {};
      const value = character.repeat(Math.floor(MAX_METADATA_VALUE_LENGTH / character.length));
      for (let index = 0; ; index++) {
        const key = `k${String(index).padStart(2, '0')}`;
        if (Buffer.byteLength(JSON.stringify({ ...filled, [key]: value })) > MAX_METADATA_BYTES)
          return filled;
        filled[key] = value;
      }
    });
    const body = {
      amount: { value: '999999999999.99', currency: 'EUR' },
      description: costliest('description', (character) =>
        character.repeat(Math.floor(MAX_DESCRIPTION_LENGTH / character.length)),
      ),
      redirect_url: costliest('redirect_url', url('r')),
      webhook_url: costliest('webhook_url', url('w')),
      metadata,
      expires_at: new Date(Date.now() + 86_400_000).toISOString(),
    };
    const input = validate(schema, body);
    const link = newPaymentLink({ account: 'a'.repeat(64), mode: 'live' }, input, new Date());
    const paid = markPaid(
      link,
      {
        id: 'pay_x',
        connection_id: 'pc_x',
        provider: 'acmepay',
        reference: `pi_${'x'.repeat(60)}`,
        amount: link.amount!,
      },
      new Date(),
      { client_reference_id: 'r'.repeat(200), buyer: await largestBuyer() },
    );
    const checkoutBase = `https://pay.example.com/${'c'.repeat(200)}`;
    // The largest event of all: a refund the PSP refused with the longest reason, which carries the link too.
    const paidLink = paid?.after as PaymentLink;
    const refund = requestRefund(paidLink, undefined, `re_${'r'.repeat(64)}`, new Date(), anyRefunds);
    const refused = settleRefund(
      { ...paidLink, refunds: [refund], refund_reserved_minor: Number(toMinorUnits(refund.amount)) },
      refund.id,
      { status: 'failed', providerReference: 'r'.repeat(255), failureMessage: '\u0001'.repeat(1000) },
      new Date(),
    );
    if (refused?.kind !== 'settled') throw new Error('expected a settled refund');

    for (const transition of [paid as Transition, refused.transition]) {
      const size = Buffer.byteLength(webhookBody(withEventCheckoutUrl(transition, checkoutBase).event));
      expect(size).toBeGreaterThan(12_000); // the test really is near the worst case
      expect(size).toBeLessThan(20_000);
    }
  });

  it('refuses metadata over 8 KiB as JSON, even when every key and value is within its own limit', () => {
    const metadata = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`key${i}`, 'v'.repeat(500)]));
    expect(() =>
      validate(createPaymentLinkRequest('test', false), {
        amount: { value: '1', currency: 'EUR' },
        metadata,
      }),
    ).toThrow(ValidationError);
  });
});

describe('the webhook request', () => {
  const event = {
    id: 'evt_123',
    type: 'payment_link.paid' as const,
    link_id: 'pl_1',
    account: 'acme',
    mode: 'test' as const,
    created_at: '2026-01-01T10:00:00.000Z',
    data: { id: 'pl_1', status: 'paid' } as never,
  };

  it('has the Standard Webhooks body {type, timestamp, data}', () => {
    expect(JSON.parse(webhookBody(event))).toEqual({
      type: 'payment_link.paid',
      timestamp: '2026-01-01T10:00:00.000Z',
      data: { id: 'pl_1', status: 'paid' },
    });
  });

  it('carries one signature per secret during a rotation, so either secret verifies it', () => {
    const body = webhookBody(event);
    const next = `whsec_${Buffer.from('n'.repeat(32)).toString('base64')}`;
    const headers = signedWebhookHeaders([next, secret], event.id, body, new Date());
    expect(headers['webhook-signature']?.split(' ')).toHaveLength(2);
    expect(new Webhook(next).verify(body, headers)).toMatchObject({ type: 'payment_link.paid' });
    expect(new Webhook(secret).verify(body, headers)).toMatchObject({ type: 'payment_link.paid' });
    const unrelated = `whsec_${Buffer.from('u'.repeat(32)).toString('base64')}`;
    expect(() => new Webhook(unrelated).verify(body, headers)).toThrow();
  });

  it('is signed so that the standardwebhooks library verifies it with the secret, and only with it', () => {
    const body = webhookBody(event);
    const headers = signedWebhookHeaders([secret], event.id, body, new Date());
    expect(headers['webhook-id']).toBe('evt_123');
    expect(headers['webhook-signature']).toMatch(/^v1,/);
    expect(new Webhook(secret).verify(body, headers)).toMatchObject({ type: 'payment_link.paid' });
    const otherSecret = `whsec_${Buffer.from('b'.repeat(32)).toString('base64')}`;
    expect(() => new Webhook(otherSecret).verify(body, headers)).toThrow();
    expect(() => new Webhook(secret).verify(`${body} `, headers)).toThrow();
  });

  it('carries a fresh timestamp per attempt and the same webhook-id', () => {
    const body = webhookBody(event);
    const first = signedWebhookHeaders([secret], event.id, body, new Date('2026-01-01T10:00:00Z'));
    const retry = signedWebhookHeaders([secret], event.id, body, new Date('2026-01-01T10:05:00Z'));
    expect(retry['webhook-id']).toBe(first['webhook-id']);
    expect(retry['webhook-timestamp']).not.toBe(first['webhook-timestamp']);
    expect(retry['webhook-signature']).not.toBe(first['webhook-signature']);
  });
});
