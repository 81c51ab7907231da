import type {
  Mandate,
  MollieClient,
  Payment,
  PaymentCreateParams,
  PaymentMethod as PaymentMethodName,
  SequenceType,
} from '@mollie/api-client';
import type { PspConnection } from '../../../domain/connection.ts';
import type { Decline, DeclineClass, MandateRef } from '../../../domain/mandates.ts';
import type { PaymentMethod } from '../../../domain/payment-methods.ts';
import {
  type HoldsMandates,
  type MandateCharge,
  type MandateChargeResult,
  type Psp,
  PspRefusalError,
  type SessionRequest,
} from '../../../ports/psp.ts';
import { messageOf, pspFailure, statusOf, translatedCall, withinPspBudget } from '../kit/calls.ts';
import { mollieAmount } from './amounts.ts';
import { mollieRenewalClass } from './declines.ts';
import type { mollie } from './descriptor.ts';

/**
 * Mollie's mandates (docs/subscriptions.md#mollie): a session that opens one is a `first` payment of a Mollie
 * Customer we create for it; once paid, the payment names the mandate (`mdt_…`) Mollie made, and each renewal is a
 * `recurring` payment on that customer and mandate, charged without the buyer. Mollie's own Subscriptions API is
 * not used: we keep the schedule, as for every PSP.
 */

/**
 * Our methods whose `first` payment at Mollie leaves a mandate, and the mandate's method: a card a `creditcard`
 * one; iDEAL, Bancontact and EPS a `directdebit` one; the wallet its own. Klarna, bank transfer, Apple Pay and the
 * rest leave none.
 */
const MANDATE_OF: Partial<Record<PaymentMethod, string>> = {
  card: 'creditcard',
  googlepay: 'creditcard',
  ideal: 'directdebit',
  bancontact: 'directdebit',
  eps: 'directdebit',
  paypal: 'paypal',
};

/** Whether a payment paid with `method` (in Mollie's words, as a payment names it) leaves a mandate. */
const leavesMandate = (descriptor: typeof mollie, method: string): boolean =>
  Object.keys(MANDATE_OF).some((ours) => descriptor.methods[ours as PaymentMethod] === method);

/** Mollie keeps no promise on how long it replays a key; an hour is what we rely on (docs/subscriptions.md#mollie). */
export const MOLLIE_KEY_WINDOW_MS = 3_600_000;

type FirstPayment = Pick<PaymentCreateParams, 'customerId' | 'sequenceType' | 'method' | 'description'>;

/**
 * The Mollie methods a session that opens a mandate may offer: the link's (all ours when it names none) that
 * leave a mandate; cards alone for a trial, as Mollie takes a first payment of nothing (which only sets up the
 * mandate) from cards only.
 */
function mandateMethods(
  descriptor: typeof mollie,
  methods: readonly PaymentMethod[] | null | undefined,
  withoutCharge: boolean,
): string[] {
  const named = methods ?? (Object.keys(descriptor.methods) as PaymentMethod[]);
  const leaving = named.filter((method) =>
    withoutCharge ? MANDATE_OF[method] === 'creditcard' : MANDATE_OF[method] !== undefined,
  );
  return [...new Set(leaving.map((method) => descriptor.methods[method] ?? ''))].filter(Boolean);
}

/**
 * What the payment's hosted page shows the buyer as the payment's description: what they agree to be charged
 * again. Mollie's page shows the description and says the buyer authorises later charges; ours has the full terms.
 */
function mandateTerms({ link, opensMandate }: Pick<SessionRequest, 'link' | 'opensMandate'>): string {
  const what = link.description || `Subscription ${link.id}`;
  const terms = opensMandate?.recurring;
  if (!opensMandate || !terms) return `${what}: new payment method for the subscription`.slice(0, 255);
  const { value, currency } = opensMandate.periodAmount;
  const every = terms.interval_count === 1 ? terms.interval : `${terms.interval_count} ${terms.interval}s`;
  const trial = terms.trial_days ? `, first charge after a ${terms.trial_days}-day free trial` : '';
  const cycles = terms.cycles ? `, ${terms.cycles} times in all` : '';
  const agreed = `${what}: ${currency} ${value} every ${every}${trial}${cycles}`;
  return `${agreed}; cancel any time through the seller`.slice(0, 255);
}

/**
 * What a session that opens a mandate adds to its payment: a new Mollie Customer (one per payment, so that the
 * mandate its payment leaves is the customer's only one), `sequenceType: first`, the methods that leave a mandate.
 * A link none of whose methods can (a trial without cards) is refused, so the checkout fails over.
 */
export async function firstPaymentOf(
  descriptor: typeof mollie,
  client: MollieClient,
  checkout: SessionRequest,
  call: <T>(request: () => Promise<T>) => Promise<T>,
): Promise<FirstPayment | undefined> {
  const opens = checkout.opensMandate;
  if (!opens) return undefined;
  const methods = mandateMethods(descriptor, checkout.paymentMethods, opens.withoutCharge);
  if (methods.length === 0) {
    throw new PspRefusalError(
      opens.withoutCharge
        ? 'Mollie refused the session: a trial sets up a mandate with a card only, which the link does not take.'
        : "Mollie refused the session: none of the link's methods leaves a mandate.",
    );
  }
  const customer = await call(() =>
    client.customers.create({
      metadata: { subscription_id: opens.subscriptionId },
      idempotencyKey: `${checkout.paymentId}.customer`,
    }),
  );
  return {
    customerId: customer.id,
    sequenceType: 'first' as SequenceType,
    method: methods as PaymentMethodName[],
    description: mandateTerms(checkout),
  };
}

/**
 * How each SEPA reason (`details.bankReasonCode`) of a failed direct debit is classed: funds (`AM04`) and an
 * unexplained refusal (`MS03`) may pass later; a revoked or invalid mandate, a closed or blocked account, a
 * debtor's refusal never will. A code not listed is retried (the schedule caps it).
 */
const BANK_DECLINES: Readonly<Record<string, DeclineClass>> = {
  AM04: 'soft',
  MS03: 'soft',
  MD01: 'hard',
  MD07: 'hard',
  MS02: 'hard',
  AC01: 'hard',
  AC04: 'hard',
  AC06: 'hard',
  AG01: 'hard',
  AG02: 'hard',
  SL01: 'hard',
};

type FailureDetails = {
  failureReason?: string;
  failureMessage?: string;
  bankReasonCode?: string;
  bankReason?: string;
};

/** A failed payment's decline, from its card reason or its bank's. */
function declineOf(payment: Payment): Decline {
  const details = (payment.details ?? {}) as FailureDetails;
  if (details.bankReasonCode) {
    return {
      class: BANK_DECLINES[details.bankReasonCode] ?? 'soft',
      code: `mollie:${details.bankReasonCode}`,
      message: details.bankReason || `The bank refused the direct debit (${details.bankReasonCode}).`,
    };
  }
  const reason = details.failureReason ?? payment.status;
  return {
    class: mollieRenewalClass(reason),
    code: `mollie:${reason}`,
    message: details.failureMessage || `The Mollie payment ${payment.status}.`,
  };
}

/** A recurring payment's status as a charge's result. */
function resultOf(payment: Payment): MandateChargeResult {
  if (payment.status === 'paid') {
    return {
      state: 'succeeded',
      reference: payment.id,
      amount: { value: payment.amount.value, currency: payment.amount.currency },
    };
  }
  if (payment.status === 'open' || payment.status === 'pending' || payment.status === 'authorized') {
    return { state: 'pending', reference: payment.id };
  }
  const decline = declineOf(payment);
  return { state: 'failed', reference: payment.id, decline, mandateUsable: decline.class !== 'hard' };
}

/**
 * Mollie refuses a recurring payment it will not make with a 422 ("No suitable mandates found for customer": the
 * mandate was revoked or expired; "The card was not found"), and is reported to answer 404 for a customer gone and
 * 410 for a mandate gone, which its document does not list: a hard decline, as retrying cannot change it. Any other
 * answer (refused credentials, 409 for a key still in progress, 429, 5xx, none) says nothing of the charge
 * (`undefined`): the same request is sent again.
 */
const REFUSING_CHARGE = new Set([404, 410, 422]);

function refusedCharge(error: unknown): MandateChargeResult | undefined {
  const status = statusOf(error);
  if (status === undefined || !REFUSING_CHARGE.has(status)) return undefined;
  const reason = messageOf(error);
  return {
    state: 'failed',
    reference: null,
    decline: {
      class: 'hard',
      code: /mandate/i.test(reason) ? 'mollie:no_suitable_mandate' : `mollie:refused_${status}`,
      message: `Mollie refused the charge: ${reason}`,
    },
    mandateUsable: false,
  };
}

/** A wallet's mandate is shown by the wallet's name. */
const WALLET_NAMES: Readonly<Record<string, string>> = { paypal: 'PayPal' };

/** For people: "Mastercard •••• 6787", "SEPA Direct Debit •••• 4321", the wallet; never more than the last four. */
function displayOf(mandate: Mandate): string | null {
  const details = (mandate.details ?? {}) as {
    cardLabel?: string | null;
    cardNumber?: string | null;
    consumerAccount?: string | null;
  };
  if (mandate.method === 'creditcard' && details.cardNumber) {
    return `${details.cardLabel ?? 'Card'} •••• ${details.cardNumber.slice(-4)}`;
  }
  if (mandate.method === 'directdebit' && details.consumerAccount) {
    return `SEPA Direct Debit •••• ${details.consumerAccount.slice(-4)}`;
  }
  return WALLET_NAMES[mandate.method] ?? null;
}

/** `HoldsMandates` at one Mollie connection, through the official `@mollie/api-client`. */
export class MollieMandates implements HoldsMandates {
  readonly chargeIdempotencyWindowMs = MOLLIE_KEY_WINDOW_MS;
  private readonly descriptor: typeof mollie;
  private readonly client: MollieClient;
  private readonly connection: PspConnection;
  /** Mollie's document requires a `redirectUrl` even of a recurring payment, where nobody is redirected. */
  private readonly redirectUrl: string;

  constructor(
    descriptor: typeof mollie,
    client: MollieClient,
    connection: PspConnection,
    redirectUrl: string,
  ) {
    this.descriptor = descriptor;
    this.client = client;
    this.connection = connection;
    this.redirectUrl = redirectUrl;
  }

  /** A read: any failure is an outage (asked again later); 401/403 refused credentials. */
  private read<T>(request: () => Promise<T>): Promise<T> {
    return translatedCall(this.descriptor.id, request, (error) =>
      pspFailure(error, 'lookup', { psp: 'Mollie', status: statusOf(error), reason: messageOf(error) }),
    );
  }

  /**
   * The first payment's mandate, taken only once the payment is paid (a mandate left by a canceled first payment
   * is no consent). A paid payment names its mandate (`mandateId`); should it not yet, the customer's newest
   * mandate is its (each customer has one first payment).
   */
  async mandateOf(session: { id: string }) {
    const payment = await this.read(() => this.client.payments.get(session.id));
    if (payment.mode !== this.connection.mode || !payment.customerId || payment.sequenceType !== 'first') {
      return { state: 'none' as const, reason: 'Not a first payment of a Mollie customer.' };
    }
    if (payment.status !== 'paid') {
      return ['open', 'pending', 'authorized'].includes(payment.status)
        ? { state: 'pending' as const }
        : { state: 'none' as const, reason: `The first payment is ${payment.status}.` };
    }
    const mandate = await this.mandateOfPayment(payment, payment.customerId);
    if (!mandate) {
      return leavesMandate(this.descriptor, String(payment.method))
        ? { state: 'pending' as const }
        : { state: 'none' as const, reason: `A ${payment.method} payment leaves no mandate.` };
    }
    if (mandate.status === 'invalid') return { state: 'none' as const, reason: 'The mandate is invalid.' };
    return { state: 'ready' as const, mandate: this.refOf(mandate, payment.customerId) };
  }

  private async mandateOfPayment(payment: Payment, customerId: string): Promise<Mandate | undefined> {
    if (payment.mandateId) {
      const mandateId = payment.mandateId;
      return this.read(() => this.client.customerMandates.get(mandateId, { customerId }));
    }
    const page = await this.read(() => this.client.customerMandates.page({ customerId }));
    return [...page].sort((a, b) => b.createdAt.localeCompare(a.createdAt))[0];
  }

  private refOf(mandate: Mandate, customerId: string): MandateRef {
    return {
      connection_id: this.connection.id,
      provider: this.descriptor.id,
      customer: customerId,
      reference: mandate.id,
      method: mandate.method,
      display: displayOf(mandate),
    };
  }

  /**
   * A `recurring` payment naming the mandate (without `mandateId` Mollie would pick any valid mandate of the
   * customer), under the attempt's key: Mollie answers a repeated key with its first answer, a failed payment too.
   * Its `metadata.payment_id` is ours, so the payment can be found by it in the customer's payments.
   */
  async chargeMandate(charge: MandateCharge): Promise<MandateChargeResult> {
    const { mandate } = charge;
    let payment: Payment;
    try {
      payment = await withinPspBudget(this.descriptor.id, () =>
        this.client.payments.create({
          amount: mollieAmount(charge.amount),
          description: charge.description.slice(0, 255),
          redirectUrl: this.redirectUrl,
          customerId: mandate.customer,
          mandateId: mandate.reference,
          sequenceType: 'recurring' as SequenceType,
          metadata: {
            payment_id: charge.paymentId,
            subscription_id: charge.subscriptionId,
            period: String(charge.period),
          },
          idempotencyKey: charge.idempotencyKey,
        }),
      );
    } catch (error) {
      const refused = refusedCharge(error);
      if (refused) return refused;
      throw pspFailure(error, 'lookup', { psp: 'Mollie', status: statusOf(error), reason: messageOf(error) });
    }
    return resultOf(payment);
  }

  async retrieveCharge(reference: string): Promise<MandateChargeResult> {
    return resultOf(await this.read(() => this.client.payments.get(reference)));
  }
}

/** The Mollie adapter with its mandates: the methods of `HoldsMandates` beside the core `Psp`'s. */
export function withMollieMandates<T extends Psp>(psp: T, mandates: MollieMandates): T & HoldsMandates {
  return Object.assign(psp, {
    chargeIdempotencyWindowMs: mandates.chargeIdempotencyWindowMs,
    mandateOf: mandates.mandateOf.bind(mandates),
    chargeMandate: mandates.chargeMandate.bind(mandates),
    retrieveCharge: mandates.retrieveCharge.bind(mandates),
  });
}
