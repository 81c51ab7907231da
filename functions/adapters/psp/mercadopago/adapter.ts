import { CALL_BUDGETS } from '../../../domain/call-budgets.ts';
import type { PspConnection } from '../../../domain/connection.ts';
import { InvalidNotificationError } from '../../../domain/errors.ts';
import type { PspSession } from '../../../domain/payment-link.ts';
import { amountProblem, linesProblem } from '../../../domain/psp-rules.ts';
import {
  type Psp,
  type PspFailure,
  type PspNotification,
  PspOutageError,
  type PspRefundRequest,
  type PspRefundStatus,
  PspRefusalError,
  type PspSessionStatus,
  type SessionEnd,
  type SessionRequest,
} from '../../../ports/psp.ts';
import type { EndsSessions, Refunds } from '../../../ports/psp-capabilities.ts';
import type { PspRuntime } from '../../../ports/psp-descriptor.ts';
import { messageOf, type PspOperation, pspFailure, translatedCall } from '../kit/calls.ts';
import { ConnectedPsp } from '../kit/connected-psp.ts';
import type { CredentialsOf } from '../kit/credentials.ts';
import { storedCredentialsFactory } from '../kit/factory.ts';
import type { mercadopago } from './descriptor.ts';
import { verifiedMercadoPagoNotification } from './notifications.ts';
import {
  decidingPayment,
  excludedMethods,
  externalReference,
  fromMercadoPagoNumber,
  type MercadoPagoPayment,
  type MercadoPagoRefund,
  mercadoPagoDate,
  mercadoPagoNumber,
  ourIds,
  type PreferenceItem,
  paymentState,
  preferenceAmount,
  preferenceItems,
  refundReference,
  refundState,
} from './wire.ts';

/** The Secrets Manager value of a Mercado Pago connection's credentials (its descriptor's `credentials`). */
export type MercadoPagoCredentials = CredentialsOf<typeof mercadopago>;

/** The official SDK's module (`mercadopago`), loaded by the factory only when a connection uses Mercado Pago. */
export type MercadoPagoSdk = Pick<
  typeof import('mercadopago'),
  | 'MercadoPagoConfig'
  | 'Preference'
  | 'Payment'
  | 'PaymentRefund'
  | 'MercadoPagoError'
  | 'MPNotFoundError'
  | 'MPIdempotencyError'
>;

/** The SDK's one setting of where it calls (`AppConfig.BASE_URL`, read on every request). */
interface SdkAppConfig {
  BASE_URL: string;
}

/** A preference as the adapter reads it (`POST`, `GET`, `PUT /checkout/preferences…`). */
interface Preference {
  id?: string;
  init_point?: string;
  external_reference?: string;
  expiration_date_to?: string | null;
  items?: PreferenceItem[];
}

/** Payments still under way or paid: a preference with one cannot be taken as ended. */
const UNDER_WAY = new Set(['approved', 'pending', 'in_process', 'authorized']);

/**
 * Mercado Pago's Checkout Pro (docs/orchestration.md#mercado-pago), through its official SDK. A session is a
 * preference (its id), whose `external_reference` carries our link and payment ids; its payments are found by that
 * reference, or, from a notification, read by their own id (a number). Each read or end that takes two requests
 * makes both within one PSP call's budget.
 */
export class MercadoPagoPsp extends ConnectedPsp<typeof mercadopago> implements Psp, EndsSessions, Refunds {
  readonly checkoutOrigin = 'https://www.mercadopago.com';
  /** Mercado Pago documents no idempotency window: a refund whose answer was lost is never asked again. */
  readonly idempotencyWindowMs = 0;
  private readonly sdk: MercadoPagoSdk;
  private readonly accessToken: string;
  private readonly webhookSecrets: string[];
  private readonly livemode: boolean;

  constructor(
    descriptor: typeof mercadopago,
    sdk: MercadoPagoSdk,
    credentials: MercadoPagoCredentials,
    connection: PspConnection,
  ) {
    super(descriptor, connection);
    this.sdk = sdk;
    this.accessToken = credentials.access_token;
    this.webhookSecrets = [credentials.webhook_secret, credentials.previous_webhook_secret].filter(
      (secret): secret is string => secret !== undefined,
    );
    this.livemode = connection.mode === 'live';
  }

  /**
   * The SDK's configuration for one request: made anew for each, because the SDK's clients merge each request's
   * options (its idempotency key) into the configuration they were given and keep them for the next request. One
   * try (the SDK would retry 429 and 5xx answers for seconds), within the PSP call budget.
   */
  private config(idempotencyKey?: string) {
    return new this.sdk.MercadoPagoConfig({
      accessToken: this.accessToken,
      options: {
        timeout: CALL_BUDGETS.psp.timeoutMs,
        maxRetries: 0,
        ...(idempotencyKey ? { idempotencyKey } : {}),
      },
    });
  }

  /**
   * `POST /checkout/preferences`, with our payment id as its idempotency key (a retry after a lost answer gets the
   * same preference). Refused without a call: an amount, or a line's unit price, Mercado Pago cannot take, or a link
   * whose methods it serves none of.
   */
  async createSession(request: SessionRequest): Promise<PspSession> {
    const problem =
      amountProblem(this.descriptor.amounts, request.amount, 'payment') ??
      linesProblem(
        this.descriptor.amounts,
        (request.link.line_items ?? []).map((line) => line.unit_amount),
      );
    if (problem) throw new PspRefusalError(problem);
    const methods = excludedMethods(request.paymentMethods);
    if (request.paymentMethods && !methods) {
      throw new PspRefusalError('Mercado Pago serves none of the link’s payment methods.');
    }
    const email = request.buyer?.email ?? request.references?.prefilled_email;
    const body = {
      items: preferenceItems(this.descriptor, request),
      external_reference: externalReference(request.link.id, request.paymentId),
      back_urls: { success: request.successUrl, pending: request.successUrl, failure: request.cancelUrl },
      auto_return: 'approved',
      expires: true,
      expiration_date_to: mercadoPagoDate(request.expiresAt),
      // A cash or Pix payment generated on the page is payable no longer than the session.
      date_of_expiration: mercadoPagoDate(request.expiresAt),
      ...(methods ? { payment_methods: methods } : {}),
      ...(email ? { payer: { email } } : {}),
    };
    const preference: Preference = await this.call('session', () =>
      new this.sdk.Preference(this.config(request.paymentId)).create({ body }),
    );
    if (!preference.id || !preference.init_point) {
      throw new PspOutageError(`Mercado Pago created preference ${preference.id} without an init_point`);
    }
    return {
      provider: this.provider,
      connection_id: this.connection.id,
      payment_id: request.paymentId,
      id: preference.id,
      url: preference.init_point,
      expires_at: request.expiresAt.toISOString(),
    };
  }

  async verifyNotification(
    rawBody: string,
    headers: Record<string, string | undefined>,
  ): Promise<PspNotification[]> {
    return verifiedMercadoPagoNotification(rawBody, headers, this.webhookSecrets, this.livemode);
  }

  /**
   * A payment a notification named (its id, a number): `GET /v1/payments/{id}`. A preference (our session): its
   * payments, `GET /checkout/preferences/{id}` for our ids and its end, then
   * `GET /v1/payments/search?external_reference=…`, the one that decides taken (`decidingPayment`); none yet is
   * pending until the preference's end, then expired, at what the preference charges (its items' sum).
   */
  async retrieveSession(sessionId: string): Promise<PspSessionStatus> {
    if (/^\d+$/.test(sessionId)) {
      const payment = await this.call('lookup', () =>
        new this.sdk.Payment(this.config()).get({ id: sessionId }),
      ).catch((error: unknown) => {
        // A payment of another account (or none at all) is one this token cannot read.
        if (error instanceof PspOutageError && error.cause instanceof this.sdk.MPNotFoundError) {
          throw new InvalidNotificationError('Mercado Pago knows no such payment.', { unknownId: sessionId });
        }
        throw error;
      });
      return this.statusOf(sessionId, payment);
    }
    const { preference, payments } = await this.call('lookup', async () => {
      const found: Preference = await new this.sdk.Preference(this.config()).get({ preferenceId: sessionId });
      return { preference: found, payments: await this.paymentsOf(found.external_reference ?? '') };
    });
    const payment = decidingPayment(this.descriptor, payments);
    if (payment) return this.statusOf(sessionId, payment);
    const ended = Date.parse(preference.expiration_date_to ?? '') <= Date.now();
    return {
      id: sessionId,
      ...ourIds(preference.external_reference),
      state: ended ? 'expired' : 'pending',
      failure: ended ? { code: 'expired', message: 'The Mercado Pago preference expired unpaid.' } : null,
      paymentReference: null,
      amount: preferenceAmount(this.descriptor, preference.items),
      livemode: this.livemode,
    };
  }

  private async paymentsOf(reference: string): Promise<MercadoPagoPayment[]> {
    const options = { external_reference: reference, sort: 'date_created', criteria: 'desc' } as const;
    const page = await new this.sdk.Payment(this.config()).search({ options });
    return (page.results ?? []) as MercadoPagoPayment[];
  }

  private statusOf(sessionId: string, payment: MercadoPagoPayment): PspSessionStatus {
    if (payment.live_mode !== this.livemode) {
      throw new InvalidNotificationError('A Mercado Pago payment of the other mode.');
    }
    return {
      id: sessionId,
      ...ourIds(payment.external_reference),
      ...paymentState(this.descriptor, payment),
      paymentReference: payment.id === undefined ? null : String(payment.id),
      amount: chargedAmount(this.descriptor, payment),
      livemode: this.livemode,
    };
  }

  /**
   * `PUT /checkout/preferences/{id}` with `expiration_date_to` now: no payment can start on it. A payment already
   * under way (a Pix or cash payment generated on the page, payable until its own expiry) or paid is still read
   * (`GET /v1/payments/search`): with one, the preference is `refused`, for the caller to read which.
   */
  async expireSession(session: PspSession): Promise<SessionEnd> {
    const payments = await this.call('end', async () => {
      const now = mercadoPagoDate(new Date());
      const updatePreferenceRequest = { expires: true, expiration_date_to: now } as unknown as Parameters<
        InstanceType<MercadoPagoSdk['Preference']>['update']
      >[0]['updatePreferenceRequest'];
      const ended: Preference = await new this.sdk.Preference(this.config()).update({
        id: session.id,
        updatePreferenceRequest,
      });
      return this.paymentsOf(ended.external_reference ?? '');
    });
    return payments.some((payment) => UNDER_WAY.has(payment.status ?? '')) ? 'refused' : 'ended';
  }

  /**
   * `POST /v1/payments/{id}/refunds` of the payment, its amount in major units, our refund id as
   * `X-Idempotency-Key` (Mercado Pago requires one). A refund takes nothing of ours: the status answered names
   * our ids from the request; one read later names none (its reference is stored with the refund).
   */
  async refund(request: PspRefundRequest): Promise<PspRefundStatus> {
    const problem = amountProblem(this.descriptor.amounts, request.amount, 'refund');
    if (problem) throw new PspRefusalError(problem);
    const refund: MercadoPagoRefund = await this.call('refund', () =>
      new this.sdk.PaymentRefund(this.config(request.refundId)).create({
        payment_id: request.paymentReference,
        body: { amount: mercadoPagoNumber(this.descriptor, request.amount) },
      }),
    );
    return {
      ...refundStatus(refund, request.paymentReference),
      refundId: request.refundId,
      linkId: request.linkId,
    };
  }

  /** `GET /v1/payments/{payment id}/refunds/{refund id}`, from its reference `<payment id>/<refund id>`. */
  async retrieveRefund(reference: string): Promise<PspRefundStatus> {
    const [paymentId, refundId] = reference.split('/');
    if (!paymentId || !refundId) throw new PspOutageError(`No Mercado Pago refund reference: ${reference}`);
    const refund: MercadoPagoRefund = await this.call('lookup', () =>
      new this.sdk.PaymentRefund(this.config()).get({ payment_id: paymentId, refund_id: refundId }),
    );
    return refundStatus(refund, paymentId);
  }

  /** One call (or two that make one step), bounded by the PSP call budget, its failure in the closed set. */
  private call<T>(operation: PspOperation, request: () => Promise<T>): Promise<T> {
    return translatedCall('Mercado Pago', request, (error) => this.failure(error, operation));
  }

  /**
   * The SDK's errors (`MercadoPagoError`, with the HTTP `status`) in the closed set: 401 and 403 are a refused
   * token; a session or an end is refused by a 400 or 422 (its validation: an item, a date, a method); a refund by
   * any 4xx but those that leave it open (a 409 idempotency conflict among them); no answer (`MPConnectionError`,
   * status 0), 429 and 5xx are Mercado Pago failing.
   */
  private failure(error: unknown, operation: PspOperation): PspFailure {
    const status = error instanceof this.sdk.MercadoPagoError && error.status > 0 ? error.status : undefined;
    return pspFailure(error, operation, {
      psp: this.descriptor.displayName,
      status,
      reason: messageOf(error),
      refusal: status === 400 || status === 422,
      inProgress: error instanceof this.sdk.MPIdempotencyError,
    });
  }
}

/** What the payment charged, in our decimal form; an amount Mercado Pago could not have charged is no answer. */
function chargedAmount(
  descriptor: typeof mercadopago,
  payment: MercadoPagoPayment,
): PspSessionStatus['amount'] {
  if (payment.transaction_amount === undefined || !payment.currency_id) return null;
  try {
    return fromMercadoPagoNumber(descriptor, payment.transaction_amount, payment.currency_id);
  } catch (error) {
    throw new PspOutageError(`Mercado Pago answered payment ${payment.id} at ${messageOf(error)}`);
  }
}

function refundStatus(refund: MercadoPagoRefund, paymentId: string): PspRefundStatus {
  const state = refundState(refund.status);
  return {
    reference: refundReference(refund, paymentId),
    refundId: null,
    linkId: null,
    state,
    failureMessage: state === 'failed' ? `Mercado Pago: the refund was ${refund.status}` : null,
  };
}

/**
 * Mercado Pago for each connection whose credentials are stored under its `secret_name`. The SDK is loaded on the
 * first connection built; `MERCADOPAGO_API_URL` points it elsewhere through its one setting of where it calls,
 * `AppConfig.BASE_URL`, which is the whole process's (every Mercado Pago connection of a function calls the same
 * origin, as every other PSP's do).
 */
export function createFactory(runtime: PspRuntime, descriptor: typeof mercadopago) {
  return storedCredentialsFactory(descriptor, runtime.secrets, async (credentials, connection) => {
    const sdk = await import('mercadopago');
    if (runtime.apiUrl) {
      const { AppConfig } = (await import('mercadopago/dist/utils/config/index.js')) as {
        AppConfig: SdkAppConfig;
      };
      AppConfig.BASE_URL = runtime.apiUrl.replace(/\/$/, '');
    }
    return new MercadoPagoPsp(descriptor, sdk, credentials, connection);
  });
}
