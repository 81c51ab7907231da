import type { PaymentBuyer } from './buyer.ts';
import type { Provider } from './connection.ts';
import type { CustomFieldAnswer } from './custom-fields.ts';
import { endAfterDeclinedAttempt, stillPendingWith } from './declined-attempts.ts';
import { isId, newId, timeOrderedId } from './ids.ts';
import type { DeclineClass } from './mandates.ts';
import type { Amount } from './money.ts';
import { classified, type PaymentFailure, type ReportedFailure } from './payment-failure.ts';
import { type PaymentFee, type PaymentMoney, paymentMoney } from './payment-money.ts';
import type { Mode } from './principal.ts';
import type { RoutingDecision } from './routing-decision.ts';

/**
 * A payment: one attempt to pay a link through one connection (docs/orchestration.md#payments). Stored beside
 * its link; every change is a transition written conditionally on `version`, like the link's.
 */
export const PAYMENT_STATES = ['pending', 'succeeded', 'failed', 'canceled', 'expired'] as const;
export type PaymentState = (typeof PAYMENT_STATES)[number];

export {
  FAILURE_CLASSES,
  FAILURE_CODES,
  type FailureClass,
  type PaymentFailure,
  type PaymentFailureCode,
  type ReportedFailure,
} from './payment-failure.ts';

/**
 * A new payment's id. A link that reads its payments by time (`payments_in_order`: reusable links since
 * 2026-11-28) gets ids that sort by creation (`timeOrderedId`), so its newest payments are read without the others
 * (docs/data-model.md#payments-in-creation-order); any other link's are random, 6 characters shorter, as before.
 */
export const newPaymentId = (at: Date, inOrder = true): string =>
  inOrder ? timeOrderedId('pay', at) : newId('pay');
export const isPaymentId = (id: string): boolean => isId('pay', id);

/**
 * The first attempt of the buyer cookie's chain `payment` is in (`Payment.first_attempt_id`): the attempt it
 * follows from, or itself when it follows none. An attempt opened after it in the same browser records this.
 */
export const firstAttemptOf = (payment: Pick<Payment, 'id' | 'first_attempt_id'>): string =>
  payment.first_attempt_id ?? payment.id;

/**
 * What a new attempt on `link` records as its `first_attempt_id`: on a reusable link, the first attempt of the chain
 * of the attempt the buyer cookie names (`buyerPayment`, among `payments`); nothing otherwise.
 */
export function firstAttemptFollowed(
  link: { reusable: boolean },
  payments: readonly Payment[],
  buyerPayment: string | undefined,
): string | undefined {
  const followed = link.reusable ? payments.find((payment) => payment.id === buyerPayment) : undefined;
  return followed && firstAttemptOf(followed);
}

export interface Payment {
  id: string;
  link_id: string;
  account: string;
  mode: Mode;
  connection_id: string;
  provider: Provider;
  status: PaymentState;
  /**
   * What the attempt charges: the amount its PSP session was created at (docs/orchestration.md#payments). Absent
   * on payments recorded before it was kept, which were all at their link's amount: read it with `paymentAmount`.
   */
  amount?: Amount;
  /** The PSP's own id of the payment once it has one (its payment's, charge's or transaction's id). */
  provider_reference: string | null;
  failure: PaymentFailure | null;
  /**
   * While pending: the decline of the buyer's last refused try on the session, when its PSP told it as it happened
   * and keeps the session payable (`PspSessionStatus.declinedAttempt`); the session's expiry then fails the payment
   * with it (`settle`). Absent: no try refused, or recorded before 2026-11-29.
   */
  declined_attempt?: PaymentFailure;
  /**
   * Pending past its session's end because its PSP said the buyer's money is under way (a bank debit:
   * `stillPending`, ./payment-checks.ts): its session still counts as open, since that money may yet pay the link.
   * Absent: not past its end, or recorded before 2026-11-29.
   */
  money_under_way?: true;
  /** The PSP session of the attempt, and until when it can be paid. */
  session_id: string | null;
  session_expires_at: string | null;
  /**
   * The PSP's hosted page of the session, so that a session that could not be ended can be shown again instead
   * of opening another (absent on payments recorded before it was kept).
   */
  session_url?: string | null;
  /** While pending: when the sweeper asks the PSP next; null once the payment has settled. */
  next_check_at: string | null;
  /** How many times the sweeper has asked. */
  checks: number;
  /**
   * Who opened the attempt (`clientKey`, functions/domain/session-budgets.ts): each client has its own budget of new
   * sessions (docs/security.md#checkout-sessions). Absent on failed openings and on payments recorded before it
   * was kept, which count only towards the link's budget.
   */
  opened_by?: string;
  /**
   * On a reusable link, an attempt that followed the one the buyer cookie named (docs/checkout.md#reusable-links):
   * the first attempt of that chain, which every later attempt in the same browser names too, so that the buyer's
   * erasure finds them all (docs/security.md#personal-data). Absent on the first attempt itself, on single-use
   * links (no cookie) and on payments recorded before it was kept. A payment id, no personal data: kept on erasure.
   */
  first_attempt_id?: string;
  /**
   * We ended its session before it was paid (`endedByUs`: replaced by another attempt, or the link was canceled
   * or expired): it holds no place in the link's budget of sessions, so nobody can fill that budget by having
   * sessions opened and replaced.
   */
  ended_unused?: true;
  /**
   * Opened as the one trial of a connection down for outages (functions/domain/connection-health.ts): its outcome
   * says whether the connection is back (`afterTrialOutcome`). Not shown in the API.
   */
  health_trial?: true;
  /**
   * At a PSP that takes the money only when we capture (functions/domain/deferred-capture.ts): `claimed` once a
   * capture of the approved attempt was decided, `released` once the attempt was ended unpaid and so must never
   * be captured. Whichever is written first wins (a conditional write); absent at other PSPs.
   */
  capture?: 'claimed' | 'released';
  /**
   * Why the attempt went to its connection, failed openings included (a failover's attempts each carry it); absent
   * on payments that no checkout decided (renewals) and on failed openings recorded before 2026-11-29 (issue 50).
   */
  routing?: RoutingDecision;
  /**
   * The buyer's own reference from the checkout URL (`?client_reference_id=`): buyer-supplied, unverified, and
   * personal data (docs/security.md#personal-data), erased with `buyer`.
   */
  client_reference_id?: string;
  /** What the buyer gave (their page or ours); `{erased_at}` once erased (functions/domain/personal-data.ts). */
  buyer?: PaymentBuyer;
  /** The buyer's answers to the link's `custom_fields` (docs/checkout.md#custom-fields); absent: none asked. */
  custom_fields?: CustomFieldAnswer[];
  /**
   * The quantity of each of the link's lines, in their order, as charged: on a link with an adjustable line
   * (docs/checkout.md#quantities); absent: the link's own quantities.
   */
  quantities?: number[];
  /** When the retention sweep next looks at the personal data of this settled payment (`retentionStep`). */
  retention_check_at?: string;
  /** Its fee and net (./payment-money.ts), recorded when it succeeded; absent: unknown, or it did not succeed. */
  fee?: PaymentFee;
  /**
   * What its succeeded refunds gave back, in minor units: a copy of the total its link's item keeps (where each
   * refund is bounded), written after each settlement with the link's `version` then, `refunded_version`, so that
   * copies landing out of order keep the latest (docs/data-model.md#payment-money). Absent: nothing refunded.
   */
  refunded_minor?: number;
  refunded_version?: number;
  /**
   * A renewal of a subscription (docs/subscriptions.md): its id, and the class and PSP code of a declined
   * renewal. Absent on every other payment. A renewal is stored beside its subscription, not its link.
   */
  subscription_id?: string;
  decline?: PaymentDecline;
  created_at: string;
  updated_at: string;
  version: number;
}

/** Why a renewal was declined (functions/domain/mandates.ts `Decline`, without its message, which `failure` has). */
export interface PaymentDecline {
  class: DeclineClass;
  code: string;
}

/** The merchant-facing payment (`GET /v1/payment-links/{id}/payments`), with its refunds and fee. */
export interface PaymentResource extends PaymentMoney {
  id: string;
  object: 'payment';
  connection_id: string;
  provider: Provider;
  status: PaymentState;
  amount: Amount;
  provider_reference: string | null;
  failure: PaymentFailure | null;
  /** Why the attempt went to its connection; null for payments no checkout decided and older ones (`Payment.routing`). */
  routing?: RoutingDecision | null;
  /**
   * The merchant's reference of the buyer, from the address the buyer opened (`?client_reference_id=`,
   * docs/api.md#buyer-references): buyer-supplied and unverified; null when the address carried none.
   */
  client_reference_id?: string | null;
  /**
   * What the buyer gave, on our page or the PSP's (docs/checkout.md#buyer-details): personal data, never logged;
   * null when nothing was asked or given.
   */
  buyer?: PaymentBuyer | null;
  /** The buyer's answers to the link's `custom_fields`; null when it asks none. */
  custom_fields?: CustomFieldAnswer[] | null;
  /** The quantity of each of the link's lines as charged; null when the buyer could not pick them. */
  quantities?: number[] | null;
  /** A subscription's renewal: the subscription, and why it was declined (absent on other payments). */
  subscription_id?: string;
  decline?: PaymentDecline;
  created_at: string;
  updated_at: string;
}

/**
 * The amount a payment charges (see `Payment.amount`): its own, or, for a payment recorded before payments kept
 * one, its link's, which was then the only amount a payment could be at.
 */
export function paymentAmount(payment: Pick<Payment, 'amount'>, link: { amount: Amount | null }): Amount {
  const amount = payment.amount ?? link.amount;
  // Only a range link has no amount, and every payment of one was recorded with its own.
  if (!amount) throw new Error('A payment without an amount on a link without one.');
  return amount;
}

export function toPaymentResource(payment: Payment, link: { amount: Amount | null }): PaymentResource {
  const amount = paymentAmount(payment, link);
  return {
    id: payment.id,
    object: 'payment',
    connection_id: payment.connection_id,
    provider: payment.provider,
    status: payment.status,
    amount,
    ...paymentMoney(amount, payment.refunded_minor ?? 0, payment.fee),
    provider_reference: payment.provider_reference,
    failure: payment.failure,
    routing: payment.routing ?? null,
    client_reference_id: payment.client_reference_id ?? null,
    buyer: payment.buyer ?? null,
    custom_fields: payment.custom_fields ?? null,
    quantities: payment.quantities ?? null,
    ...(payment.subscription_id === undefined ? {} : { subscription_id: payment.subscription_id }),
    ...(payment.decline === undefined ? {} : { decline: payment.decline }),
    created_at: payment.created_at,
    updated_at: payment.updated_at,
  };
}

/**
 * What the buyer gave us for a payment (docs/checkout.md#buyer-details): their reference from the checkout
 * address, their details, their answers and picked quantities; each only when there is one, so that a payment
 * event of a link that asks nothing is byte for byte what it was.
 */
export type BuyerInput = Partial<
  Pick<Payment, 'client_reference_id' | 'buyer' | 'custom_fields' | 'quantities'>
>;

export const buyerInputOf = (
  payment: {
    [field in keyof BuyerInput]?: BuyerInput[field] | null;
  },
): BuyerInput => ({
  ...(payment.client_reference_id ? { client_reference_id: payment.client_reference_id } : {}),
  ...(payment.buyer ? { buyer: payment.buyer } : {}),
  ...(payment.custom_fields ? { custom_fields: payment.custom_fields } : {}),
  ...(payment.quantities ? { quantities: payment.quantities } : {}),
});

/** A notification may be lost: a payment still pending this long after it started is asked about. */
export const FIRST_CHECK_AFTER_MS = 10 * 60_000;
/** The longest wait between two checks of one payment. */
export const MAX_CHECK_INTERVAL_MS = 6 * 3_600_000;

interface Attempt {
  id: string;
  link: { id: string; account: string; mode: Mode };
  connection: { id: string; provider: Provider };
  /** What the attempt charges (the session is created at it). */
  amount: Amount;
  /** Who opened it (`Payment.opened_by`). */
  openedBy?: string | undefined;
  /** The first attempt of the buyer's cookie chain it follows (`Payment.first_attempt_id`, `firstAttemptOf`). */
  firstAttemptId?: string | undefined;
  /** Why it went to this connection (`Payment.routing`). */
  routing?: RoutingDecision | undefined;
  /** The buyer's reference from the link's address (`Payment.client_reference_id`). */
  clientReferenceId?: string | undefined;
}

/** An attempt whose PSP session is open: pending until the PSP says otherwise. */
export function startedPayment(
  attempt: Attempt,
  session: { id: string; expires_at: string; url?: string | null },
  now: Date,
): Payment {
  return {
    ...base(attempt, now),
    status: 'pending',
    failure: null,
    session_id: session.id,
    session_expires_at: session.expires_at,
    session_url: session.url ?? null,
    next_check_at: new Date(now.getTime() + FIRST_CHECK_AFTER_MS).toISOString(),
  };
}

/** An attempt the connection could not open a session for: the failover that follows is the next attempt. */
export function unavailablePayment(attempt: Attempt, message: string, now: Date): Payment {
  return {
    ...base(attempt, now),
    status: 'failed',
    failure: classified({ code: 'psp_unavailable', message }),
    session_id: null,
    session_expires_at: null,
    next_check_at: null,
  };
}

function base(attempt: Attempt, now: Date) {
  return {
    id: attempt.id,
    link_id: attempt.link.id,
    account: attempt.link.account,
    mode: attempt.link.mode,
    connection_id: attempt.connection.id,
    provider: attempt.connection.provider,
    amount: attempt.amount,
    provider_reference: null,
    checks: 0,
    ...(attempt.openedBy === undefined ? {} : { opened_by: attempt.openedBy }),
    ...(attempt.firstAttemptId === undefined ? {} : { first_attempt_id: attempt.firstAttemptId }),
    ...(attempt.routing ? { routing: attempt.routing } : {}),
    ...(attempt.clientReferenceId === undefined ? {} : { client_reference_id: attempt.clientReferenceId }),
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
    version: 1,
  };
}

/** What the PSP says about the attempt (fetched, never taken from a notification body). */
export interface PaymentOutcome {
  state: PaymentState;
  failure: ReportedFailure | null;
  reference: string | null;
  /** A try the PSP refused on a session still payable (`PspSessionStatus.declinedAttempt`). */
  declinedAttempt?: ReportedFailure | undefined;
  /** Pending, the buyer's money under way at the PSP (`PspSessionStatus.paymentUnderWay`). */
  moneyUnderWay?: boolean | undefined;
}

/**
 * The payment after the PSP's answer, or `undefined` when nothing changes. A succeeded payment never changes
 * again; any other may still become succeeded (money moved: the truth wins, as for the link), or failed with
 * `amount_mismatch` (money moved, at another amount: the record says so, once). Pending says nothing new but a
 * refused try (`withDeclinedAttempt`), with which an expiry then fails it (`endAfterDeclinedAttempt`), or money
 * under way (`withMoneyUnderWay`), which keeps the payment pending past its session's end.
 */
export function settle(payment: Payment, outcome: PaymentOutcome, now: Date): Payment | undefined {
  if (payment.status === 'succeeded') return undefined;
  if (outcome.state === 'pending') return stillPendingWith(payment, outcome, now);
  const { declined_attempt, money_under_way: _settled, ...settling } = payment;
  const ending = endAfterDeclinedAttempt(outcome, outcome.declinedAttempt ?? declined_attempt);
  if (ending.failure?.code === 'amount_mismatch') {
    if (payment.failure?.code === 'amount_mismatch') return undefined;
  } else {
    if (payment.status === ending.state) return undefined;
    if (payment.status !== 'pending' && ending.state !== 'succeeded') return undefined;
  }
  return {
    ...settling,
    status: ending.state,
    failure: ending.state === 'succeeded' ? null : classified(ending.failure ?? defaultFailure(ending.state)),
    provider_reference: outcome.reference ?? payment.provider_reference,
    next_check_at: null,
    updated_at: now.toISOString(),
    version: payment.version + 1,
  };
}

function defaultFailure(state: PaymentState): ReportedFailure {
  if (state === 'expired') return { code: 'expired', message: 'The payment session expired.' };
  if (state === 'canceled') return { code: 'canceled', message: 'The payment was canceled.' };
  return { code: 'psp_error', message: 'The payment provider reported a failure.' };
}

/**
 * The PSP's reference of a succeeded payment that was confirmed without it (its page said paid; the notification
 * that alone carries the reference came later: docs/orchestration.md#a-success-before-its-reference).
 * `undefined` when there is nothing to add.
 */
export function withReference(payment: Payment, reference: string | null, now: Date): Payment | undefined {
  if (payment.status !== 'succeeded' || payment.provider_reference !== null || reference === null) {
    return undefined;
  }
  return {
    ...payment,
    provider_reference: reference,
    updated_at: now.toISOString(),
    version: payment.version + 1,
  };
}

/** The session was ended by us before another was opened (one open session per link). */
export function endedByUs(payment: Payment, now: Date): Payment | undefined {
  if (payment.status !== 'pending') return undefined;
  const ended = settle(
    payment,
    {
      state: 'canceled',
      failure: { code: 'canceled', message: 'Replaced by a new attempt.' },
      reference: null,
    },
    now,
  );
  return ended && { ...ended, ended_unused: true };
}
