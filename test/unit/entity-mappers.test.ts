import { describe, expect, it } from 'vitest';
import { apiKeyFromItem } from '../../functions/adapters/dynamodb/api-key-mapper.ts';
import {
  auditEntryFromItem,
  consoleSessionFromItem,
} from '../../functions/adapters/dynamodb/console-mapper.ts';
import { endpointFromItem } from '../../functions/adapters/dynamodb/endpoint-mapper.ts';
import { storedEventData } from '../../functions/adapters/dynamodb/event-data.ts';
import { eventFromItem } from '../../functions/adapters/dynamodb/event-mapper.ts';
import { idempotencyRecordFromItem } from '../../functions/adapters/dynamodb/idempotency-mapper.ts';
import { paymentFromItem, paymentToItem } from '../../functions/adapters/dynamodb/payment-mapper.ts';
import { recoveryFromItem } from '../../functions/adapters/dynamodb/recovery-mapper.ts';
import { refundEntryFromItem } from '../../functions/adapters/dynamodb/refund-mapper.ts';
import { sandboxSessionFromItem } from '../../functions/adapters/dynamodb/sandbox-session-mapper.ts';
import { type Payment, startedPayment } from '../../functions/domain/payment.ts';
import { refusal } from '../support/undecodable.ts';

const eur = (value: string) => ({ value, currency: 'EUR' });
const at = '2026-11-23T10:00:00.000Z';
const now = new Date('2026-11-29T10:00:00Z');

describe('payment mapper', () => {
  /** A payment as the first payments were stored (2026-11-23): none of the fields that came later. */
  const FIRST_PAYMENT = {
    id: 'pay_Old0000000000000000000001',
    link_id: 'pl_Old0000000000000000000001',
    account: 'acme',
    mode: 'test',
    connection_id: 'pc_x',
    provider: 'sandbox',
    status: 'succeeded',
    provider_reference: 'pi_1',
    failure: null,
    session_id: 'cs_1',
    session_expires_at: at,
    next_check_at: null,
    checks: 1,
    created_at: at,
    updated_at: at,
    version: 2,
  };
  const keys = { pk: `LINK#${FIRST_PAYMENT.link_id}`, sk: `PAYMENT#test#${FIRST_PAYMENT.id}` };

  it('reads a payment from before the later fields as it was, each absent (Payment says what that means)', () => {
    expect(
      paymentFromItem({ ...keys, gsi1pk: 'PAYMENTS#acme#test#0', gsi1sk: at, ...FIRST_PAYMENT }),
    ).toEqual(FIRST_PAYMENT);
  });

  const unknown = (connection: string) => ({
    connection,
    paid_share: null,
    sessions: 0,
    expected_fee: null,
    fee_basis: null,
    eliminated: false,
  });

  it('reads back what it writes, its routing decision expanded again', () => {
    const payment = startedPayment(
      {
        id: 'pay_New0000000000000000000001',
        link: { id: 'pl_New0000000000000000000001', account: 'acme', mode: 'test' },
        connection: { id: 'pc_a', provider: 'sandbox' },
        amount: eur('12.00'),
        openedBy: 'buyer_1',
        routing: {
          rule: 'euro',
          strategy: 'priority',
          segment: { currency: 'EUR', payment_method: 'any', amount_band: '10-100' },
          candidates: [
            { ...unknown('pc_a'), paid_share: 0.5, sessions: 10 },
            { ...unknown('pc_b'), eliminated: true },
          ],
          chosen: 'pc_a',
          exploration: false,
          recovery: true,
          holdout: true,
          tried: [
            { connection_id: 'pc_b', payment_id: 'pay_Tried000000000000000000001', outcome: 'unavailable' },
            { connection_id: 'pc_c', payment_id: 'pay_Tried000000000000000000002', outcome: 'refused' },
          ],
          recovers: 'pay_Declined0000000000000001',
        },
      },
      { id: 'tr_1', expires_at: at, url: 'https://pay.example/tr_1' },
      now,
    );
    expect(paymentFromItem(paymentToItem(payment))).toEqual(payment);
    // The attempts tried and the payment recovered, kept small (docs/performance.md#cost-per-million-links).
    expect(paymentToItem(payment).routing).toMatchObject({
      t: [
        ['pc_b', 'pay_Tried000000000000000000001', 0],
        ['pc_c', 'pay_Tried000000000000000000002', 1],
      ],
      d: 'pay_Declined0000000000000001',
    });
  });

  it('reads a failure from before classes (2026-11-29) with its code’s class, and keeps a stored class', () => {
    const item = { ...keys, ...FIRST_PAYMENT, status: 'failed' };
    const failure = (stored: Record<string, unknown>) =>
      paymentFromItem({ ...item, failure: stored }).failure;
    expect(failure({ code: 'psp_unavailable', message: 'down' })).toEqual({
      code: 'psp_unavailable',
      class: 'outage',
      message: 'down',
    });
    expect(failure({ code: 'declined', message: 'no' })?.class).toBe('soft');
    expect(failure({ code: 'declined', class: 'hard', message: 'no' })?.class).toBe('hard');
    expect(refusal(() => failure({ code: 'declined', class: 'fatal', message: 'no' })).reason).toMatch(
      /^failure.class: expected one of/,
    );
  });

  it('reads a pending payment’s refused try (none on older items), its class as a failure’s', () => {
    const item = { ...keys, ...FIRST_PAYMENT, status: 'pending', failure: null };
    expect(paymentFromItem(item)).not.toHaveProperty('declined_attempt');
    const declined = { code: 'psp_unavailable', message: 'Issuer Unavailable' } as const;
    expect(paymentFromItem({ ...item, declined_attempt: declined }).declined_attempt).toEqual({
      ...declined,
      class: 'outage',
    });
    const kept: Payment = {
      ...paymentFromItem(item),
      declined_attempt: { ...declined, class: 'outage' as const },
    };
    expect(paymentFromItem(paymentToItem(kept))).toEqual(kept);
    expect(
      refusal(() => paymentFromItem({ ...item, declined_attempt: { code: 'nope', message: 'x' } })).reason,
    ).toMatch(/^declined_attempt.code: expected one of/);
  });

  it('refuses a payment whose status or provider is not one it can be', () => {
    const item = { ...keys, ...FIRST_PAYMENT };
    expect(refusal(() => paymentFromItem({ ...item, status: 'paid' })).reason).toMatch(
      /^status: expected one of/,
    );
    expect(refusal(() => paymentFromItem({ ...item, provider: 'acmepay' })).reason).toMatch(/^provider: /);
    expect(
      refusal(() => paymentFromItem({ ...item, routing: { s: 'split', g: 'EUR', c: [['pc_a', 1]] } })),
    ).toMatchObject({
      pk: keys.pk,
      sk: keys.sk,
      reason: 'routing.c.0: expected an id or 5 or 6 estimates, found a list',
    });
    expect(
      refusal(() =>
        paymentFromItem({ ...item, routing: { s: 'split', g: 'EUR', t: [['pc_a', 'pay_1', 2]] } }),
      ),
    ).toMatchObject({ reason: 'routing.t.0: expected 0 or 1, found a number' });
  });
});

describe('webhook endpoint mapper', () => {
  const ENDPOINT = {
    id: 'we_1',
    account: 'acme',
    mode: 'test',
    url: 'https://shop.example/hooks',
    enabled_events: ['*'],
    description: null,
    status: 'enabled',
    created_at: at,
    updated_at: at,
  };
  const item = {
    pk: 'WEBHOOK_ENDPOINTS#acme#test',
    sk: 'ENDPOINT#we_1',
    kind: 'webhook_endpoint',
    ...ENDPOINT,
  };

  it('reads an endpoint never attempted with an empty window, its sealed secret apart from the endpoint', () => {
    expect(endpointFromItem({ ...item, secret: 'sealed' })).toEqual({
      ...ENDPOINT,
      sealed: { secret: 'sealed' },
      stats: { window: [] },
    });
  });

  it('keeps the previous secret only with the end of its overlap, and the window and failure start as stats', () => {
    const stored = {
      ...item,
      secret: 'new',
      previous_secret: 'old',
      previous_until: at,
      window: [[0, 120]],
      failing_since: at,
      disabled_reason: 'failing',
      test_until: 1,
    };
    expect(endpointFromItem(stored)).toEqual({
      ...ENDPOINT,
      sealed: { secret: 'new', previous_secret: 'old', previous_until: at },
      stats: { window: [[0, 120]], failing_since: at },
    });
    const { previous_until: _until, ...half } = stored;
    expect(endpointFromItem(half).sealed).toEqual({ secret: 'new' });
  });

  it('refuses an endpoint without its secret, or with a window that is not attempts', () => {
    expect(refusal(() => endpointFromItem(item)).reason).toBe('secret: expected a string, found nothing');
    expect(refusal(() => endpointFromItem({ ...item, secret: 's', window: [[2, 1]] })).reason).toBe(
      'window.0: expected [0 or 1, a duration], found a list',
    );
  });
});

describe('event mapper', () => {
  /** An event as the first ones were stored (2026-11-22): `data` a map, no attempt count, no endpoints. */
  const FIRST_EVENT = {
    id: 'evt_1',
    type: 'payment_link.paid',
    link_id: 'pl_1',
    account: 'acme',
    mode: 'test',
    created_at: at,
    data: { id: 'pl_1', object: 'payment_link', status: 'paid' },
    status: 'delivered',
    attempts: [{ at, status_code: 200, duration_ms: 12, error: null }],
    delivery_seq: 1,
    round_attempts: 0,
  };
  const keys = { pk: 'EVENT#evt_1', sk: 'MODE#test' };

  it('reads an event from before payloads were deflated, the bounded log and endpoints as it was', () => {
    expect(eventFromItem({ ...keys, ...FIRST_EVENT })).toEqual(FIRST_EVENT);
  });

  it('reads a deflated payload, and the outbox due time from the outbox key', () => {
    const item = { ...keys, ...FIRST_EVENT, data: storedEventData(FIRST_EVENT.data), attempt_count: 1 };
    expect(eventFromItem({ ...item, gsi2pk: 'OUTBOX#3', gsi2sk: `${at}#evt_1` })).toEqual({
      ...FIRST_EVENT,
      attempt_count: 1,
      outbox_due: at,
    });
  });

  it('refuses a payload that does not inflate, and a type there is not', () => {
    const garbled = { ...keys, ...FIRST_EVENT, data: new Uint8Array([1, 2, 3]) };
    expect(refusal(() => eventFromItem(garbled)).reason).toBe('data: expected deflated JSON, found binary');
    expect(
      refusal(() => eventFromItem({ ...keys, ...FIRST_EVENT, type: 'payment_link.lost' })).reason,
    ).toMatch(/^type: expected one of payment_link.paid, /);
  });
});

describe('refund entry mapper', () => {
  const ENTRY = {
    id: 're_1',
    object: 'refund',
    payment_link_id: 'pl_1',
    payment_id: 'pay_1',
    status: 'succeeded',
    amount: eur('4.00'),
    failure: null,
    provider_reference: 're_psp_1',
    created_at: at,
    updated_at: at,
    account: 'acme',
    mode: 'test',
    connection_id: 'pc_x',
    provider: 'sandbox',
  };
  const keys = { pk: 'LINK#pl_1', sk: 'REFUND#test#re_1' };

  it('reads an entry whose payment had no reference (or had it erased) without one', () => {
    expect(refundEntryFromItem({ ...keys, ...ENTRY })).toEqual(ENTRY);
    expect(refundEntryFromItem({ ...keys, ...ENTRY, client_reference_id: 'order-7' })).toEqual({
      ...ENTRY,
      client_reference_id: 'order-7',
    });
  });

  it('refuses an entry that is not a refund', () => {
    expect(refusal(() => refundEntryFromItem({ ...keys, ...ENTRY, object: 'payment' })).reason).toBe(
      'object: expected "refund", found a string',
    );
    expect(refusal(() => refundEntryFromItem({ ...keys, ...ENTRY, amount: '4.00' })).reason).toBe(
      'amount: expected a map, found a string',
    );
  });
});

describe('the mappers of the service’s own records', () => {
  it('read an audit entry from before outcomes (2026-11-28) as succeeded, with no reason and its key’s id', () => {
    const entry = {
      account: 'acme',
      mode: 'test',
      user: 'ada@example.com',
      role: 'admin',
      action: 'link.cancel',
      target: 'pl_1',
      source_ip: '192.0.2.1',
      at,
    };
    const item = { pk: 'CONSOLE_AUDIT#acme', sk: `${at}#a1b2`, ttl: 1, ...entry };
    expect(auditEntryFromItem(item)).toEqual({ ...entry, id: 'a1b2', outcome: 'succeeded', reason: null });
    expect(refusal(() => auditEntryFromItem({ ...item, action: 'link.delete' })).reason).toMatch(/^action: /);
  });

  it('read a console session, an API key, an idempotency record and a recovery, and refuse another shape', () => {
    const session = {
      account: 'acme',
      mode: 'test',
      user: 'ada@example.com',
      role: 'viewer',
      id_hash: 'h',
      csrf_token: 't',
      created_at: at,
      expires_at: at,
    };
    expect(consoleSessionFromItem({ pk: 'CONSOLE_SESSION#h', sk: 'SESSION', ttl: 1, ...session })).toEqual(
      session,
    );
    expect(refusal(() => consoleSessionFromItem({ ...session, role: 'owner' })).reason).toMatch(/^role: /);
    const key = {
      key_id: 'key_1',
      account: 'acme',
      mode: 'live',
      hash: 'ab',
      display_prefix: 'sk_live_ab',
      status: 'active',
      created_at: at,
      revoked_at: null,
    };
    expect(apiKeyFromItem({ pk: 'APIKEY#key_1', sk: 'APIKEY', ...key })).toEqual(key);
    expect(refusal(() => apiKeyFromItem({ ...key, status: 'paused' })).reason).toMatch(/^status: /);
    const claim = { fingerprint: 'f', status: 'in_progress', token: 't', lock_until: at, expires_at: at };
    expect(idempotencyRecordFromItem({ pk: 'IDEMPOTENCY#x', sk: 'IDEMPOTENCY', ttl: 1, ...claim })).toEqual(
      claim,
    );
    const completed = { ...claim, status: 'completed', response: { statusCode: 201, headers: {}, body: 7 } };
    expect(refusal(() => idempotencyRecordFromItem(completed)).reason).toBe(
      'response.body: expected a string, found a number',
    );
    const recovery = {
      endpoint_id: 'we_1',
      account: 'acme',
      mode: 'test',
      since: at,
      status: 'running',
      step: 2,
      queued: 40,
      started_at: at,
    };
    const recoveryItem = {
      pk: 'WEBHOOK_ENDPOINTS#acme#test',
      sk: 'RECOVERY#we_1',
      id: 'we_1',
      kind: 'recovery',
      delivery_seq: 2,
    };
    expect(recoveryFromItem({ ...recoveryItem, ...recovery })).toEqual(recovery);
  });

  it('read a sandbox session from before connections and locales (2026-11-22) without them', () => {
    const session = {
      id: 'sbcs_1',
      link_id: 'pl_1',
      account: 'acme',
      mode: 'test',
      amount: eur('10.00'),
      description: null,
      success_url: 'https://shop.example/ok',
      cancel_url: 'https://shop.example/back',
      status: 'open',
      payment_reference: null,
      declined_attempts: 0,
      created_at: at,
      expires_at: at,
    };
    expect(
      sandboxSessionFromItem({ pk: 'SANDBOX#sbcs_1', sk: 'SANDBOX_SESSION', ttl: 1, ...session }),
    ).toEqual(session);
    expect(refusal(() => sandboxSessionFromItem({ ...session, declined_attempts: null })).reason).toBe(
      'declined_attempts: expected a number, found null',
    );
  });
});
