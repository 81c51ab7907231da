// @module-tag waits: each PSP's hang waits out the 5 s PSP call budget (test/support/sequencer.ts)
import { expect, type TestContext } from 'vitest';
import { PSP_CALL_TIMEOUT_MS } from '../../functions/domain/call-budgets.ts';
import { chargedAmountMismatch } from '../../functions/domain/charged-amount.ts';
import { mandateOfAttempt, sessionTerms } from '../../functions/domain/checkout/mandates.ts';
import type { PspConnection } from '../../functions/domain/connection.ts';
import type { MandateRef } from '../../functions/domain/mandates.ts';
import { newPaymentId } from '../../functions/domain/payment.ts';
import { newPaymentLink } from '../../functions/domain/payment-link.ts';
import { chargeKey } from '../../functions/domain/subscription.ts';
import {
  canHoldMandates,
  type DeclineClass,
  type HoldsMandates,
  type MandateCharge,
  type Psp,
  PspOutageError,
  type SessionRequest,
} from '../../functions/ports/psp.ts';
import { timeoutFor } from '../support/eventually.ts';
import {
  BUYER,
  type ConformanceMandates,
  type ConformanceRun,
  forEveryPsp,
  scenario,
} from '../support/psp-conformance.ts';
import { expectSameMoney, paidSession, settledStatus } from '../support/psp-conformance-steps.ts';
import { sessionRequest } from '../support/psp-fixtures.ts';

/**
 * The conformance suite, mandates (docs/subscriptions.md#mandates): every registered PSP that declares
 * `holds_mandates` opens a mandate when the buyer pays a subscription's first session, charges it off-session at
 * the period's amount, once per idempotency key (a decline replayed too), classes its declines, tells a revoked
 * mandate from a declined charge, sets a trial's mandate up without a charge where it can, and takes no answer as
 * an outage. A PSP that does not declare it is skipped by name. The PSPs' blocks run at once: each block's hang
 * waits out the call budget.
 */

/** A monthly subscription link of 10.00 (with 14 days of trial when `trial`): its first session, as checkout asks it. */
function subscriptionRequest(run: ConformanceRun, connection: PspConnection, trial = false): SessionRequest {
  const periodAmount = { value: '10.00', currency: run.currency };
  const link = newPaymentLink(
    { account: 'acme', mode: 'test' },
    {
      amount: periodAmount,
      description: 'Coffee club',
      redirect_url: 'https://shop.example/thanks',
      recurring: { interval: 'month', interval_count: 1, trial_days: trial ? 14 : null },
    },
    new Date(),
  );
  const paymentId = newPaymentId(new Date());
  const terms = sessionTerms(link, periodAmount);
  if (!terms.mandate) throw new Error('a subscription link that opens no mandate');
  return {
    ...sessionRequest(link, connection, paymentId),
    amount: terms.amount,
    opensMandate: mandateOfAttempt(terms.mandate, paymentId),
  };
}

/** The fixture's mandates: a PSP that declares `holds_mandates` must give them. */
function mandatesOf(run: ConformanceRun): ConformanceMandates {
  if (!run.fake.mandates) throw new Error('it declares holds_mandates without its fixture’s `mandates`');
  return run.fake.mandates;
}

function holding(psp: Psp): Psp & HoldsMandates {
  if (!canHoldMandates(psp)) throw new Error('it declares holds_mandates without HoldsMandates');
  return psp;
}

/** A mandate the buyer set up by paying a subscription's first session, as the service reads it back. */
async function subscribed(run: ConformanceRun, trial = false) {
  const { psp, connection } = await run.adapter();
  const request = subscriptionRequest(run, connection, trial);
  const { session, status } = await paidSession(run, psp, request);
  const opened = await holding(psp).mandateOf({ id: session.id, paymentReference: status.paymentReference });
  if (opened.state !== 'ready') throw new Error(`the paid session's mandate is ${opened.state}`);
  const subscriptionId = request.opensMandate?.subscriptionId ?? '';
  const attempts = new Map<string, MandateCharge>();
  /**
   * Attempt `attempt` of period `period`'s renewal, at `value` (the period's amount unless given): the same request
   * each time it is asked for, as the service sends a recorded attempt again.
   */
  const charge = (period: number, attempt = 1, value = '10.00'): MandateCharge => {
    const idempotencyKey = chargeKey(subscriptionId, period, attempt);
    const recorded = attempts.get(idempotencyKey) ?? {
      mandate: opened.mandate,
      amount: { value, currency: run.currency },
      idempotencyKey,
      paymentId: newPaymentId(new Date()),
      subscriptionId,
      period,
      description: `Coffee club, period ${period}`,
    };
    attempts.set(idempotencyKey, recorded);
    return recorded;
  };
  return { psp: holding(psp), connection, request, status, mandate: opened.mandate, charge };
}

const statesOf = async (run: ConformanceRun, mandate: MandateRef) =>
  (await mandatesOf(run).charges(mandate)).map((charge) => charge.state);

forEveryPsp(
  (descriptor, run) => {
    scenario(
      descriptor,
      'opens a mandate only once the buyer pays a subscription’s session, naming the connection',
      'holds_mandates',
      async () => {
        const { psp, connection } = await run().adapter();
        const session = await psp.createSession(subscriptionRequest(run(), connection));
        const unpaid = await holding(psp).mandateOf({ id: session.id, paymentReference: null });
        expect(unpaid.state).not.toBe('ready');

        await run().fake.pay(session, BUYER);
        // Captured first where the PSP takes the money only then: its mandate may come with the capture.
        const status = await settledStatus(psp, session);
        const paid = await holding(psp).mandateOf({
          id: session.id,
          paymentReference: status.paymentReference,
        });

        expect(paid).toMatchObject({
          state: 'ready',
          mandate: { connection_id: connection.id, provider: descriptor.id },
        });
        if (paid.state !== 'ready') return;
        expect(paid.mandate.reference).toEqual(expect.any(String));
        expect(paid.mandate.customer).toEqual(expect.any(String));
        expect(await mandatesOf(run()).charges(paid.mandate)).toEqual([]);
      },
    );

    scenario(
      descriptor,
      'charges the mandate off-session at each period’s amount, one charge per key',
      'holds_mandates',
      async () => {
        const { psp, mandate, charge } = await subscribed(run());

        const second = await psp.chargeMandate(charge(2));
        const third = await psp.chargeMandate(charge(3, 1, '12.50'));

        expect(second).toMatchObject({ state: 'succeeded', reference: expect.any(String) });
        expect(third).toMatchObject({ state: 'succeeded', reference: expect.any(String) });
        if (second.state !== 'succeeded' || third.state !== 'succeeded') return;
        expect(third.reference).not.toBe(second.reference);
        expectSameMoney(second.amount, charge(2).amount);
        expectSameMoney(third.amount, charge(3, 1, '12.50').amount);
        const charges = await mandatesOf(run()).charges(mandate);
        expect(charges.map((made) => made.state)).toEqual(['succeeded', 'succeeded']);
        expectSameMoney(charges[1]?.amount, { value: '12.50', currency: run().currency });
        expect((await psp.retrieveCharge(second.reference)).state).toBe('succeeded');
      },
    );

    scenario(
      descriptor,
      'answers an attempt sent again under its key with the first answer, charging nothing more',
      'holds_mandates',
      async () => {
        const { psp, mandate, charge } = await subscribed(run());
        const attempt = charge(2);

        const first = await psp.chargeMandate(attempt);
        const again = await psp.chargeMandate(attempt);

        expect(first.state).toBe('succeeded');
        expect(again).toEqual(first);
        expect(await statesOf(run(), mandate)).toEqual(['succeeded']);
      },
    );

    const declines: [string, 'soft_decline' | 'hard_decline' | 'authentication_required', DeclineClass][] = [
      ['a soft decline (retried later)', 'soft_decline', 'soft'],
      ['a hard decline (never retried)', 'hard_decline', 'hard'],
      ['an issuer asking for the buyer', 'authentication_required', 'authentication_required'],
    ];
    for (const [name, outcome, expected] of declines) {
      scenario(
        descriptor,
        `answers ${name} as a failed charge of class ${expected}, and the same again under its key`,
        'holds_mandates',
        async () => {
          const { psp, mandate, charge } = await subscribed(run());
          mandatesOf(run()).nextCharge(outcome);

          const declined = await psp.chargeMandate(charge(2));
          const again = await psp.chargeMandate(charge(2));

          expect(declined).toMatchObject({ state: 'failed', decline: { class: expected } });
          if (declined.state !== 'failed') return;
          expect(declined.decline.code.startsWith(`${descriptor.id}:`)).toBe(true);
          expect(declined.decline.message).not.toBe('');
          // Declines are answers the PSP keeps under the key: the issuer is not asked again.
          expect(again).toEqual(declined);
          expect(await statesOf(run(), mandate)).toEqual(['failed']);
        },
      );
    }

    scenario(
      descriptor,
      'keeps a softly declined mandate usable: the next attempt, under its own key, is charged',
      'holds_mandates',
      async () => {
        const { psp, mandate, charge } = await subscribed(run());
        mandatesOf(run()).nextCharge('soft_decline');

        const declined = await psp.chargeMandate(charge(2, 1));
        const retried = await psp.chargeMandate(charge(2, 2));

        expect(declined).toMatchObject({ state: 'failed', mandateUsable: true });
        expect(retried.state).toBe('succeeded');
        expect(await statesOf(run(), mandate)).toEqual(['failed', 'succeeded']);
      },
    );

    scenario(
      descriptor,
      'answers a charge on a revoked mandate as a hard decline of a mandate no longer usable, every time',
      'holds_mandates',
      async () => {
        const { psp, charge } = await subscribed(run());
        mandatesOf(run()).nextCharge('revoked');

        const revoked = await psp.chargeMandate(charge(2, 1));
        const after = await psp.chargeMandate(charge(2, 2));

        for (const answer of [revoked, after]) {
          expect(answer).toMatchObject({ state: 'failed', mandateUsable: false, decline: { class: 'hard' } });
        }
      },
    );

    scenario(
      descriptor,
      'sets a trial’s mandate up without a charge, and charges it when the trial ends',
      'mandates_without_charge',
      async () => {
        const { psp, request, status, mandate, charge } = await subscribed(run(), true);

        expect(Number(request.amount.value)).toBe(0);
        expect(status.state).toBe('succeeded');
        // What the PSP says the session charged is what it was for, nothing: the service takes it as paid.
        expect(chargedAmountMismatch(request.amount, status.amount)).toBeUndefined();
        expect(await mandatesOf(run()).charges(mandate)).toEqual([]);
        expect((await psp.chargeMandate(charge(1))).state).toBe('succeeded');
      },
    );

    scenario(
      descriptor,
      'answers a bank debit pending, and reads its outcome back once the PSP settles it',
      'holds_mandates',
      async (context: TestContext) => {
        const { settleCharge } = mandatesOf(run());
        if (!settleCharge) context.skip(`${descriptor.id} answers every charge at once`);
        const { psp, mandate, charge } = await subscribed(run());
        const outcomes = ['succeeded', 'failed'] as const;

        for (const [index, outcome] of outcomes.entries()) {
          mandatesOf(run()).nextCharge('pending');
          const asked = await psp.chargeMandate(charge(2 + index));
          expect(asked).toMatchObject({ state: 'pending', reference: expect.any(String) });
          const reference = asked.state === 'pending' ? (asked.reference ?? '') : '';
          expect((await psp.retrieveCharge(reference)).state).toBe('pending');
          await settleCharge?.(reference, outcome);
          expect((await psp.retrieveCharge(reference)).state).toBe(outcome);
        }
        expect(await statesOf(run(), mandate)).toEqual(['succeeded', 'failed']);
      },
    );

    for (const kind of ['error', 'hang'] as const) {
      scenario(
        descriptor,
        kind === 'error'
          ? 'takes its 5xx to a charge as an outage, and charges once when the attempt is sent again'
          : 'takes no answer to a charge as an outage, and charges once when the attempt is sent again',
        'holds_mandates',
        async () => {
          const { psp, connection, mandate, charge } = await subscribed(run());
          const changes = run().fake.outage(kind);
          try {
            const { psp: down } = await run().adapter({ ...changes, id: connection.id });
            await expect(holding(down).chargeMandate(charge(2))).rejects.toBeInstanceOf(PspOutageError);
          } finally {
            run().fake.outage('none');
          }

          expect((await psp.chargeMandate(charge(2))).state).toBe('succeeded');
          expect(await statesOf(run(), mandate)).toEqual(['succeeded']);
        },
        timeoutFor(PSP_CALL_TIMEOUT_MS),
      );
    }
  },
  { concurrent: true },
);
