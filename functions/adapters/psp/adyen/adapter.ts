import type { PaymentLinkResponse } from '@adyen/api-library/lib/src/typings/checkout/paymentLinkResponse.js';
import type { NotificationRequestItem } from '@adyen/api-library/lib/src/typings/notification/notificationRequestItem.js';
import { includedTaxMinor, type LineItem, linesCharging } from '../../../domain/amount.ts';
import type { PspConnection } from '../../../domain/connection.ts';
import { InvalidNotificationError } from '../../../domain/errors.ts';
import type { ReportedFailure } from '../../../domain/payment-failure.ts';
import type { PspSession } from '../../../domain/payment-link.ts';
import { amountProblem, fromPspMinorUnits } from '../../../domain/psp-rules.ts';
import {
  type Psp,
  type PspFailure,
  type PspNotification,
  type PspRefundRequest,
  type PspRefundStatus,
  PspRefusalError,
  type PspSessionStatus,
  pspFailureOf,
  type SessionEnd,
  type SessionRequest,
} from '../../../ports/psp.ts';
import type { EndsSessions, Refunds } from '../../../ports/psp-capabilities.ts';
import type { PspRuntime } from '../../../ports/psp-descriptor.ts';
import { messageOf, type PspOperation, pspFailure, statusOf, translatedCall } from '../kit/calls.ts';
import { ConnectedPsp } from '../kit/connected-psp.ts';
import { storedCredentialsFactory } from '../kit/factory.ts';
import { RecentFacts } from '../kit/recent-facts.ts';
import { adyenBuyer, adyenShopperFields } from './buyer.ts';
import { type AdyenCredentials, type AdyenSdk, loadAdyenSdk } from './client.ts';
import { adyenAttemptDecline } from './declines.ts';
import type { adyen } from './descriptor.ts';
import { AdyenMandates, adyenMandateLinkFields, adyenMandateProblem, withAdyenMandates } from './mandates.ts';
import {
  type Authorisation,
  authorisationOf,
  isRefundEvent,
  notificationBatchOf,
  refundOutcomeOf,
} from './notifications.ts';
import { ADYEN_IDEMPOTENCY_WINDOW_MS, adyenAmount } from './wire.ts';

/** Adyen's answer to a notification it must not send again (docs.adyen.com "Accept webhooks"). */
export const ADYEN_ACK = { contentType: 'text/plain', body: '[accepted]' } as const;

export { ADYEN_IDEMPOTENCY_WINDOW_MS, adyenAmount } from './wire.ts';

/**
 * Adyen's Checkout API through the official `@adyen/api-library`: each attempt is a payment link (hosted by
 * Adyen, our `pay_…` id as its `reference`), ended by setting it `expired`, its status fetched with
 * `GET /paymentLinks/{id}`. Notifications come in batches, each item signed with the connection's HMAC key;
 * Adyen has no API to read a payment or a refund back, so the PSP reference of a payment and the outcome of a
 * refund are taken from verified notifications (docs/orchestration.md#adyen).
 */
export class AdyenPsp extends ConnectedPsp<typeof adyen> implements Psp, EndsSessions, Refunds {
  readonly checkoutOrigin: string;
  readonly idempotencyWindowMs = ADYEN_IDEMPOTENCY_WINDOW_MS;
  readonly notificationAck = ADYEN_ACK;
  private readonly sdk: AdyenSdk;
  private readonly credentials: AdyenCredentials;
  /**
   * Payments made on a payment link, from the AUTHORISATION that just verified. Its signature does not cover
   * `additionalData.paymentLinkId`, so the fetched link must also match the signed reference and amount.
   */
  private readonly authorised = new RecentFacts<Authorisation>({ maxAgeMs: 60_000, maxSize: 100 });
  /**
   * Tries Adyen refused on a payment link, from the refused AUTHORISATION that just verified: the link stays
   * payable, and Adyen cannot be asked for them later. Matched to the link by the signed reference, as `authorised`.
   */
  private readonly refused = new RecentFacts<{ merchantReference: string; decline: ReportedFailure }>({
    maxAgeMs: 60_000,
    maxSize: 100,
  });
  /** Refund outcomes from the REFUND / REFUND_FAILED notifications that just verified. */
  private readonly refundOutcomes = new RecentFacts<PspRefundStatus>({ maxAgeMs: 60_000, maxSize: 100 });

  constructor(
    descriptor: typeof adyen,
    sdk: AdyenSdk,
    credentials: AdyenCredentials,
    connection: PspConnection,
  ) {
    super(descriptor, connection);
    this.sdk = sdk;
    this.credentials = credentials;
    this.checkoutOrigin = connection.mode === 'live' ? 'https://eu.adyen.link' : 'https://test.adyen.link';
  }

  /** One call to Adyen, bounded by the PSP call budget, its errors translated (`failure`). */
  private call<T>(operation: PspOperation, request: () => Promise<T>): Promise<T> {
    return translatedCall(this.provider, request, (error) => this.failure(error, operation));
  }

  /**
   * Adyen's errors (`HttpClientException`: `statusCode`, `errorCode`, `apiError`) in the closed set
   * (`pspFailure`): 401 and 403 (e.g. 901, a merchant account the key may not use) are refused credentials;
   * Adyen refuses a payment link with 422 (or 400), the end of one with 422 (no longer active), a refund with a
   * 4xx but 704 (the same idempotency key in progress); no answer, 429 and 5xx are Adyen failing.
   */
  private failure(error: unknown, operation: PspOperation): PspFailure {
    const status = statusOf(error);
    return pspFailure(error, operation, {
      psp: 'Adyen',
      status,
      reason: adyenErrorMessage(error),
      refusal: status === 422 || (operation === 'session' && status === 400),
      inProgress: (error as { errorCode?: unknown } | null)?.errorCode === ADYEN_REQUEST_IN_PROGRESS,
    });
  }

  /** Refuses (`PspRefusalError`), without calling Adyen, an amount Adyen cannot take (`amountProblem`). */
  async createSession(checkout: SessionRequest): Promise<PspSession> {
    const { link, amount } = checkout;
    const problem =
      amountProblem(this.descriptor.amounts, amount, 'payment') ??
      adyenMandateProblem(this.descriptor, checkout);
    if (problem) throw new PspRefusalError(problem);
    const lines = linesCharging(link.line_items, amount);
    const created = await this.call('session', () =>
      this.sdk.paymentLinks.paymentLinks(
        {
          amount: adyenAmount(this.descriptor, amount),
          merchantAccount: this.credentials.merchant_account,
          reference: checkout.paymentId,
          description: link.description || `Payment ${link.id}`,
          returnUrl: checkout.successUrl,
          expiresAt: checkout.expiresAt,
          shopperLocale: adyenLocale(checkout.locale),
          ...(lines ? { lineItems: lines.map((line) => adyenLineItem(this.descriptor, line)) } : {}),
          ...(checkout.paymentMethods
            ? {
                allowedPaymentMethods: checkout.paymentMethods.flatMap(
                  (method) => this.descriptor.methods[method] ?? [],
                ),
              }
            : {}),
          reusable: false,
          ...adyenShopperFields(checkout),
          metadata: { link_id: link.id, payment_id: checkout.paymentId },
          ...adyenMandateLinkFields(checkout),
        },
        { idempotencyKey: checkout.paymentId },
      ),
    );
    return {
      provider: this.provider,
      connection_id: this.connection.id,
      payment_id: checkout.paymentId,
      id: created.id,
      url: created.url,
      expires_at: new Date(created.expiresAt ?? checkout.expiresAt).toISOString(),
    };
  }

  /**
   * Every item of the batch must carry a valid HMAC signature (the current key, or the previous one while a
   * rotation overlaps), and the batch's `live` flag must be the connection's mode; one bad item refuses all.
   */
  async verifyNotification(
    rawBody: string,
    _headers: Record<string, string | undefined>,
  ): Promise<PspNotification[]> {
    const { items, livemode } = notificationBatchOf(rawBody);
    const keys = [this.credentials.hmac_key, this.credentials.previous_hmac_key].filter(
      (key): key is string => key !== undefined,
    );
    const notifications: PspNotification[] = [];
    for (const item of items) {
      if (!item || !keys.some((key) => this.validHmac(item, key))) {
        throw new InvalidNotificationError(
          'An Adyen notification item whose HMAC signature does not verify.',
        );
      }
      if (item.merchantAccountCode !== this.credentials.merchant_account) {
        throw new InvalidNotificationError('An Adyen notification for another merchant account.');
      }
      notifications.push(this.interpret(item, livemode));
    }
    if (livemode !== (this.connection.mode === 'live')) {
      throw new InvalidNotificationError('An Adyen notification of the other mode.');
    }
    return notifications;
  }

  private validHmac(item: NotificationRequestItem, key: string): boolean {
    try {
      return this.sdk.hmac.validateHMAC(item, key);
    } catch {
      return false; // no signature at all
    }
  }

  /** Told each verified AUTHORISATION item (mandates.ts keeps the token and renewal outcomes it names). */
  noteAuthorisation: (item: NotificationRequestItem) => void = () => {};

  /** The notification an item brings, keeping the facts Adyen cannot be asked for later (see `authorised`). */
  private interpret(item: NotificationRequestItem, livemode: boolean): PspNotification {
    const success = item.success === 'true';
    const type = `${item.eventCode}${success ? '' : ':failed'}`;
    if (item.eventCode === 'AUTHORISATION') {
      this.noteAuthorisation(item);
      const paymentLinkId = item.additionalData?.paymentLinkId ?? null;
      if (paymentLinkId && success) this.authorised.set(paymentLinkId, authorisationOf(item));
      const decline = paymentLinkId && !success && adyenAttemptDecline(item, this.descriptor.displayName);
      // A cancelled try is no decline: a link that then expires is a buyer who left.
      if (paymentLinkId && decline && decline.code !== 'canceled') {
        this.refused.set(paymentLinkId, { merchantReference: item.merchantReference, decline });
      }
      return { type, sessionId: paymentLinkId, refundReference: null, livemode };
    }
    if (isRefundEvent(item)) {
      this.refundOutcomes.set(item.pspReference, refundOutcomeOf(item));
      return { type, sessionId: null, refundReference: item.pspReference, livemode };
    }
    return { type, sessionId: null, refundReference: null, livemode };
  }

  async retrieveSession(sessionId: string): Promise<PspSessionStatus> {
    const paymentLink = await this.call('lookup', () => this.sdk.paymentLinks.getPaymentLink(sessionId));
    if (paymentLink.merchantAccount !== this.credentials.merchant_account) {
      throw new InvalidNotificationError('An Adyen payment link of another merchant account.');
    }
    const metadata = paymentLink.metadata ?? {};
    const paid = paymentLink.status === 'completed' || paymentLink.status === 'paid';
    const authorised = this.authorised.get(paymentLink.id);
    const confirmed =
      authorised &&
      authorised.merchantReference === paymentLink.reference &&
      authorised.amount.value === paymentLink.amount.value &&
      authorised.amount.currency === paymentLink.amount.currency;
    return {
      id: paymentLink.id,
      paymentId: metadata.payment_id ?? paymentLink.reference ?? null,
      linkId: metadata.link_id ?? null,
      ...stateOf(paymentLink),
      ...(paid ? {} : this.declinedAttemptOn(paymentLink)),
      ...(paymentLink.status === 'paymentPending' ? { paymentUnderWay: true } : {}),
      // Known only from the AUTHORISATION notification: Adyen cannot be asked for it.
      paymentReference: paid && confirmed ? authorised.pspReference : null,
      // The link's amount is what Adyen charges on it: it takes no other from the buyer.
      amount: fromPspMinorUnits(
        this.descriptor.amounts,
        paymentLink.amount.value,
        paymentLink.amount.currency,
      ),
      // The environment answered: test credentials only reach Adyen's test platform, live ones its live one.
      livemode: this.credentials.environment === 'live',
      ...(paid ? await adyenBuyer(paymentLink) : {}),
    };
  }

  /**
   * The try Adyen just refused on an unpaid link (`refused`), which the payment keeps until the link is paid or
   * expires (docs/orchestration.md#decline-codes).
   */
  private declinedAttemptOn(paymentLink: PaymentLinkResponse): Pick<PspSessionStatus, 'declinedAttempt'> {
    const refused = this.refused.get(paymentLink.id);
    return refused && refused.merchantReference === paymentLink.reference
      ? { declinedAttempt: refused.decline }
      : {};
  }

  /**
   * Expires the payment link. Adyen refuses (422) to update a link that is no longer active (completed, a
   * payment pending on it, or expired): `refused`, and the caller fetches which. One call, as the functions that
   * end sessions budget for.
   */
  async expireSession(session: PspSession): Promise<SessionEnd> {
    try {
      await this.call('end', () =>
        this.sdk.paymentLinks.updatePaymentLink(session.id, { status: 'expired' as never }),
      );
      return 'ended';
    } catch (error) {
      if (pspFailureOf(error)?.kind === 'refused') return 'refused';
      throw error;
    }
  }

  /**
   * Adyen's 4xx answers are refusals (e.g. 422: the payment cannot be refunded), except `isRefusalStatus`'s and
   * error 704, a request with the same idempotency key still being processed. An amount Adyen cannot express is
   * refused without calling it (`amountProblem`).
   */
  async refund(request: PspRefundRequest): Promise<PspRefundStatus> {
    const problem = amountProblem(this.descriptor.amounts, request.amount, 'refund');
    if (problem) throw new PspRefusalError(problem);
    const response = await this.call('refund', () =>
      this.sdk.modifications.refundCapturedPayment(
        request.paymentReference,
        {
          amount: adyenAmount(this.descriptor, request.amount),
          merchantAccount: this.credentials.merchant_account,
          reference: `${request.linkId}/${request.refundId}`,
        },
        { idempotencyKey: request.refundId },
      ),
    );
    // `received`: the outcome follows in a REFUND (or REFUND_FAILED) notification.
    return {
      reference: response.pspReference,
      refundId: request.refundId,
      linkId: request.linkId,
      state: 'pending',
      failureMessage: null,
    };
  }

  async retrieveRefund(reference: string): Promise<PspRefundStatus> {
    return (
      this.refundOutcomes.get(reference) ?? {
        reference,
        refundId: null,
        linkId: null,
        state: 'pending',
        failureMessage: null,
      }
    );
  }
}

function stateOf(paymentLink: PaymentLinkResponse): Pick<PspSessionStatus, 'state' | 'failure'> {
  switch (paymentLink.status) {
    case 'completed':
    case 'paid':
      return { state: 'succeeded', failure: null };
    case 'expired':
      return {
        state: 'expired',
        failure: { code: 'expired', message: 'The Adyen payment link expired unpaid.' },
      };
    default:
      return { state: 'pending', failure: null };
  }
}

/** Adyen's error code for a request whose idempotency key is still being processed: the outcome is open. */
const ADYEN_REQUEST_IN_PROGRESS = '704';

/** Adyen's own message of an API error (`{ status, errorCode, message }`), without the SDK's HTTP prefix. */
function adyenErrorMessage(error: unknown): string {
  const apiError = (error as { apiError?: { message?: unknown } } | null)?.apiError;
  return typeof apiError?.message === 'string' ? apiError.message : messageOf(error);
}

/**
 * Adyen for each connection whose credentials are stored under its `secret_name`. `ADYEN_API_URL` points the SDK
 * elsewhere than Adyen's endpoints (tests).
 */
export function createFactory(runtime: PspRuntime, descriptor: typeof adyen) {
  return storedCredentialsFactory(descriptor, runtime.secrets, async (credentials, connection) => {
    const sdk = await loadAdyenSdk(credentials, runtime.apiUrl);
    const mandates = new AdyenMandates({
      descriptor,
      sdk,
      credentials,
      connection,
      returnUrl: runtime.baseUrl,
    });
    return withAdyenMandates(new AdyenPsp(descriptor, sdk, credentials, connection), mandates);
  });
}

const ADYEN_DEFAULT_REGION: Record<string, string> = { en: 'US', nl: 'NL', de: 'DE', fr: 'FR', es: 'ES' };

/** Our locale tag as Adyen's `shopperLocale` (language and country, `nl-NL`): a bare language gets its default. */
export function adyenLocale(tag: string): string {
  return tag.length === 2 ? `${tag}-${ADYEN_DEFAULT_REGION[tag] ?? 'US'}` : tag;
}

/**
 * A line as Adyen's `lineItems` item, amounts in Adyen's minor units: what one costs with and without the tax it
 * includes, and the rate in minor units of a percent (21 % → 2100).
 */
function adyenLineItem(descriptor: typeof adyen, item: LineItem) {
  const including = BigInt(adyenAmount(descriptor, item.unit_amount).value);
  const tax = item.tax_rate ? includedTaxMinor(including, item.tax_rate) : 0n;
  return {
    description: item.name,
    quantity: item.quantity,
    amountIncludingTax: Number(including),
    amountExcludingTax: Number(including - tax),
    taxAmount: Number(tax),
    ...(item.tax_rate ? { taxPercentage: Math.round(Number(item.tax_rate) * 100) } : {}),
  };
}
