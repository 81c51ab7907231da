import { expect } from 'vitest';
import type { BuyerDetail, BuyerDetails, Collect } from '../../functions/domain/buyer.ts';
import type { PspConnection } from '../../functions/domain/connection.ts';
import { InvalidNotificationError } from '../../functions/domain/errors.ts';
import type { Amount } from '../../functions/domain/money.ts';
import { newPaymentLink, type PaymentLink, type PspSession } from '../../functions/domain/payment-link.ts';
import type { Psp, PspSessionStatus, SessionRequest } from '../../functions/ports/psp.ts';
import { canCaptureLater } from '../../functions/ports/psp-capabilities.ts';
import { BUYER, type ConformanceRun, type RawNotification } from './psp-conformance.ts';
import { orderLink, sessionRequest } from './psp-fixtures.ts';

// The steps the conformance scenarios share (test/integration/psp-conformance-*.test.ts): what checkout, the
// notification and the buyer do, in the order the service does them.

/** The same amount, whatever the spelling of its decimals (`10.5` and `10.50` EUR). */
export function expectSameMoney(actual: Amount | null | undefined, expected: Amount): void {
  expect(actual?.currency).toBe(expected.currency);
  expect(Number(actual?.value)).toBe(Number(expected.value));
}

/** A link whose buyer chooses the amount, between 5 and 50 of `currency`. */
export function rangeLink(currency: string): PaymentLink {
  return newPaymentLink(
    { account: 'acme', mode: 'test' },
    { amount_range: { currency, minimum: '5.00', maximum: '50.00' }, description: 'Donation' },
    new Date(),
  );
}

/** A link of 10.00 that collects every detail the PSP's page can ask (`pageAsks`), and the request for it. */
export function collectingRequest(run: ConformanceRun, connection: PspConnection) {
  const asks = Object.keys(run.descriptor.pageAsks) as BuyerDetail[];
  const collect: Collect = Object.fromEntries(
    asks.map((detail) => [detail, detail === 'shipping_address' ? { countries: ['NL'] } : 'required']),
  );
  const link = { ...orderLink('10.00', run.currency), collect };
  return { ...sessionRequest(link, connection), pageAsks: asks };
}

/**
 * The status of a session as the service settles it: read back, and captured first where the PSP takes the money
 * only when we capture and the buyer approved.
 */
export async function settledStatus(psp: Psp, session: PspSession): Promise<PspSessionStatus> {
  const status = await psp.retrieveSession(session.id);
  if (status.deferredCapture !== 'approved' || !canCaptureLater(psp)) return status;
  return psp.captureSession({ id: session.id, paymentId: session.payment_id });
}

/**
 * Verifies `notification` as the notification function does first, expecting it about `session`: what it names
 * (the session, or the PSP's payment in it) reads back as that session's attempt.
 */
export async function verified(psp: Psp, notification: RawNotification, session: PspSession) {
  const items = await psp.verifyNotification(notification.body, notification.headers);
  expect(items.every((item) => !item.livemode)).toBe(true);
  const named = items.flatMap((item) => (item.sessionId ? [item.sessionId] : []));
  const attempts = await Promise.all(named.map(async (id) => (await psp.retrieveSession(id)).paymentId));
  expect(attempts).toContain(session.payment_id);
  return items;
}

/** A notification the adapter must refuse as not authentic. */
export async function expectRefused(psp: Psp, notification: RawNotification): Promise<void> {
  await expect(psp.verifyNotification(notification.body, notification.headers)).rejects.toBeInstanceOf(
    InvalidNotificationError,
  );
}

/**
 * A session the buyer paid, as the service learns of it: the PSP's notification verified, then the status read
 * back (and captured, where the PSP captures later).
 */
export async function paidSession(
  run: ConformanceRun,
  psp: Psp,
  request: SessionRequest,
  buyer: BuyerDetails = BUYER,
): Promise<{ session: PspSession; status: PspSessionStatus }> {
  const session = await psp.createSession(request);
  await run.fake.pay(session, buyer);
  await verified(psp, await run.fake.notification(session, 'genuine'), session);
  return { session, status: await settledStatus(psp, session) };
}
