import type { PspConnection } from '../domain/connection.ts';
import { InvalidStateError, NotFoundError, PspUnavailableError, ServiceError } from '../domain/errors.ts';
import type { Decline } from '../domain/mandates.ts';
import { toMinorUnits } from '../domain/money.ts';
import { newPaymentId, type Payment, toPaymentResource } from '../domain/payment.ts';
import { classified, type PaymentFailure } from '../domain/payment-failure.ts';
import type { Principal } from '../domain/principal.ts';
import {
  type Charging,
  chargeKey,
  type DueStep,
  dueStep,
  isDue,
  type Subscription,
} from '../domain/subscription.ts';
import type { CollectionSettings } from '../domain/subscription-schedule.ts';
import {
  canceledAtPeriodEnd,
  chargeDeclined,
  chargePending,
  chargeStarted,
  chargeSucceeded,
  ended,
  gaveUp,
  needsUpdateLink,
} from '../domain/subscription-transitions.ts';
import { logger } from '../logger.ts';
import { putMetrics } from '../metrics.ts';
import {
  canHoldMandates,
  type HoldsMandates,
  type MandateCharge,
  type MandateChargeResult,
  type Psp,
  PspOutageError,
  PspRefusalError,
} from '../ports/psp.ts';
import { applyChange, getSubscription } from './subscription-changes.ts';
import {
  cancelUpdateLink,
  closeUpdateLinkOf,
  type SubscriptionEndDependencies,
} from './subscription-endings.ts';
import { type UpdateLinkDependencies, updateLinkFor } from './subscription-update-links.ts';

/**
 * Charging subscriptions when they are due (docs/subscriptions.md#charging-once): the sweeper over the due lists,
 * and a test clock's `advance`. One attempt is sent at a time and never twice under different keys:
 * 1. the attempt (`Charging`: period, attempt, our payment id, amount) is written on the subscription, on condition
 *    of the version the decision read; two sweepers meet at this write, and the loser settles the winner's attempt;
 * 2. the PSP is asked under the attempt's key, `<subscription>.<period>.<attempt>`;
 * 3. its answer is recorded: the renewal's payment (in the books), then the subscription's change with its events.
 * Until 3 is done the subscription stays due with its attempt, so a crash, a lost answer or a retried run sends the
 * same request under the same key again, which the PSP answers as it answered the first. A new attempt (a retry)
 * is written only once the previous one was recorded declined.
 */

export type ChargeDependencies = SubscriptionEndDependencies &
  UpdateLinkDependencies & {
    psps: {
      connection(id: string): Promise<PspConnection | undefined>;
      adapter(connection: PspConnection): Promise<Psp>;
    };
    /** The account's retry days and what follows them (`GET /v1/account-settings`). */
    collection(account: string, mode: Principal['mode']): Promise<CollectionSettings>;
  };

/** Steps one run takes on one subscription at most: a charge and its settlement, a give-up, an end. */
const MAX_STEPS = 8;
/** How long a charge the PSP answered `pending` waits before it is asked about again. */
export const PENDING_CHARGE_CHECK_MS = 60 * 60_000;

/**
 * Runs what is due on a subscription at `at`, one step after another while the next is due too (a declined last
 * retry gives up at once). Throws when the PSP could not be asked or gave no answer: the attempt stays on the
 * subscription, due, and the next run sends it again.
 */
export async function runDue(
  deps: ChargeDependencies,
  ref: { id: string; mode: Principal['mode'] },
  at: Date,
): Promise<Subscription | undefined> {
  // The attempts this run wrote and has not sent yet: the only ones known never to have reached the PSP.
  const unsent = new Set<string>();
  for (let steps = 0; steps < MAX_STEPS; steps++) {
    const subscription = await deps.subscriptions.get(ref.id, ref.mode);
    if (!subscription || !isDue(subscription, at)) return subscription;
    const step = dueStep(subscription);
    if (step.kind === 'none') return subscription;
    if (!(await takeStep(deps, subscription, step, { at, unsent }))) {
      return deps.subscriptions.get(ref.id, ref.mode);
    }
  }
  return deps.subscriptions.get(ref.id, ref.mode);
}

/** One step; false when the run must stop here (the outcome of an attempt is unknown past the PSP's key window). */
async function takeStep(
  deps: ChargeDependencies,
  subscription: Subscription,
  step: Exclude<DueStep, { kind: 'none' }>,
  run: { at: Date; unsent: Set<string> },
): Promise<boolean> {
  const ref = { id: subscription.id, mode: subscription.mode };
  switch (step.kind) {
    case 'charge': {
      const written = await startAttempt(deps, subscription, step, run.at);
      if (written) run.unsent.add(written);
      return true;
    }
    case 'settle': {
      const neverSent = run.unsent.delete(step.charging.payment_id);
      return settle(deps, subscription, step.charging, neverSent);
    }
    case 'give_up':
      await giveUp(deps, subscription);
      return true;
    case 'cancel':
      await applyChange(deps, ref, (current, now) => canceledAtPeriodEnd(current, now));
      return true;
    case 'end':
      await applyChange(deps, ref, (current, now) => ended(current, now));
      return true;
    case 'close_update_link':
      // Left open (its PSP cannot end the session yet): still due, tried again by the next run.
      return (await closeUpdateLinkOf(deps, subscription)).due_at === null;
  }
}

/**
 * Writes the attempt on the subscription, unless a concurrent run wrote one first (the next step settles it).
 * Answers the payment id of the attempt it wrote.
 */
async function startAttempt(
  deps: ChargeDependencies,
  subscription: Subscription,
  step: Extract<DueStep, { kind: 'charge' }>,
  at: Date,
): Promise<string | undefined> {
  const now = deps.now();
  const charging: Charging = {
    period: step.period,
    attempt: step.attempt,
    payment_id: newPaymentId(now),
    amount: step.amount,
    started_at: now.toISOString(),
    reference: null,
  };
  const { changed } = await applyChange(deps, subscription, (current, changedAt) => {
    const again = dueStep(current);
    const same = again.kind === 'charge' && again.period === step.period && again.attempt === step.attempt;
    return same && isDue(current, at) ? chargeStarted(current, charging, changedAt) : undefined;
  });
  return changed ? charging.payment_id : undefined;
}

/** The PSP adapter that holds the subscription's mandate, or undefined when its connection is gone. */
async function mandateHolder(
  deps: ChargeDependencies,
  subscription: Subscription,
): Promise<(Psp & HoldsMandates) | undefined> {
  const connection = await deps.psps.connection(subscription.mandate.connection_id);
  if (!connection) return undefined;
  const psp = await deps.psps.adapter(connection);
  return canHoldMandates(psp) ? psp : undefined;
}

/**
 * Sends the attempt (again, under its key) or asks about a pending one, and records the answer. A connection removed
 * since, or no longer holding mandates, declines an attempt it was never sent (`neverSent`: written by this run, not
 * sent yet; hard, the mandate is unusable); one it may have been sent, whose answer may have been lost, stays
 * unknown.
 */
async function settle(
  deps: ChargeDependencies,
  subscription: Subscription,
  charging: Charging,
  neverSent: boolean,
): Promise<boolean> {
  const psp = await mandateHolder(deps, subscription);
  if (!psp) {
    if (!neverSent) return unknownOutcome(subscription, charging, 'its connection is gone');
    await record(deps, subscription, charging, CONNECTION_GONE);
    return true;
  }
  const { reference } = charging;
  if (reference !== null) {
    await record(deps, subscription, charging, await askMandatePsp(() => psp.retrieveCharge(reference)));
    return true;
  }
  const sentFor = deps.now().getTime() - Date.parse(charging.started_at);
  if (sentFor > psp.chargeIdempotencyWindowMs) {
    return unknownOutcome(subscription, charging, "its PSP's idempotency window has passed");
  }
  const answer = await askMandatePsp(() =>
    chargeOrRefusal(psp, {
      mandate: subscription.mandate,
      amount: charging.amount,
      idempotencyKey: chargeKey(subscription.id, charging.period, charging.attempt),
      paymentId: charging.payment_id,
      subscriptionId: subscription.id,
      period: charging.period,
      description: `${subscription.description ?? 'Subscription'} (period ${charging.period})`,
    }),
  );
  await record(deps, subscription, charging, answer);
  return true;
}

/**
 * A call to the mandate's PSP. What the PSP did not answer (an outage, a timeout, an answer we cannot read) is
 * `psp_unavailable`: a 503 with Retry-After to a test clock, a run the sweeper leaves for the next; the attempt
 * stays on the subscription, due, and is sent again under its key (docs/subscriptions.md#charging-once).
 */
async function askMandatePsp<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof ServiceError) throw error;
    throw new PspUnavailableError(error);
  }
}

/**
 * A charge its PSP refused as a request (an amount under its minimum after a `PATCH` of the subscription's amount,
 * a parameter it will never take): nothing was charged, and the same request would be refused at every run, so it
 * is a hard decline, whose message is the PSP's reason, and the subscription goes past due with an update link
 * instead of staying due for ever (docs/subscriptions.md#retries). The mandate itself is not in question.
 */
async function chargeOrRefusal(psp: HoldsMandates, charge: MandateCharge): Promise<MandateChargeResult> {
  try {
    return await psp.chargeMandate(charge);
  } catch (error) {
    if (!(error instanceof PspRefusalError)) throw error;
    return {
      state: 'failed',
      reference: null,
      decline: { class: 'hard', code: 'charge_refused', message: error.message },
      mandateUsable: true,
    };
  }
}

const CONNECTION_GONE: MandateChargeResult = {
  state: 'failed',
  reference: null,
  decline: {
    class: 'hard',
    code: 'connection_removed',
    message: "The PSP connection that holds the subscription's mandate was removed.",
  },
  mandateUsable: false,
};

/**
 * An attempt whose outcome nobody can tell any more: resending its key could charge again, and not resending may
 * leave a charge unrecorded. It is left on the subscription, reported, for an operator to settle at the PSP.
 */
function unknownOutcome(subscription: Subscription, charging: Charging, why: string): false {
  putMetrics({ RenewalsUnknown: 1 });
  logger.error(`A renewal's outcome is unknown and it is not sent again: ${why}`, {
    subscription_id: subscription.id,
    payment_id: charging.payment_id,
    connection_id: subscription.mandate.connection_id,
  });
  return false;
}

/** A renewal's payment, settled as the PSP answered. */
function renewalPayment(
  subscription: Subscription,
  charging: Charging,
  answer: Exclude<MandateChargeResult, { state: 'pending' }>,
  now: Date,
): Payment {
  const failed = answer.state === 'failed';
  return {
    id: charging.payment_id,
    link_id: subscription.link_id,
    account: subscription.account,
    mode: subscription.mode,
    connection_id: subscription.mandate.connection_id,
    provider: subscription.mandate.provider,
    status: failed ? 'failed' : 'succeeded',
    amount: charging.amount,
    provider_reference: answer.reference,
    failure: failed ? renewalFailure(answer.decline) : null,
    ...(failed ? { decline: { class: answer.decline.class, code: answer.decline.code } } : {}),
    session_id: null,
    session_expires_at: null,
    next_check_at: null,
    checks: 0,
    subscription_id: subscription.id,
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
    version: 1,
  };
}

/** Records the PSP's answer: the payment first (in the books), then the subscription's change and its events. */
async function record(
  deps: ChargeDependencies,
  subscription: Subscription,
  charging: Charging,
  answer: MandateChargeResult,
): Promise<void> {
  const ref = { id: subscription.id, mode: subscription.mode };
  if (answer.state === 'pending') {
    await applyChange(deps, ref, (current, now) =>
      chargePending(current, charging, answer.reference, PENDING_CHARGE_CHECK_MS, now),
    );
    return;
  }
  if (answer.state === 'succeeded' && !sameAmount(answer.amount, charging.amount)) {
    putMetrics({ PaymentAmountMismatches: 1 }, { provider: subscription.mandate.provider });
    // Left due, as an answer we cannot take: a test clock is answered 502, and the alarm tells the operator.
    throw new PspUnavailableError(
      new PspOutageError(
        `The PSP reported renewal ${charging.payment_id} at ${answer.amount.value} ${answer.amount.currency}, not ${charging.amount.value} ${charging.amount.currency}.`,
      ),
    );
  }
  const payment = renewalPayment(subscription, charging, answer, deps.now());
  await deps.subscriptions.saveRenewal(payment);
  const resource = toPaymentResource(payment, { amount: charging.amount });
  if (answer.state === 'succeeded') {
    putMetrics({ RenewalsSucceeded: 1 }, { provider: subscription.mandate.provider });
    await applyChange(deps, ref, (current, now) => chargeSucceeded(current, charging, resource, now));
    return;
  }
  putMetrics({ RenewalsDeclined: 1 }, { class: answer.decline.class });
  await declined(deps, subscription, charging, answer.decline, resource);
}

const sameAmount = (a: { value: string; currency: string }, b: { value: string; currency: string }) =>
  a.currency === b.currency && toMinorUnits(a) === toMinorUnits(b);

/** A declined attempt: the period is collected, with its update link when the decline needs one. */
async function declined(
  deps: ChargeDependencies,
  subscription: Subscription,
  charging: Charging,
  decline: Decline,
  payment: ReturnType<typeof toPaymentResource>,
): Promise<void> {
  const settings = await deps.collection(subscription.account, subscription.mode);
  const earlier = subscription.dunning?.period === charging.period ? subscription.dunning : null;
  const link = needsUpdateLink(
    { class: decline.class, update_link_id: earlier?.update_link_id ?? null },
    settings,
  )
    ? await updateLinkFor(deps, subscription, charging, settings)
    : null;
  const after = await applyChange(deps, subscription, (current, now) =>
    chargeDeclined(current, charging, decline, payment, { settings, updateLinkId: link, now }),
  );
  // Made for a subscription that was canceled meanwhile (at the period's end, or now): nobody is to pay it.
  if (link && after.subscription.dunning?.update_link_id !== link)
    await cancelUpdateLink(deps, subscription, link);
}

/**
 * The period's collection is over: canceled (its update link then canceled), or left past due with an update link,
 * as the account says.
 */
async function giveUp(deps: ChargeDependencies, subscription: Subscription): Promise<void> {
  const settings = await deps.collection(subscription.account, subscription.mode);
  const { dunning } = subscription;
  const link =
    dunning && needsUpdateLink(dunning, settings, true)
      ? await updateLinkFor(deps, subscription, { period: dunning.period, amount: dunning.amount }, settings)
      : null;
  const after = await applyChange(deps, subscription, (current, now) => gaveUp(current, settings, link, now));
  await closeUpdateLinkOf(deps, after.subscription);
}

/**
 * The sweeper: runs every subscription due at `now` (the due lists, every shard), `concurrency` at a time, taking
 * no new one once `hasTimeLeft` says no; a subscription that fails is logged and stays due for the next run.
 */
export async function sweepSubscriptions(
  deps: ChargeDependencies,
  options: { limit: number; concurrency: number; hasTimeLeft?: () => boolean },
): Promise<{ ran: number; failed: number }> {
  const due = await deps.subscriptions.due(deps.now(), options.limit);
  let ran = 0;
  let failed = 0;
  let next = 0;
  const worker = async () => {
    while (next < due.length && (options.hasTimeLeft?.() ?? true)) {
      const ref = due[next++] as (typeof due)[number];
      try {
        await runDue(deps, ref, deps.now());
        ran++;
      } catch (error) {
        failed++;
        logger.warn('Subscription left due for the next run', { subscription_id: ref.id, error });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.concurrency, due.length) }, worker));
  return { ran, failed };
}

/**
 * A test clock for one subscription (`POST /v1/test-helpers/subscriptions/{id}/advance`): moves it to what is next
 * due (a renewal, a retry, its end) and runs it at once, as the sweeper would then. Test mode only: a live
 * subscription is not found. One with nothing scheduled is `invalid_state`.
 */
export async function advanceSubscription(
  deps: ChargeDependencies,
  principal: Principal,
  id: string,
): Promise<Subscription> {
  if (principal.mode !== 'test') throw new NotFoundError(`No subscription ${id}.`);
  const subscription = await getSubscription(deps, principal, id);
  if (subscription.due_at === null) {
    throw new InvalidStateError(`A ${subscription.status} subscription has nothing scheduled to advance to.`);
  }
  const at = new Date(Math.max(Date.parse(subscription.due_at), deps.now().getTime()));
  return (await runDue(deps, subscription, at)) ?? subscription;
}

/**
 * A declined renewal's failure: the class its PSP's decline table gave (docs/subscriptions.md#retries), which is
 * what the renewal's retries follow; the decline itself is the payment's `decline`.
 */
function renewalFailure(decline: Decline): PaymentFailure {
  if (decline.class === 'authentication_required')
    return classified({ code: 'authentication_required', message: decline.message });
  return { code: 'declined', class: decline.class, message: decline.message };
}
