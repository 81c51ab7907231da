import { describe, expect, it } from 'vitest';
import { InvalidStateError } from '../../functions/domain/errors.ts';
import { cancel, expire, markPaid } from '../../functions/domain/link-events.ts';
import {
  effectiveStatus,
  newPaymentLink,
  type PaymentLink,
  update,
} from '../../functions/domain/payment-link.ts';
import { toResource } from '../../functions/http/api/resources.ts';

const principal = { account: 'acme', mode: 'test' } as const;
const created = new Date('2026-01-01T10:00:00Z');
const later = new Date('2026-01-01T11:00:00Z');
const base = 'https://pay.example/checkout';
const payment = {
  id: 'pay_x',
  connection_id: 'pc_x',
  provider: 'sandbox' as const,
  reference: 'pay_1',
  amount: { value: '10.5', currency: 'EUR' },
};

function openLink(expiresAt?: string): PaymentLink {
  return newPaymentLink(
    principal,
    { amount: { value: '10.5', currency: 'EUR' }, expires_at: expiresAt },
    created,
  );
}

describe('a new payment link', () => {
  it('is open, has a pl_ id with at least 22 base62 characters and echoes the amount exactly', () => {
    // Act
    const link = openLink();
    // Assess
    expect(link.id).toMatch(/^pl_[0-9A-Za-z]{22,}$/);
    expect(link.status).toBe('open');
    expect(link.amount).toEqual({ value: '10.5', currency: 'EUR' });
    expect(toResource(link, base, created)).toMatchObject({
      checkout_url: `${base}/${link.id}`,
      description: null,
      metadata: null,
      payment: null,
    });
  });

  it('does not expose its account or PSP session in the resource', () => {
    // Act
    const resource = toResource(openLink(), base, created) as unknown as Record<string, unknown>;
    // Assess
    expect(resource.account).toBeUndefined();
    expect(resource.psp_session).toBeUndefined();
    expect(resource.version).toBeUndefined();
  });
});

describe('state transitions', () => {
  it('open → paid records the payment and emits payment_link.paid naming the event on the link', () => {
    // Act
    const transition = markPaid(openLink(), payment, later);
    // Assess
    expect(transition?.after).toMatchObject({
      status: 'paid',
      paid_at: later.toISOString(),
      payment,
      version: 2,
    });
    expect(transition?.event).toMatchObject({ type: 'payment_link.paid', link_id: transition?.after.id });
    expect(transition?.event.id).toMatch(/^evt_[0-9A-Za-z]{22,}$/);
    expect(transition?.after.event_ids).toEqual([transition?.event.id]);
    expect(transition?.event.data.status).toBe('paid');
  });

  it('a repeated payment confirmation changes nothing', () => {
    // Prepare
    const paid = markPaid(openLink(), payment, later)?.after as PaymentLink;
    // Act and assess
    expect(markPaid(paid, payment, later)).toBeUndefined();
  });

  it('a payment confirmed after cancellation or expiry is still recorded as paid', () => {
    // Prepare
    const canceled = cancel(openLink(), later)?.after as PaymentLink;
    const expired = expire(openLink('2026-01-01T10:30:00Z'), later)?.after as PaymentLink;
    // Act and assess
    expect(markPaid(canceled, payment, later)?.after.status).toBe('paid');
    expect(markPaid(expired, payment, later)?.after.status).toBe('paid');
  });

  it('cancel: open → canceled once; canceled again is unchanged; paid or expired is invalid', () => {
    // Prepare
    const paid = markPaid(openLink(), payment, later)?.after as PaymentLink;
    // Act
    const transition = cancel(openLink(), later);
    // Assess
    expect(transition?.after).toMatchObject({ status: 'canceled', canceled_at: later.toISOString() });
    expect(transition?.event.type).toBe('payment_link.canceled');
    expect(cancel(transition?.after as PaymentLink, later)).toBeUndefined();
    expect(() => cancel(paid, later)).toThrow(InvalidStateError);
    expect(() => cancel(openLink('2026-01-01T10:30:00Z'), later)).toThrow(InvalidStateError);
  });

  it('reads as expired as soon as expires_at passes, and only then may expiry be recorded', () => {
    // Prepare
    const link = openLink('2026-01-01T10:30:00Z');
    // Act
    const transition = expire(link, later);
    // Assess
    expect(effectiveStatus(link, created)).toBe('open');
    expect(expire(link, created)).toBeUndefined();
    expect(effectiveStatus(link, later)).toBe('expired');
    expect(toResource(link, base, later).status).toBe('expired');
    expect(transition?.after.status).toBe('expired');
    expect(transition?.event.type).toBe('payment_link.expired');
    expect(expire(transition?.after as PaymentLink, later)).toBeUndefined();
  });
});

describe('updating an open link', () => {
  it('marks a reusable link’s open buyer sessions stale when what buyers see changes, not otherwise', () => {
    const reusable = newPaymentLink(
      principal,
      { amount: { value: '10.5', currency: 'EUR' }, reusable: true },
      created,
    );
    expect(update(reusable, { description: 'new' }, later).sessions_stale_before).toBe(later.toISOString());
    expect(update(reusable, { metadata: { a: '1' } }, later).sessions_stale_before).toBeNull();
    expect(update(openLink(), { description: 'new' }, later).sessions_stale_before).toBeNull();
  });

  const session = {
    provider: 'sandbox' as const,
    connection_id: 'pc_x',
    payment_id: 'pay_x',
    id: 'sbs_1',
    url: 'https://psp.example/s/1',
    expires_at: '2026-01-02T10:00:00.000Z',
    amount: { value: '10.5', currency: 'EUR' },
  };
  const withSession = (link: PaymentLink): PaymentLink => ({ ...link, psp_session: session });

  it('applies present fields, keeps absent ones, clears with null and moves one version on', () => {
    // Prepare
    const link = { ...openLink(), description: 'before', metadata: { a: '1', b: '2' } };
    // Act
    const after = update(
      link,
      { metadata: { c: '3' }, description: null, expires_at: '2026-02-01T00:00:00+01:00' },
      later,
    );
    // Assess
    expect(after).toMatchObject({
      description: null,
      metadata: { c: '3' },
      expires_at: '2026-01-31T23:00:00.000Z',
      amount: link.amount,
      version: link.version + 1,
    });
  });

  it('drops the PSP session when the description, the return address or the expiry changes', () => {
    for (const changes of [
      { description: 'new' },
      { redirect_url: 'https://shop.example/back' },
      { expires_at: '2026-03-01T00:00:00Z' },
    ]) {
      expect(update(withSession(openLink()), changes, later).psp_session).toBeNull();
    }
  });

  it('keeps the PSP session when only metadata or the webhook address changes, or a value is set to itself', () => {
    // Prepare
    const link = withSession({ ...openLink(), description: 'same' });
    // Act
    const after = update(
      link,
      { metadata: { x: 'y' }, webhook_url: 'https://shop.example/h', description: 'same' },
      later,
    );
    // Assess
    expect(after.psp_session).toEqual(session);
  });

  it('refuses a paid, canceled or expired link, including one whose expiry passed unrecorded', () => {
    // Prepare
    const paid = (markPaid(openLink(), payment, later) as { after: PaymentLink }).after;
    const canceled = (cancel(openLink(), later) as { after: PaymentLink }).after;
    const overdue = openLink('2026-01-01T10:30:00Z');
    // Act and assess
    for (const link of [paid, canceled, overdue]) {
      expect(() => update(link, { expires_at: '2026-06-01T00:00:00Z' }, later)).toThrow(InvalidStateError);
    }
  });
});
