import type {
  Locale,
  MollieClient,
  Payment,
  PaymentMethod as PaymentMethodName,
  Refund,
} from '@mollie/api-client';
import { includedTaxMinor, type LineItem, linesCharging, lineTotalMinor } from '../../../domain/amount.ts';
import type { PspConnection } from '../../../domain/connection.ts';
import { InvalidNotificationError } from '../../../domain/errors.ts';
import { fromMinorUnits } from '../../../domain/money.ts';
import type { PspSession } from '../../../domain/payment-link.ts';
import {
  type Psp,
  type PspFailure,
  type PspNotification,
  PspOutageError,
  type PspPaymentState,
  type PspRefundRequest,
  type PspRefundStatus,
  type PspSessionStatus,
  pspFailureOf,
  type SessionEnd,
  type SessionRequest,
} from '../../../ports/psp.ts';
import type {
  EndsSessions,
  ListsPayouts,
  PspPayout,
  PspPayoutItem,
  Refunds,
} from '../../../ports/psp-capabilities.ts';
import type { PspRuntime } from '../../../ports/psp-descriptor.ts';
import {
  messageOf,
  type PspOperation,
  pspFailure,
  statusOf,
  translatedCall,
  withinPspBudget,
} from '../kit/calls.ts';
import { ConnectedPsp } from '../kit/connected-psp.ts';
import { declineOf } from '../kit/declines.ts';
import { storedCredentialsFactory } from '../kit/factory.ts';
import { RecentFacts } from '../kit/recent-facts.ts';
import { mollieAmount } from './amounts.ts';
import { MOLLIE_DECLINES } from './declines.ts';
import type { mollie } from './descriptor.ts';
import { firstPaymentOf, MOLLIE_KEY_WINDOW_MS, MollieMandates, withMollieMandates } from './mandates.ts';
import { mollieSettlementItems, mollieSettlements } from './payouts.ts';

/**
 * The `description` of a refund, which Mollie's API requires (mollie/openapi `specs.yaml`, `entity-refund`: at
 * most 255 characters, and it may be shown to the buyer): the link's description, or its id when it has none.
 */
/**
 * The address's e-mail as Mollie's billing e-mail (its `billingAddress` takes an e-mail alone), which Mollie uses
 * for the methods that mail the buyer (bank transfer instructions). Mollie's page asks no buyer details and its
 * answers echo what it was sent, so nothing of the buyer is read back from it (docs/checkout.md#on-the-psps-page).
 */
type MolliePaymentAddress = NonNullable<Parameters<MollieClient['payments']['create']>[0]['billingAddress']>;
function mollieBuyerReferences({ references }: SessionRequest) {
  // Mollie's own document (mollie/openapi `payment-address`) requires no part of the address, and its API takes
  // "an email or a valid postal address"; the SDK's type asks for a postal address always.
  return references?.prefilled_email
    ? { billingAddress: { email: references.prefilled_email } as MolliePaymentAddress }
    : {};
}

export function mollieRefundDescription(request: Pick<PspRefundRequest, 'linkId' | 'description'>): string {
  return `Refund: ${request.description || request.linkId}`.slice(0, 255);
}

const PAYMENT_ID = /^tr_[A-Za-z0-9]+$/;

/** What each Mollie payment status means for the attempt (docs.mollie.com "Handling payment status"). */
function stateOf(payment: Payment, displayName: string): Pick<PspSessionStatus, 'state' | 'failure'> {
  const byStatus: Record<string, PspSessionStatus['failure'] & { state: PspPaymentState }> = {
    canceled: { state: 'canceled', code: 'canceled', message: 'The buyer canceled the payment at Mollie.' },
    expired: { state: 'expired', code: 'expired', message: 'The Mollie payment expired unpaid.' },
  };
  if (payment.status === 'paid') return { state: 'succeeded', failure: null };
  if (payment.status === 'failed') {
    // Only a card payment says why (mollie/openapi `payment-details`: `failureReason`); the others fail without.
    const { failureReason } = (payment.details ?? {}) as { failureReason?: string | null };
    const table = { displayName, declines: MOLLIE_DECLINES };
    return { state: 'failed', failure: declineOf(table, failureReason, 'The payment failed at Mollie.') };
  }
  const ended = byStatus[payment.status];
  if (ended) return { state: ended.state, failure: { code: ended.code, message: ended.message } };
  return { state: 'pending', failure: null };
}

function refundStateOf(refund: Refund): PspRefundStatus {
  const state =
    refund.status === 'refunded'
      ? 'succeeded'
      : refund.status === 'failed' || refund.status === 'canceled'
        ? 'failed'
        : 'pending';
  const metadata = (refund.metadata ?? {}) as { refund_id?: unknown; link_id?: unknown };
  return {
    reference: `${refund.paymentId}/${refund.id}`,
    refundId: typeof metadata.refund_id === 'string' ? metadata.refund_id : null,
    linkId: typeof metadata.link_id === 'string' ? metadata.link_id : null,
    state,
    failureMessage: state === 'failed' ? `The Mollie refund is ${refund.status}.` : null,
  };
}

/**
 * Mollie's Payments API with Mollie's hosted checkout, through the official `@mollie/api-client`. A payment
 * (`tr_…`) is our session: it is created per attempt with our notification URL as its `webhookUrl`; Mollie's
 * webhook carries only `id=tr_…`, unsigned, so every notification is answered by fetching that payment with
 * the connection's own key (a payment of another account or mode is not found, or not of this mode).
 */
export class MolliePsp
  extends ConnectedPsp<typeof mollie>
  implements Psp, EndsSessions, Refunds, ListsPayouts
{
  readonly checkoutOrigin = 'https://www.mollie.com';
  /** Mollie promises no retention of idempotency keys; an hour is the figure we rely on (docs/decisions.md). */
  readonly idempotencyWindowMs = MOLLIE_KEY_WINDOW_MS;
  private readonly mollie: MollieClient;
  /** The payment a notification just fetched, for the `retrieveSession` that follows it. */
  private readonly fetched = new RecentFacts<Payment>({ maxAgeMs: 10_000, maxSize: 20 });

  /** The client of the connection's organization access token, which alone may list settlements; absent: none. */
  private readonly organization: MollieClient | undefined;

  constructor(
    descriptor: typeof mollie,
    client: MollieClient,
    connection: PspConnection,
    organization?: MollieClient,
  ) {
    super(descriptor, connection);
    this.mollie = client;
    this.organization = organization;
  }

  /** One call to Mollie, bounded by the PSP call budget, its errors translated (`failure`). */
  private call<T>(operation: PspOperation, request: () => Promise<T>): Promise<T> {
    return translatedCall(this.provider, request, (error) => this.failure(error, operation));
  }

  /**
   * Mollie's errors in the closed set (`pspFailure`): 401 and 403 are refused credentials; Mollie refuses a
   * payment with 422 (an amount, currency or method it does not take; 400 a malformed one), the end of one with
   * 422 (no longer cancelable), a refund with a 4xx; no answer, 429 and 5xx are Mollie failing.
   */
  private failure(error: unknown, operation: PspOperation): PspFailure {
    const status = statusOf(error);
    return pspFailure(error, operation, {
      psp: 'Mollie',
      status,
      reason: messageOf(error),
      refusal: status === 422 || (operation === 'session' && status === 400),
    });
  }

  private isOfMode(payment: { mode: string }): boolean {
    return payment.mode === this.connection.mode;
  }

  async createSession(checkout: SessionRequest): Promise<PspSession> {
    const { link, amount } = checkout;
    // A trial's first payment charges nothing: the link's lines are what each later period charges.
    const lines = checkout.opensMandate?.withoutCharge ? undefined : linesCharging(link.line_items, amount);
    const client_reference_id = checkout.references?.client_reference_id;
    const first = await firstPaymentOf(this.descriptor, this.mollie, checkout, (request) =>
      this.call('session', request),
    );
    const payment = await this.call('session', () =>
      this.mollie.payments.create({
        amount: mollieAmount(amount),
        description: (link.description || `Payment ${link.id}`).slice(0, 255),
        redirectUrl: checkout.successUrl,
        cancelUrl: checkout.cancelUrl,
        webhookUrl: checkout.notificationUrl,
        locale: mollieLocale(checkout.locale) as Locale,
        ...(lines ? { lines: lines.map(mollieLine) } : {}),
        ...(checkout.paymentMethods
          ? {
              method: [
                ...new Set(
                  checkout.paymentMethods.flatMap((method) => this.descriptor.methods[method] ?? []),
                ),
              ] as PaymentMethodName[],
            }
          : {}),
        ...mollieBuyerReferences(checkout),
        ...first,
        metadata: {
          link_id: link.id,
          payment_id: checkout.paymentId,
          ...(client_reference_id ? { client_reference_id } : {}),
        },
        idempotencyKey: checkout.paymentId,
      }),
    );
    if (!this.isOfMode(payment)) {
      throw new PspOutageError(
        `Mollie created ${payment.id} in ${payment.mode} mode for a ${this.connection.mode} connection`,
      );
    }
    const url = payment._links.checkout?.href;
    if (!url) throw new PspOutageError(`Mollie returned payment ${payment.id} without a checkout URL`);
    const expiresAt = payment.expiresAt ? new Date(payment.expiresAt) : checkout.expiresAt;
    return {
      provider: this.provider,
      connection_id: this.connection.id,
      payment_id: checkout.paymentId,
      id: payment.id,
      url,
      expires_at: expiresAt.toISOString(),
    };
  }

  notificationLookupId(rawBody: string): string | undefined {
    const id = new URLSearchParams(rawBody).get('id') ?? '';
    return PAYMENT_ID.test(id) ? id : undefined;
  }

  /** `id=tr_…` is all Mollie sends: the payment is fetched, and the notification is genuine if this key sees it. */
  async verifyNotification(
    rawBody: string,
    _headers: Record<string, string | undefined>,
  ): Promise<PspNotification[]> {
    const id = new URLSearchParams(rawBody).get('id') ?? '';
    if (!PAYMENT_ID.test(id)) throw new InvalidNotificationError('Not a Mollie payment notification.');
    let payment: Payment;
    try {
      payment = await withinPspBudget(this.provider, () => this.mollie.payments.get(id));
    } catch (error) {
      if (statusOf(error) === 404) {
        throw new InvalidNotificationError('Not a Mollie payment of this connection.', { unknownId: id });
      }
      // Mollie could not be asked: answered with a 5xx (functions/use-cases/psp-notifications.ts), so that
      // Mollie calls the webhook again later.
      throw this.failure(error, 'lookup');
    }
    if (!this.isOfMode(payment)) throw new InvalidNotificationError('A Mollie payment of the other mode.');
    this.fetched.set(payment.id, payment);
    return [
      {
        type: `payment.${payment.status}`,
        sessionId: payment.id,
        refundReference: null,
        livemode: payment.mode === 'live',
      },
    ];
  }

  async retrieveSession(sessionId: string): Promise<PspSessionStatus> {
    const payment =
      this.fetched.take(sessionId) ?? (await this.call('lookup', () => this.mollie.payments.get(sessionId)));
    if (!this.isOfMode(payment)) throw new InvalidNotificationError('A Mollie payment of the other mode.');
    const metadata = (payment.metadata ?? {}) as { link_id?: unknown; payment_id?: unknown };
    const { state, failure } = stateOf(payment, this.descriptor.displayName);
    return {
      id: payment.id,
      paymentId: typeof metadata.payment_id === 'string' ? metadata.payment_id : null,
      linkId: typeof metadata.link_id === 'string' ? metadata.link_id : null,
      state,
      failure,
      paymentReference: state === 'succeeded' ? payment.id : null,
      amount: { value: payment.amount.value, currency: payment.amount.currency },
      livemode: payment.mode === 'live',
    };
  }

  /**
   * Cancels the payment while Mollie still allows it (`isCancelable`: most methods only until the buyer starts
   * paying). Mollie refuses (422) a payment that is paid, ended or no longer cancelable (`refused`): the caller
   * asks which, and a payment that may still be paid is not taken as ended (docs/orchestration.md#mollie).
   * One call, as the functions that end sessions budget for.
   */
  async expireSession(session: PspSession): Promise<SessionEnd> {
    try {
      await this.call('end', () => this.mollie.payments.cancel(session.id));
      return 'ended';
    } catch (error) {
      if (pspFailureOf(error)?.kind === 'refused') return 'refused';
      throw error;
    }
  }

  /** Mollie's 4xx answers are refusals (e.g. 422: more than remains refundable), but `isRefusalStatus`. */
  async refund(request: PspRefundRequest): Promise<PspRefundStatus> {
    const refund = await this.call('refund', () =>
      this.mollie.paymentRefunds.create({
        paymentId: request.paymentReference,
        amount: mollieAmount(request.amount),
        description: mollieRefundDescription(request),
        metadata: { refund_id: request.refundId, link_id: request.linkId },
        idempotencyKey: request.refundId,
      }),
    );
    return refundStateOf(refund);
  }

  /**
   * Mollie's settlements, read with the connection's organization access token: without one there are none to
   * read (Mollie lists settlements to no API key), and a test-mode connection has none (Mollie settles live
   * payments only).
   */
  async listPayouts(since: Date): Promise<PspPayout[]> {
    const organization = this.organization;
    if (!organization || this.connection.mode !== 'live') return [];
    return mollieSettlements(organization, (request) => this.call('lookup', request), since);
  }

  async payoutItems(payout: PspPayout): Promise<PspPayoutItem[]> {
    const organization = this.organization;
    if (!organization) return [];
    return mollieSettlementItems(organization, (request) => this.call('lookup', request), payout);
  }

  /** `reference` is `tr_…/re_…`: Mollie reads a refund only through its payment. */
  async retrieveRefund(reference: string): Promise<PspRefundStatus> {
    const [paymentId, refundId] = reference.split('/');
    if (!paymentId || !refundId) throw new Error(`Not a Mollie refund reference: ${reference}`);
    const refund = await this.call('lookup', () => this.mollie.paymentRefunds.get(refundId, { paymentId }));
    return refundStateOf(refund);
  }
}

/**
 * Mollie for each connection whose credentials are stored under its `secret_name`. `MOLLIE_API_URL` points the
 * SDK elsewhere than `https://api.mollie.com/v2/` (tests: a Mollie-speaking server).
 */
export function createFactory(runtime: PspRuntime, descriptor: typeof mollie) {
  return storedCredentialsFactory(descriptor, runtime.secrets, async (credentials, connection) => {
    // Loaded here, not at module scope: only functions that talk to Mollie evaluate the SDK (docs/performance.md).
    const { createMollieClient } = await import('@mollie/api-client');
    const endpoint = runtime.apiUrl ? { apiEndpoint: runtime.apiUrl } : {};
    const client = createMollieClient({ apiKey: credentials.api_key, ...endpoint });
    const organization = credentials.access_token
      ? createMollieClient({ accessToken: credentials.access_token, ...endpoint })
      : undefined;
    const mandates = new MollieMandates(descriptor, client, connection, runtime.baseUrl);
    return withMollieMandates(new MolliePsp(descriptor, client, connection, organization), mandates);
  });
}

/** The locales Mollie's hosted checkout takes for our languages (Mollie's `locale` enum, `ll_RR`). */
const MOLLIE_LOCALES = new Set([
  ...['en_US', 'en_GB', 'en_BE', 'en_NL', 'nl_NL', 'nl_BE', 'de_DE', 'de_AT', 'de_CH', 'de_LU'],
  ...['fr_FR', 'fr_BE', 'fr_LU', 'es_ES'],
]);
const MOLLIE_DEFAULT_REGION: Record<string, string> = { en: 'US', nl: 'NL', de: 'DE', fr: 'FR', es: 'ES' };

/** Our locale tag in Mollie's spelling: `nl-BE` → `nl_BE`; a region Mollie lacks gets the language's default. */
export function mollieLocale(tag: string): string {
  const language = tag.slice(0, 2);
  const exact = tag.replace('-', '_');
  return MOLLIE_LOCALES.has(exact) ? exact : `${language}_${MOLLIE_DEFAULT_REGION[language] ?? 'US'}`;
}

/** A line as Mollie's `lines` item: `totalAmount` = unitPrice × quantity, and the VAT it includes. */
function mollieLine(item: LineItem) {
  const total = lineTotalMinor(item);
  const currency = item.unit_amount.currency;
  const minor = (value: bigint) => mollieAmount({ value: fromMinorUnits(value, currency), currency });
  return {
    description: item.name,
    quantity: item.quantity,
    unitPrice: mollieAmount(item.unit_amount),
    totalAmount: minor(total),
    ...(item.tax_rate
      ? {
          vatRate: Number(item.tax_rate).toFixed(2),
          vatAmount: minor(includedTaxMinor(total, item.tax_rate)),
        }
      : {}),
  };
}
