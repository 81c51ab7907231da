import type { PaymentRequest } from '@adyen/api-library/lib/src/typings/checkout/paymentRequest.js';
import type { PaymentResponse } from '@adyen/api-library/lib/src/typings/checkout/paymentResponse.js';
import type { StoredPaymentMethodResource } from '@adyen/api-library/lib/src/typings/checkout/storedPaymentMethodResource.js';
import type { NotificationRequestItem } from '@adyen/api-library/lib/src/typings/notification/notificationRequestItem.js';
import type { PspConnection } from '../../../domain/connection.ts';
import { InvalidNotificationError } from '../../../domain/errors.ts';
import type { Decline, MandateRef } from '../../../domain/mandates.ts';
import type { Amount } from '../../../domain/money.ts';
import { fromPspMinorUnits } from '../../../domain/psp-rules.ts';
import type {
  HoldsMandates,
  MandateCharge,
  MandateChargeResult,
  Psp,
  SessionRequest,
} from '../../../ports/psp.ts';
import { messageOf, pspFailure, statusOf, withinPspBudget } from '../kit/calls.ts';
import { RecentFacts } from '../kit/recent-facts.ts';
import type { AdyenCredentials, AdyenSdk } from './client.ts';
import { adyenDecline, SHOPPER_ACTIONS } from './declines.ts';
import type { adyen } from './descriptor.ts';
import { ADYEN_IDEMPOTENCY_WINDOW_MS, adyenAmount } from './wire.ts';

/**
 * Adyen's mandates (docs/subscriptions.md#adyen): a stored payment method (a token) that the first payment link
 * stores (`storePaymentMethodMode: enabled`, `recurringProcessingModel: Subscription`) under a `shopperReference`
 * of ours, read back with `GET /storedPaymentMethods`, and charged with `POST /payments` (`ContAuth`) under the
 * attempt's idempotency key, all through the official SDK.
 */

/** Adyen's error for a token it no longer holds (deleted, disabled by Adyen or the issuer). */
const CONTRACT_NOT_FOUND = '800';
const REQUEST_IN_PROGRESS = '704';

/**
 * Only cards: a renewal Adyen answers `Received` (SEPA) is settled by its AUTHORISATION notification alone, Adyen
 * having no API to read a payment back, and a renewal's notification reaches no sweeper (retrieveCharge).
 */
const MANDATE_METHODS = ['scheme'];

/** Adyen shows a payment link's description on its page, at most 280 characters. */
const MAX_DESCRIPTION = 280;

/** Refuses a session Adyen cannot open a mandate for (a trial, or no method it tokenises among those allowed). */
export function adyenMandateProblem(
  descriptor: typeof adyen,
  { opensMandate, paymentMethods }: SessionRequest,
): string | undefined {
  if (!opensMandate) return undefined;
  if (opensMandate.withoutCharge) {
    return 'Adyen: a trial (a stored payment method without a charge) is not supported on payment links.';
  }
  const allowed = paymentMethods?.map((method) => descriptor.methods[method]);
  if (allowed && !allowed.some((method) => method && MANDATE_METHODS.includes(method))) {
    return 'Adyen: none of the allowed payment methods can be stored for later charges.';
  }
  return undefined;
}

/**
 * What a payment link that opens a mandate adds to today's: the payment method stored under the session's own
 * payment id as `shopperReference` (one token per reference: its list names this session's token, even when an
 * update link stores another for the same subscription), the terms on Adyen's page, cards only.
 */
export function adyenMandateLinkFields(request: SessionRequest) {
  const opens = request.opensMandate;
  if (!opens) return {};
  return {
    shopperReference: request.paymentId,
    storePaymentMethodMode: 'enabled' as never,
    recurringProcessingModel: 'Subscription' as never,
    allowedPaymentMethods: MANDATE_METHODS,
    description: termsOf(request).slice(0, MAX_DESCRIPTION),
    metadata: {
      link_id: request.link.id,
      payment_id: request.paymentId,
      subscription_id: opens.subscriptionId,
    },
  };
}

/** The terms the buyer agrees to, on Adyen's page (which takes no text of ours but the description). */
function termsOf({ link, opensMandate }: SessionRequest): string {
  const what = link.description || `Subscription ${opensMandate?.subscriptionId}`;
  const recurring = opensMandate?.recurring;
  if (!opensMandate || !recurring) return `${what}: later periods are charged to this payment method.`;
  const { value, currency } = opensMandate.periodAmount;
  const every =
    recurring.interval_count === 1
      ? recurring.interval
      : `${recurring.interval_count} ${recurring.interval}s`;
  const until = recurring.cycles ? `, ${recurring.cycles} times in all` : ' until canceled';
  return `${what}: ${value} ${currency} every ${every}${until}. Cancel through the merchant.`;
}

const BRANDS: Record<string, string> = { visa: 'Visa', mc: 'Mastercard', amex: 'American Express' };

/** "Visa •••• 1111": all Adyen tells of a stored card. */
function displayOf(token: StoredPaymentMethodResource): string | null {
  const brand = token.brand ? (BRANDS[token.brand] ?? token.brand) : null;
  if (!token.lastFour) return brand;
  return `${brand ?? 'Card'} •••• ${token.lastFour}`;
}

export interface AdyenMandateOptions {
  descriptor: typeof adyen;
  sdk: AdyenSdk;
  credentials: AdyenCredentials;
  connection: PspConnection;
  /** Our page: Adyen's document requires a `returnUrl` on every payment, though nobody is sent there. */
  returnUrl: string;
}

export class AdyenMandates implements HoldsMandates {
  readonly chargeIdempotencyWindowMs = ADYEN_IDEMPOTENCY_WINDOW_MS;
  private readonly options: AdyenMandateOptions;
  /**
   * The token an AUTHORISATION of a payment link names (`tokenization.storedPaymentMethodId`), by link. Outside
   * the HMAC: it only picks among the tokens Adyen lists for the link's shopper reference, never trusted alone.
   */
  private readonly namedTokens = new RecentFacts<string>({ maxAgeMs: 60_000, maxSize: 100 });
  /**
   * Renewals' outcomes as Adyen told them, by PSP reference: its answer to the charge, or later the renewal's
   * AUTHORISATION notification (Adyen has no API to read a payment back).
   */
  private readonly renewals = new RecentFacts<MandateChargeResult>({ maxAgeMs: 600_000, maxSize: 100 });

  constructor(options: AdyenMandateOptions) {
    this.options = options;
  }

  /** Keeps what a verified AUTHORISATION item tells of a token or a renewal (Adyen cannot be asked later). */
  noteAuthorisation(item: NotificationRequestItem): void {
    const data = item.additionalData ?? {};
    const success = item.success === 'true';
    if (data.paymentLinkId) {
      const token = data['tokenization.storedPaymentMethodId'] ?? data['recurring.recurringDetailReference'];
      if (success && token) this.namedTokens.set(data.paymentLinkId, token);
      return;
    }
    this.renewals.set(
      item.pspReference,
      success
        ? { state: 'succeeded', reference: item.pspReference, amount: this.amountOf(item.amount) }
        : failed(item.pspReference, adyenDecline({ reason: item.reason })),
    );
  }

  async mandateOf(session: { id: string }) {
    const { credentials } = this.options;
    const link = await this.call(() => this.options.sdk.paymentLinks.getPaymentLink(session.id));
    if (link.merchantAccount !== credentials.merchant_account) {
      throw new InvalidNotificationError('An Adyen payment link of another merchant account.');
    }
    const shopperReference = link.shopperReference;
    if (!shopperReference || `${link.storePaymentMethodMode}` !== 'enabled') {
      return none('The Adyen payment link stored no payment method.');
    }
    if (link.status !== 'completed' && link.status !== 'paid') return { state: 'pending' as const };
    const { recurring } = await this.options.sdk.mandates();
    const listed = await this.call(() =>
      recurring.getTokensForStoredPaymentDetails(shopperReference, credentials.merchant_account),
    );
    const tokens = (listed.storedPaymentMethods ?? []).filter(
      (token) => token.id && token.supportedRecurringProcessingModels?.includes('Subscription'),
    );
    // The notification's token counts only as one of those Adyen lists for the link's own shopper reference.
    const named = this.namedTokens.get(session.id);
    const token = tokens.find(({ id }) => id === named) ?? (tokens.length === 1 ? tokens[0] : undefined);
    if (!token) return none(`Adyen lists ${tokens.length} subscription tokens for the payment link.`);
    const mandate: MandateRef = {
      connection_id: this.options.connection.id,
      provider: this.options.descriptor.id,
      customer: shopperReference,
      reference: token.id as string,
      method: token.type ?? 'scheme',
      display: displayOf(token),
    };
    return { state: 'ready' as const, mandate };
  }

  async chargeMandate(charge: MandateCharge): Promise<MandateChargeResult> {
    const { mandate } = charge;
    const request: PaymentRequest = {
      amount: adyenAmount(this.options.descriptor, charge.amount),
      merchantAccount: this.options.credentials.merchant_account,
      reference: charge.paymentId,
      paymentMethod: { type: mandate.method, storedPaymentMethodId: mandate.reference } as never,
      shopperReference: mandate.customer,
      shopperInteraction: 'ContAuth' as never,
      recurringProcessingModel: 'Subscription' as never,
      returnUrl: this.options.returnUrl,
      metadata: { subscription_id: charge.subscriptionId, period: String(charge.period) },
    };
    const { payments } = await this.options.sdk.mandates();
    try {
      const answer = await withinPspBudget(this.options.descriptor.displayName, () =>
        payments.payments(request, { idempotencyKey: charge.idempotencyKey }),
      );
      const result = this.resultOf(answer, charge.amount);
      if (result.state !== 'pending' && result.reference) this.renewals.set(result.reference, result);
      return result;
    } catch (error) {
      const refused = refusalOf(error);
      if (refused) return refused;
      throw this.failure(error);
    }
  }

  /**
   * A renewal's outcome as Adyen told this adapter (its answer, or the AUTHORISATION that settled a pending one);
   * pending until then.
   */
  async retrieveCharge(reference: string): Promise<MandateChargeResult> {
    return this.renewals.get(reference) ?? { state: 'pending', reference };
  }

  private resultOf(answer: PaymentResponse, asked: Amount): MandateChargeResult {
    const reference = answer.pspReference ?? null;
    const resultCode = `${answer.resultCode}`;
    if (resultCode === 'Authorised' && reference) {
      return { state: 'succeeded', reference, amount: answer.amount ? this.amountOf(answer.amount) : asked };
    }
    if (resultCode === 'Pending' || resultCode === 'Received') return { state: 'pending', reference };
    if (SHOPPER_ACTIONS.has(resultCode)) {
      return failed(reference, {
        class: 'authentication_required',
        code: `adyen:${resultCode}`,
        message: 'The issuer asks the shopper to authenticate.',
      });
    }
    if (resultCode === 'Refused' || resultCode === 'Error' || resultCode === 'Cancelled') {
      const data = answer.additionalData ?? {};
      const decline = adyenDecline({
        code: answer.refusalReasonCode,
        reason: answer.refusalReason,
        raw: data.refusalReasonRaw,
        advice: data.merchantAdviceCode,
      });
      return failed(reference, decline);
    }
    // An answer without a result we know (an `Authorised` without its reference): the key is sent again.
    throw this.failure(new Error(`Adyen answered a renewal with result ${resultCode}.`));
  }

  private amountOf(amount: { value?: number; currency?: string } | undefined): Amount {
    return fromPspMinorUnits(
      this.options.descriptor.amounts,
      Number(amount?.value),
      String(amount?.currency),
    );
  }

  /** One lookup at Adyen, bounded by the PSP call budget; any failure leaves the outcome open. */
  private async call<T>(request: () => Promise<T>): Promise<T> {
    try {
      return await withinPspBudget(this.options.descriptor.displayName, request);
    } catch (error) {
      throw this.failure(error);
    }
  }

  private failure(error: unknown) {
    const apiError = (error as { apiError?: { message?: unknown } } | null)?.apiError;
    return pspFailure(error, 'lookup', {
      psp: this.options.descriptor.displayName,
      status: statusOf(error),
      reason: typeof apiError?.message === 'string' ? apiError.message : messageOf(error),
    });
  }
}

const none = (reason: string) => ({ state: 'none' as const, reason });

function failed(reference: string | null, decline: Decline): MandateChargeResult {
  return { state: 'failed', reference, decline, mandateUsable: decline.class !== 'hard' };
}

/**
 * Adyen's answers that settle a charge as not made: 422 `800` (the token is gone: the mandate is unusable) and its
 * other validation answers (400, 422: a request Adyen will never take, so no retry); undefined for the rest, which
 * leave the outcome open (no answer, 5xx, 429, `704`: the same key still in progress) or are refused credentials.
 */
function refusalOf(error: unknown): MandateChargeResult | undefined {
  const status = statusOf(error);
  const errorCode = (error as { errorCode?: unknown } | null)?.errorCode;
  if ((status !== 400 && status !== 422) || errorCode === REQUEST_IN_PROGRESS) return undefined;
  const apiError = (error as { apiError?: { message?: unknown } } | null)?.apiError;
  const message = typeof apiError?.message === 'string' ? apiError.message : messageOf(error);
  const gone = errorCode === CONTRACT_NOT_FOUND;
  return {
    state: 'failed',
    reference: null,
    decline: { class: 'hard', code: `adyen:${String(errorCode ?? status)}`, message },
    mandateUsable: !gone,
  };
}

/** The Adyen adapter with its mandates: the methods of `HoldsMandates` beside the core `Psp`'s. */
export function withAdyenMandates<
  T extends Psp & { noteAuthorisation: (item: NotificationRequestItem) => void },
>(psp: T, mandates: AdyenMandates): T & HoldsMandates {
  psp.noteAuthorisation = mandates.noteAuthorisation.bind(mandates);
  return Object.assign(psp, {
    chargeIdempotencyWindowMs: mandates.chargeIdempotencyWindowMs,
    mandateOf: mandates.mandateOf.bind(mandates),
    chargeMandate: mandates.chargeMandate.bind(mandates),
    retrieveCharge: mandates.retrieveCharge.bind(mandates),
  });
}
