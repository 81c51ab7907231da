import type { Order } from '@paypal/paypal-server-sdk';
import type { PspConnection } from '../../../domain/connection.ts';
import type { DeclineClass, MandateRef } from '../../../domain/mandates.ts';
import {
  type HoldsMandates,
  type MandateCharge,
  type MandateChargeResult,
  type OpensMandate,
  type Psp,
  type PspFailure,
  PspOutageError,
} from '../../../ports/psp.ts';
import { pspFailure, statusOf, translatedCall, withinPspBudget } from '../kit/calls.ts';
import { type PaypalClient, paypalIssue, paypalReason } from './client.ts';
import type { paypal } from './descriptor.ts';
import { paypalMoney, paypalValue } from './statuses.ts';

/**
 * PayPal's mandates (docs/subscriptions.md#paypal): the buyer's PayPal wallet, vaulted by the first period's order
 * (`payment_source.paypal.attributes.vault`, saved when we capture it) as a payment token under a PayPal customer.
 * A renewal is an order paid with that token (`vault_id`), captured by PayPal on creation. We do not use PayPal's
 * Subscriptions API: the schedule is ours. PayPal cannot vault without a purchase in the document we hold (its
 * setup-token conversion is missing there), so its descriptor does not declare `mandates_without_charge`.
 */

/** How PayPal classes a renewal's refusal: the `issue` of its 422 (create-order's list in its document). */
const DECLINE_CLASSES: Readonly<Record<string, DeclineClass>> = {
  INSTRUMENT_DECLINED: 'soft',
  TRANSACTION_REFUSED: 'soft',
  TRANSACTION_LIMIT_EXCEEDED: 'soft',
  MAX_NUMBER_OF_PAYMENT_ATTEMPTS_EXCEEDED: 'soft',
  PAYER_ACCOUNT_LOCKED_OR_CLOSED: 'hard',
  PAYER_ACCOUNT_RESTRICTED: 'hard',
  PAYER_CANNOT_PAY: 'hard',
  COMPLIANCE_VIOLATION: 'hard',
  DOMESTIC_TRANSACTION_REQUIRED: 'hard',
  MISMATCHED_VAULT_ID_TO_PAYMENT_SOURCE: 'hard',
  // The merchant's own PayPal settings refuse it: hard for this charge, while the buyer's wallet stays good.
  PAYEE_BLOCKED_TRANSACTION: 'hard',
  TRANSACTION_BLOCKED_BY_PAYEE: 'hard',
  TRANSACTION_RECEIVING_LIMIT_EXCEEDED: 'hard',
};

/** Hard refusals about the merchant's account, not the buyer's wallet: the token may be charged again. */
const PAYEE_SIDE = new Set([
  'PAYEE_BLOCKED_TRANSACTION',
  'TRANSACTION_BLOCKED_BY_PAYEE',
  'TRANSACTION_RECEIVING_LIMIT_EXCEEDED',
]);

/**
 * What the first period's order asks PayPal to vault: the wallet, for the merchant's later charges, with the terms
 * the buyer agrees to, which PayPal shows on its approval page and in their account's automatic payments (at most
 * 128 characters). `RECURRING_PREPAID`, not the SDK's `SUBSCRIPTION_PREPAID`, which PayPal's document refuses.
 */
export function vaultAttributes(descriptor: typeof paypal, opens: OpensMandate, description: string | null) {
  return {
    vault: {
      storeInVault: 'ON_SUCCESS',
      usageType: 'MERCHANT',
      customerType: 'CONSUMER',
      usagePattern: 'RECURRING_PREPAID',
      description: termsOf(descriptor, opens, description),
    },
  } as const;
}

function termsOf(descriptor: typeof paypal, opens: OpensMandate, description: string | null): string {
  const amount = `${paypalValue(descriptor, opens.periodAmount)} ${opens.periodAmount.currency}`;
  const recurring = opens.recurring;
  const count = recurring?.interval_count ?? 1;
  const every = recurring
    ? `every ${count === 1 ? recurring.interval : `${count} ${recurring.interval}s`}`
    : 'each period';
  const cycles = recurring?.cycles ? `, ${recurring.cycles} payments in all` : '';
  const terms = `: ${amount} ${every}${cycles}, until you cancel`;
  return `${(description || 'Subscription').slice(0, 128 - terms.length)}${terms}`;
}

/** The renewal order: paid with the vaulted token, our ids echoed (`invoice_id` is unique per attempt). */
const renewalRequest = (descriptor: typeof paypal, charge: MandateCharge) =>
  ({
    intent: 'CAPTURE',
    purchaseUnits: [
      {
        referenceId: 'default',
        customId: charge.subscriptionId,
        invoiceId: charge.paymentId,
        description: charge.description.slice(0, 127),
        amount: paypalMoney(descriptor, charge.amount),
      },
    ],
    paymentSource: { paypal: { vaultId: charge.mandate.reference } },
  }) as Parameters<PaypalClient['orders']['createOrder']>[0]['body'];

const declined = (
  reference: string | null,
  decline: { class: DeclineClass; code: string; message: string },
  mandateUsable = decline.class !== 'hard',
): MandateChargeResult => ({ state: 'failed', reference, decline, mandateUsable });

/**
 * A renewal order as PayPal states it: `COMPLETED` with its capture `COMPLETED` is paid (the amount is the
 * capture's), `PENDING` is under review, `DECLINED` or `FAILED` declined; `PAYER_ACTION_REQUIRED` asks the buyer
 * to be there. The order's id is the charge's reference: its capture notifications name it.
 */
export function renewalResult(order: Order): MandateChargeResult {
  const reference = order.id ?? null;
  const capture = order.purchaseUnits?.[0]?.payments?.captures?.[0];
  if (order.status === 'PAYER_ACTION_REQUIRED') {
    const message = 'PayPal asks the payer to approve this payment.';
    return declined(reference, {
      class: 'authentication_required',
      code: 'paypal:PAYER_ACTION_REQUIRED',
      message,
    });
  }
  if (order.status === 'VOIDED' || capture?.status === 'DECLINED' || capture?.status === 'FAILED') {
    const status = capture?.status ?? order.status;
    const message = `The PayPal renewal was ${status}.`;
    return declined(reference, { class: 'soft', code: `paypal:${status}`, message });
  }
  if (order.status === 'COMPLETED' && capture?.status === 'COMPLETED' && capture.amount && reference) {
    return {
      state: 'succeeded',
      reference,
      amount: { value: capture.amount.value, currency: capture.amount.currencyCode },
    };
  }
  return { state: 'pending', reference };
}

export class PaypalMandates implements HoldsMandates {
  /** PayPal keeps a `PayPal-Request-Id` of Orders v2 for 6 hours (its idempotency guide). */
  readonly chargeIdempotencyWindowMs = 6 * 3_600_000;
  private readonly descriptor: typeof paypal;
  private readonly client: PaypalClient;
  private readonly connection: PspConnection;

  constructor(descriptor: typeof paypal, client: PaypalClient, connection: PspConnection) {
    this.descriptor = descriptor;
    this.client = client;
    this.connection = connection;
  }

  private call<T>(request: () => Promise<{ result: T }>): Promise<T> {
    return translatedCall(
      this.descriptor.id,
      async () => (await request()).result,
      (error) => paypalLookupFailure(error),
    );
  }

  /**
   * The token the paid order vaulted, as the order shows it (one call: the session's notification has spent most
   * of its PSP calls). PayPal may vault after the capture (then `VAULT.PAYMENT-TOKEN.CREATED`): a vault the order
   * shows `CREATED` or `APPROVED` is asked of the vault itself, and is pending until the vault has it.
   */
  async mandateOf(session: { id: string }) {
    const order = await this.call(() => this.client.orders.getOrder({ id: session.id }));
    const wallet = order.paymentSource?.paypal;
    const vault = wallet?.attributes?.vault;
    if (!vault) return { state: 'none' as const, reason: 'PayPal vaulted nothing for this order.' };
    const vaultId = vault.id;
    const unfinished = vault.status === 'CREATED' || vault.status === 'APPROVED';
    const token = vaultId && unfinished ? await this.paymentToken(vaultId) : undefined;
    const customer = vault.customer?.id ?? token?.customer?.id;
    if (!vaultId || !customer || (unfinished && !token)) return { state: 'pending' as const };
    const mandate: MandateRef = {
      connection_id: this.connection.id,
      provider: this.descriptor.id,
      customer,
      reference: vaultId,
      method: 'paypal',
      display: wallet.emailAddress ? `PayPal (${wallet.emailAddress})` : 'PayPal',
    };
    return { state: 'ready' as const, mandate };
  }

  /** A payment token as the vault shows it; undefined when it has none of that id (404). */
  private async paymentToken(id: string) {
    try {
      return await this.call(() => this.client.vault.getPaymentToken(id));
    } catch (error) {
      if (statusOf((error as Error).cause) === 404) return undefined;
      throw error;
    }
  }

  /**
   * Creates the renewal order, our key as its `PayPal-Request-Id` (PayPal requires one to pay an order on
   * creation, and answers a repeated one as it answered the first). A 422 is a decline; a 404 says the token is
   * gone (the payer removed the merchant from their account).
   */
  async chargeMandate(charge: MandateCharge): Promise<MandateChargeResult> {
    let order: Order;
    try {
      order = await withinPspBudget(this.descriptor.id, async () => {
        const answer = await this.client.orders.createOrder({
          body: renewalRequest(this.descriptor, charge),
          paypalRequestId: charge.idempotencyKey,
          prefer: 'return=representation',
        });
        return answer.result;
      });
    } catch (error) {
      return renewalRefusal(error);
    }
    return renewalResult(order);
  }

  async retrieveCharge(reference: string): Promise<MandateChargeResult> {
    return renewalResult(await this.call(() => this.client.orders.getOrder({ id: reference })));
  }
}

/** PayPal's answer to a lookup or a charge in the closed set: refused credentials, else PayPal failing. */
function paypalLookupFailure(error: unknown): PspFailure {
  return pspFailure(error, 'lookup', { psp: 'PayPal', status: statusOf(error), reason: paypalReason(error) });
}

/**
 * A refused renewal as a decline, or the failure thrown: PayPal failing (no answer, 5xx, 429), refused
 * credentials, and `DUPLICATE_INVOICE_ID`, which says this attempt was charged already (its key expired, and the
 * merchant's account refuses a second order with one invoice id): no decline, its capture notification settles it.
 */
function renewalRefusal(error: unknown): MandateChargeResult {
  const status = statusOf(error);
  const issue = paypalIssue(error);
  if (status === 404) {
    const message = 'PayPal no longer has the payment token: the payer removed it.';
    return declined(null, { class: 'hard', code: 'paypal:INVALID_RESOURCE_ID', message }, false);
  }
  if (status !== 422 || !issue) throw paypalLookupFailure(error);
  if (issue === 'DUPLICATE_INVOICE_ID') {
    throw new PspOutageError('PayPal: this renewal was charged already (DUPLICATE_INVOICE_ID).', {
      cause: error,
    });
  }
  const decline = {
    class: DECLINE_CLASSES[issue] ?? 'soft',
    code: `paypal:${issue}`,
    message: `PayPal declined the renewal: ${paypalReason(error)}`,
  };
  return declined(null, decline, decline.class !== 'hard' || PAYEE_SIDE.has(issue));
}

/** PayPal's adapter with its mandates: the methods of `HoldsMandates` beside the core `Psp`'s. */
export function withPaypalMandates<T extends Psp>(psp: T, mandates: PaypalMandates): T & HoldsMandates {
  return Object.assign(psp, {
    chargeIdempotencyWindowMs: mandates.chargeIdempotencyWindowMs,
    mandateOf: mandates.mandateOf.bind(mandates),
    chargeMandate: mandates.chargeMandate.bind(mandates),
    retrieveCharge: mandates.retrieveCharge.bind(mandates),
  });
}
