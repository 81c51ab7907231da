import { describe, expect, it } from 'vitest';
import { withSession } from '../../functions/domain/checkout/sessions.ts';
import { captureDecision, claimAttempt } from '../../functions/domain/deferred-capture.ts';
import { ConcurrentModificationError } from '../../functions/domain/errors.ts';
import { markPaid } from '../../functions/domain/link-events.ts';
import { type Payment, startedPayment } from '../../functions/domain/payment.ts';
import { newPaymentLink, type PaymentLink } from '../../functions/domain/payment-link.ts';
import type { Psp, PspSessionStatus } from '../../functions/ports/psp.ts';
import { captureWhilePayable, releaseAttempt } from '../../functions/use-cases/deferred-capture.ts';
import { capturedOutput } from '../support/log-capture.ts';

const now = new Date('2026-01-01T10:00:00Z');
const connection = {
  id: 'pc_Deferred0000000000000000',
  account: 'acme',
  mode: 'test' as const,
  provider: 'acmepay',
  name: 'Deferred',
  enabled: true,
  simulate: null,
  secret_name: 'x',
  created_at: now.toISOString(),
};

function attemptOf(link: PaymentLink): { link: PaymentLink; payment: Payment } {
  const payment = startedPayment(
    { id: 'pay_1', link, connection, amount: { value: '10', currency: 'EUR' } },
    { id: 'ORDER1', expires_at: new Date(now.getTime() + 3_600_000).toISOString() },
    now,
  );
  const withItsSession = withSession(link, {
    provider: connection.provider,
    connection_id: connection.id,
    payment_id: payment.id,
    id: 'ORDER1',
    url: 'https://psp.example/approve',
    expires_at: payment.session_expires_at as string,
    amount: { value: '10', currency: 'EUR' },
  });
  return { link: withItsSession, payment };
}

const openLink = () =>
  attemptOf(
    newPaymentLink({ account: 'acme', mode: 'test' }, { amount: { value: '10', currency: 'EUR' } }, now),
  );

/** Payments in memory, saved on condition of the version read, as the DynamoDB repository does. */
function paymentStore(initial: Payment) {
  const stored = new Map([[initial.id, initial]]);
  return {
    stored,
    get: async (_link: string, _mode: string, id: string) => stored.get(id),
    save: async (payment: Payment, before?: Payment) => {
      if (before && stored.get(payment.id)?.version !== before.version) {
        throw new ConcurrentModificationError('changed');
      }
      stored.set(payment.id, payment);
    },
  };
}

const approved: PspSessionStatus = {
  id: 'ORDER1',
  paymentId: 'pay_1',
  linkId: null,
  state: 'pending',
  failure: null,
  paymentReference: null,
  amount: { value: '10', currency: 'EUR' },
  livemode: false,
  deferredCapture: 'approved',
};

function capturingPsp() {
  const captures: string[] = [];
  const voids: string[] = [];
  const psp = {
    provider: 'acmepay',
    captureSession: async ({ id, paymentId }: { id: string; paymentId: string }) => {
      captures.push(paymentId);
      return {
        ...approved,
        id,
        state: 'succeeded',
        paymentReference: 'CAPTURE1',
        deferredCapture: undefined,
      };
    },
    expireSession: async ({ id }: { id: string }) => {
      voids.push(id);
      return 'ended';
    },
  } as unknown as Psp;
  return { psp, captures, voids };
}

describe('deferred capture: capture only while the link can be paid by the attempt', () => {
  it('captures the approved attempt that is its open single-use link’s current session', () => {
    const { link, payment } = openLink();
    expect(captureDecision(link, payment, now)).toBe('capture');
  });

  it('releases an attempt whose link was paid, canceled or has expired, or that was released', () => {
    const { link, payment } = openLink();
    const paid = markPaid(
      link,
      {
        id: 'pay_other',
        connection_id: 'pc_x',
        provider: 'acmepay',
        reference: 'r',
        amount: { value: '10', currency: 'EUR' },
      },
      now,
    );
    expect(captureDecision({ ...link, status: 'canceled' }, payment, now)).toBe('release');
    expect(
      captureDecision({ ...link, expires_at: new Date(now.getTime() - 1).toISOString() }, payment, now),
    ).toBe('release');
    expect(captureDecision(paid?.after as PaymentLink, payment, now)).toBe('release');
    expect(captureDecision(link, { ...payment, capture: 'released' }, now)).toBe('release');
  });

  it('releases an attempt approved past its session’s end: the checkout may have opened another since', () => {
    const { link, payment } = openLink();
    const ended = new Date(Date.parse(payment.session_expires_at as string));
    expect(captureDecision(link, payment, new Date(ended.getTime() - 1))).toBe('capture');
    expect(captureDecision(link, payment, ended)).toBe('release');
    expect(claimAttempt(link, payment, 'claimed', ended).holds).toBe('released');
  });

  it('keeps the first claim: a released attempt is never claimed for a capture, and the other way round', () => {
    const { link, payment } = openLink();
    const released = claimAttempt(link, payment, 'released', now);
    expect(released.holds).toBe('released');
    expect(released.write?.status).toBe('canceled');
    expect(claimAttempt(link, released.write as Payment, 'claimed', now)).toEqual({ holds: 'released' });
    const claimed = claimAttempt(link, payment, 'claimed', now).write as Payment;
    expect(claimAttempt(link, claimed, 'released', now)).toEqual({ holds: 'claimed' });
  });
});

describe('deferred capture: the capture and the end race on the attempt’s payment', () => {
  it('captures an attempt a PATCH dropped from the link: it stays the open attempt until the checkout ends it', () => {
    const { link, payment } = openLink();
    expect(captureDecision({ ...link, psp_session: null }, payment, now)).toBe('capture');
  });

  it('captures on the return and on the notification alike with one idempotency key, the payment claimed once', async () => {
    const { link, payment } = openLink();
    const payments = paymentStore(payment);
    const { psp, captures } = capturingPsp();
    const deps = { payments, now: () => now };
    const [fromReturn, fromNotification] = await Promise.all([
      captureWhilePayable(deps, connection, psp, link, approved),
      captureWhilePayable(deps, connection, psp, link, approved),
    ]);
    expect(fromReturn.state).toBe('succeeded');
    expect(fromNotification.state).toBe('succeeded');
    expect(new Set(captures)).toEqual(new Set(['pay_1']));
    expect(payments.stored.get('pay_1')?.capture).toBe('claimed');
    expect(payments.stored.get('pay_1')?.version).toBe(2);
  });

  it('never captures an attempt that a cancel released first, and voids it where the PSP can', async () => {
    const { link, payment } = openLink();
    const payments = paymentStore(payment);
    const { psp, captures, voids } = capturingPsp();
    const deps = { payments, now: () => now };
    expect(await releaseAttempt(deps, link, 'pay_1')).toBe('ended');
    const status = await captureWhilePayable(deps, connection, psp, link, approved);
    expect(status.state).toBe('canceled');
    expect(captures).toEqual([]);
    expect(voids).toEqual(['ORDER1']);
    expect(payments.stored.get('pay_1')?.status).toBe('canceled');
  });

  it('never captures an attempt approved after its link was paid through another attempt', async () => {
    const { link, payment } = openLink();
    const paidElsewhere = { ...link, status: 'paid' as const };
    const payments = paymentStore(payment);
    const { psp, captures } = capturingPsp();
    const status = await captureWhilePayable(
      { payments, now: () => now },
      connection,
      psp,
      paidElsewhere,
      approved,
    );
    expect(status.state).toBe('canceled');
    expect(captures).toEqual([]);
  });

  it('keeps an attempt open that a capture claimed first: the money may be moving', async () => {
    const { link, payment } = openLink();
    const payments = paymentStore({ ...payment, capture: 'claimed' });
    expect(await releaseAttempt({ payments, now: () => now }, link, 'pay_1')).toBe('capturing');
  });

  it('never captures again an attempt whose claimed capture failed: its PSP may show the order approved again', async () => {
    // The buyer's funding source was declined at the capture (a refused capture): the attempt was
    // recorded failed with its claim kept, and its link paid by a later attempt. A re-approval of the order (or the
    // approval's notification arriving late) must not capture it beside the link's payment.
    const { link, payment } = openLink();
    const failed: Payment = { ...payment, status: 'failed', capture: 'claimed' };
    const payments = paymentStore(failed);
    const { psp, captures } = capturingPsp();
    const paidByAnother = { ...link, status: 'paid' as const };
    const status = await captureWhilePayable(
      { payments, now: () => now },
      connection,
      psp,
      paidByAnother,
      approved,
    );
    expect(captures).toEqual([]);
    expect(status.state).toBe('canceled');
    expect(payments.stored.get('pay_1')).toEqual(failed);
  });

  it('gives up a claimed capture asked for again beside a link paid meanwhile, never beside one only past its expiry', () => {
    const { link, payment } = openLink();
    const claimed: Payment = { ...payment, capture: 'claimed', version: 2 };
    const givenUp = claimAttempt({ ...link, status: 'paid' }, claimed, 'claimed', now);
    expect(givenUp.holds).toBe('released');
    expect(givenUp.write).toMatchObject({ status: 'canceled', capture: 'released', version: 3 });
    const pastItsExpiry = { ...link, expires_at: new Date(now.getTime() - 1).toISOString() };
    expect(claimAttempt(pastItsExpiry, claimed, 'claimed', now)).toEqual({ holds: 'claimed' });
    // The ending side still waits for a claimed capture: the money may be moving.
    expect(claimAttempt({ ...link, status: 'paid' }, claimed, 'released', now)).toEqual({ holds: 'claimed' });
  });

  it('answers any status that awaits no capture as it is', async () => {
    const { link, payment } = openLink();
    const { psp, captures } = capturingPsp();
    const waiting = { ...approved, deferredCapture: 'awaiting_approval' as const };
    const deps = { payments: paymentStore(payment), now: () => now };
    expect(await captureWhilePayable(deps, connection, psp, link, waiting)).toBe(waiting);
    expect(captures).toEqual([]);
  });
});

describe('deferred capture: the amount is compared before capturing', () => {
  it('never captures an approval at another amount than the attempt’s: voids it, answers amount_mismatch', async () => {
    const { link, payment } = openLink();
    const payments = paymentStore(payment);
    const { psp, captures, voids } = capturingPsp();
    const tampered = { ...approved, amount: { value: '0.01', currency: 'USD' } };
    let status: PspSessionStatus | undefined;
    const logged = await capturedOutput(async () => {
      status = await captureWhilePayable({ payments, now: () => now }, connection, psp, link, tampered);
    });
    expect(logged).toMatch(/"level":"ERROR","message":"A PSP reported another amount.*"reported":"0.01 USD"/);
    expect(captures).toEqual([]);
    expect(voids).toEqual(['ORDER1']);
    expect(status).toMatchObject({ state: 'failed', failure: { code: 'amount_mismatch' } });
    expect(status?.deferredCapture).toBeUndefined();
    expect(payments.stored.get('pay_1')?.capture).toBeUndefined();
  });

  it('captures an approval written with other trailing zeros: the same amount', async () => {
    const { link, payment } = openLink();
    const { psp, captures } = capturingPsp();
    const same = { ...approved, amount: { value: '10.00', currency: 'EUR' } };
    const deps = { payments: paymentStore(payment), now: () => now };
    expect((await captureWhilePayable(deps, connection, psp, link, same)).state).toBe('succeeded');
    expect(captures).toEqual(['pay_1']);
  });
});
