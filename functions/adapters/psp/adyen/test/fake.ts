import { randomBytes } from 'node:crypto';
// The signer's own module, not the library's index: the index loads every Adyen API (a second of CPU per test file).
import * as hmacModule from '@adyen/api-library/lib/src/utils/hmacValidator.js';
import { type RecordedPspRequest, startFakePspServer } from '../../../../../test/support/fake-psp-server.ts';
import { type ContractExchange, loadPspContract } from '../../../../../test/support/psp-contract.ts';
import type { PspFakeDefinition } from '../../../../../test/support/psp-fakes.ts';
import { type FakeAdyenMandates, mountFakeMandates } from './fake-mandates.ts';

// A CommonJS module: Node's namespace holds its `exports` as the default, vitest's interop the class itself.
type Signer = import('@adyen/api-library/lib/src/utils/hmacValidator.js').default;
const hmacExport: unknown = hmacModule.default;
const HmacValidator = (
  typeof hmacExport === 'function' ? hmacExport : (hmacExport as { default: unknown }).default
) as new () => Signer;

export type FakePaymentLink = Record<string, unknown> & {
  id: string;
  /** As Adyen's Checkout API v72 `PaymentLinkResponse.status` enumerates them. */
  status: 'active' | 'completed' | 'expired' | 'paid' | 'paymentPending';
  reference: string;
  merchantAccount: string;
  amount: { value: number; currency: string };
};

export interface FakeRefund {
  pspReference: string;
  paymentPspReference: string;
  reference: string;
  amount: { value: number; currency: string };
}

export interface NotificationItem {
  additionalData?: Record<string, string>;
  amount: { value: number; currency: string };
  eventCode: string;
  eventDate: string;
  merchantAccountCode: string;
  merchantReference: string;
  originalReference?: string;
  pspReference: string;
  reason: string;
  success: 'true' | 'false';
}

export interface FakeAdyen {
  /** The origin the SDK's requests are sent to (their paths are kept). */
  url: string;
  requests: RecordedPspRequest[];
  /** Every request and answer, checked against Adyen/adyen-openapi (test/contract/adyen.trimmed.json). */
  exchanges: ContractExchange[];
  /** Requests Adyen's document refuses (answered as Adyen refuses them) and answers it does not allow (500s). */
  violations: string[];
  paymentLinks: Map<string, FakePaymentLink>;
  refunds: Map<string, FakeRefund>;
  /**
   * The buyer pays on the link: it completes, and the AUTHORISATION item Adyen would then send is returned. The
   * fields the link required (`requiredShopperFields`) are filled in as `shopper` typed them, else as the link
   * prefilled them, else as a default shopper would.
   */
  pay(linkId: string, shopper?: FakeShopper): NotificationItem;
  /**
   * Adyen refuses the buyer's try on the link: the link stays active (the buyer may try again), and the refused
   * AUTHORISATION item Adyen then sends is returned: `success` "false", the refusal reason's fixed text as `reason`,
   * and `additionalData.refusalReasonCode` (`code`), `merchantAdviceCode` (`advice`) and `refusalReasonRaw` (`raw`,
   * the issuer's raw answer) when given (a merchant who has Adyen send them).
   */
  refuse(
    linkId: string,
    refusal: { reason: string; code?: string; advice?: string; raw?: string },
  ): NotificationItem;
  /** The link's `expiresAt` passed unpaid: Adyen reads it `expired` (and sends no notification of it). */
  expire(linkId: string): void;
  /**
   * The item of a notification about a refund the fake received, as Adyen/adyen-openapi Webhooks-v1 shows them:
   * `succeeded` REFUND (success "true"), `refused` REFUND (success "false"), `failed` REFUND_FAILED and
   * `reversed` REFUNDED_REVERSED (both success "true": the event happened; either may follow a REFUND).
   */
  refundItem(
    refundPspReference: string,
    outcome: 'succeeded' | 'refused' | 'failed' | 'reversed',
  ): NotificationItem;
  /** A notification request as Adyen posts it: every item signed with `hmacKey` (hex). */
  notification(items: NotificationItem[], options: { hmacKey: string; live?: boolean }): string;
  outage: 'none' | 'hang' | 'error';
  /** Stored payment methods and the payments made with them (fake-mandates.ts). */
  mandates: FakeAdyenMandates;
  stop(): Promise<void>;
}

/** What a shopper types in the fields a payment link requires, in Adyen's shapes. */
export interface FakeShopper {
  shopperEmail?: string;
  telephoneNumber?: string;
  shopperName?: { firstName: string; lastName: string };
  billingAddress?: Record<string, string>;
  deliveryAddress?: Record<string, string>;
}

const DEFAULT_SHOPPER: Required<FakeShopper> = {
  shopperEmail: 'shopper@example.com',
  telephoneNumber: '+31 20 794 9999',
  shopperName: { firstName: 'Sam', lastName: 'Shopper' },
  billingAddress: {
    street: 'Simon Carmiggeltstraat',
    houseNumberOrName: '6-50',
    postalCode: '1011 DJ',
    city: 'Amsterdam',
    country: 'NL',
  },
  deliveryAddress: {
    street: 'Damrak',
    houseNumberOrName: '1',
    postalCode: '1012 LG',
    city: 'Amsterdam',
    country: 'NL',
  },
};

/** The shopper fields a link echoes as sent, before anyone pays (Adyen answers what it was given). */
const SHOPPER_FIELDS = [
  'requiredShopperFields',
  'shopperEmail',
  'shopperReference',
  'telephoneNumber',
  'shopperName',
  'billingAddress',
  'deliveryAddress',
] as const;

const pspReference = () => randomBytes(8).toString('hex').toUpperCase().slice(0, 16);

/**
 * A local server speaking Adyen's Checkout API v72 wire format for what the adapter uses
 * (docs.adyen.com/api-explorer/Checkout/72): `X-API-Key`, JSON bodies with amounts in minor units, payment
 * links (`POST /paymentLinks`, `GET` and `PATCH /paymentLinks/{id}`), refunds
 * (`POST /payments/{pspReference}/refunds`, answered `received`), errors as
 * `{ status, errorCode, message, errorType }`, `Idempotency-Key` replays; live paths carry the `/checkout`
 * prefix of live endpoints. Notifications are built as Adyen sends them, signed with the SDK's own HMAC code.
 */
export async function startFakeAdyen(options: {
  apiKeys: string[];
  merchantAccount: string;
}): Promise<FakeAdyen> {
  const paymentLinks = new Map<string, FakePaymentLink>();
  const refunds = new Map<string, FakeRefund>();
  const payments = new Map<string, { pspReference: string; link: FakePaymentLink }>();
  const replays = new Map<string, { status: number; body: unknown }>();
  const state = { outage: 'none' as FakeAdyen['outage'] };
  const error = (status: number, errorCode: string, message: string, errorType = 'validation') => ({
    status,
    body: { status, errorCode, message, errorType },
  });
  const mandates = mountFakeMandates({ merchantAccount: options.merchantAccount, error });

  const server = await startFakePspServer(
    'application/json',
    (request, url) => {
      if (state.outage === 'hang') return 'hang';
      if (state.outage === 'error') return error(500, '905', 'Internal error', 'internal');
      const key = request.headers['x-api-key'];
      if (typeof key !== 'string' || !options.apiKeys.includes(key)) {
        return error(401, '000', 'HTTP Status Response - Unauthorized', 'security');
      }
      const replayKey =
        typeof request.headers['idempotency-key'] === 'string'
          ? `${key} ${request.headers['idempotency-key']}`
          : undefined;
      if (replayKey && replays.has(replayKey))
        return replays.get(replayKey) as { status: number; body: unknown };
      const body = request.body ? (JSON.parse(request.body) as Record<string, unknown>) : {};
      const path = url.pathname.replace(/^\/checkout/, '');
      const answer = mandates.route(request.method, path, body, url) ?? route(request.method, path, body);
      if (replayKey && answer.status < 300) replays.set(replayKey, answer);
      return answer;
    },
    {
      document: loadPspContract(new URL('./contract/adyen.trimmed.json', import.meta.url)),
      basePath: /^(\/checkout)?\/v72(?=\/)/,
      // Adyen refuses a body with fields its structure lacks (400, 702), and a value its schema refuses (422).
      refuse: (violations) => {
        const unknown = violations.filter((violation) => violation.includes('unknown field'));
        return unknown.length > 0
          ? error(400, '702', `Structure contains the following unknown fields: ${unknown.join('; ')}`)
          : error(422, '000', violations.join('; '));
      },
    },
  );

  function route(method: string, path: string, body: Record<string, unknown>) {
    const links = /^\/v72\/paymentLinks(?:\/(PL[0-9A-F]+))?$/.exec(path);
    const refund = /^\/v72\/payments\/([0-9A-Z]+)\/refunds$/.exec(path);
    if (links && !links[1] && method === 'POST') return createLink(body);
    if (links?.[1]) {
      const link = paymentLinks.get(links[1]);
      if (!link) return error(422, '14_012', 'The requested payment link does not exist');
      if (method === 'GET') return { status: 200, body: link };
      if (method === 'PATCH') {
        if (body.status !== 'expired') return error(422, '14_030', 'Invalid status value');
        if (link.status !== 'active')
          return error(422, '14_031', `Cannot update a payment link with status ${link.status}`);
        link.status = 'expired';
        link.updatedAt = new Date().toISOString();
        return { status: 200, body: link };
      }
    }
    if (refund?.[1] && method === 'POST') return createRefund(refund[1], body);
    return error(404, '000', 'Not found', 'validation');
  }

  function createLink(body: Record<string, unknown>) {
    const amount = body.amount as { value?: unknown; currency?: unknown } | undefined;
    if (!Number.isInteger(amount?.value) || typeof amount?.currency !== 'string') {
      return error(422, '100', 'Required field amount is not provided or is invalid');
    }
    if (body.merchantAccount !== options.merchantAccount) {
      return error(403, '901', 'Invalid Merchant Account', 'security');
    }
    if (typeof body.reference !== 'string')
      return error(422, '130', 'Required field reference is not provided');
    // Adyen takes a language and a country code (`nl-NL`); anything else is not a shopper locale.
    if (body.shopperLocale !== undefined && !/^[a-z]{2}[-_][A-Z]{2}$/.test(String(body.shopperLocale))) {
      return error(422, '702', 'Unable to parse the shopperLocale');
    }
    if (
      body.allowedPaymentMethods !== undefined &&
      (!Array.isArray(body.allowedPaymentMethods) ||
        body.allowedPaymentMethods.some((method) => typeof method !== 'string' || !method))
    ) {
      return error(422, '702', 'allowedPaymentMethods must be a list of payment method types');
    }
    // LineItem: amounts in minor units; including = excluding + tax; taxPercentage in minor units of a percent.
    for (const item of (body.lineItems ?? []) as Record<string, unknown>[]) {
      const { amountIncludingTax: including, amountExcludingTax: excluding, taxAmount: tax, quantity } = item;
      if (![including, excluding, tax, quantity].every(Number.isInteger) || (quantity as number) < 1) {
        return error(422, '702', 'Invalid lineItems');
      }
      if ((including as number) !== (excluding as number) + (tax as number)) {
        return error(422, '702', 'lineItems: amountIncludingTax must be amountExcludingTax plus taxAmount');
      }
    }
    const storing = mandates.linkProblem(body);
    if (storing) return storing;
    const id = `PL${randomBytes(8).toString('hex').toUpperCase()}`;
    const link: FakePaymentLink = {
      amount: { value: amount.value as number, currency: amount.currency },
      description: body.description,
      expiresAt: body.expiresAt ?? new Date(Date.now() + 86_400_000).toISOString(),
      id,
      merchantAccount: body.merchantAccount,
      metadata: body.metadata,
      reference: body.reference,
      returnUrl: body.returnUrl,
      shopperLocale: body.shopperLocale,
      lineItems: body.lineItems,
      allowedPaymentMethods: body.allowedPaymentMethods,
      reusable: body.reusable ?? false,
      ...mandates.linkFields(body),
      ...Object.fromEntries(
        SHOPPER_FIELDS.flatMap((field) => (body[field] === undefined ? [] : [[field, body[field]]])),
      ),
      status: 'active',
      updatedAt: new Date().toISOString(),
      url: `https://test.adyen.link/${id}`,
    };
    paymentLinks.set(id, link);
    return { status: 201, body: link };
  }

  function createRefund(paymentPspReference: string, body: Record<string, unknown>) {
    const payment = payments.get(paymentPspReference);
    if (!payment) return error(422, '167', 'Original pspReference required for this operation');
    // Adyen/adyen-openapi CheckoutService-v71 `PaymentRefundRequest`: `amount` and `merchantAccount` required.
    if (body.merchantAccount !== options.merchantAccount) {
      return error(403, '901', 'Invalid Merchant Account', 'security');
    }
    const amount = body.amount as { value?: unknown; currency?: unknown } | undefined;
    if (!amount || !Number.isInteger(amount.value) || typeof amount.currency !== 'string') {
      return error(422, '100', 'Required field amount is not provided or is invalid');
    }
    if (amount.currency !== payment.link.amount.currency)
      return error(422, '137', 'Invalid amount specified');
    const created: FakeRefund = {
      pspReference: pspReference(),
      paymentPspReference,
      reference: String(body.reference ?? ''),
      amount: { value: amount.value as number, currency: amount.currency },
    };
    refunds.set(created.pspReference, created);
    return {
      status: 201,
      body: {
        merchantAccount: body.merchantAccount,
        paymentPspReference,
        pspReference: created.pspReference,
        reference: created.reference,
        status: 'received',
        amount,
      },
    };
  }

  return {
    url: server.url,
    requests: server.requests,
    exchanges: server.exchanges,
    violations: server.violations,
    paymentLinks,
    refunds,
    pay(linkId, shopper = {}) {
      const link = paymentLinks.get(linkId);
      if (!link) throw new Error(`no payment link ${linkId}`);
      link.status = 'completed';
      // A field the link prefilled is what the shopper keeps, unless the test says they typed another.
      const prefilled = Object.fromEntries(
        SHOPPER_FIELDS.flatMap((field) => (link[field] ? [[field, link[field]]] : [])),
      );
      const typed = { ...DEFAULT_SHOPPER, ...prefilled, ...shopper } as Required<FakeShopper>;
      for (const field of (link.requiredShopperFields ?? []) as (keyof FakeShopper)[]) {
        link[field] = typed[field];
      }
      const reference = pspReference();
      payments.set(reference, { pspReference: reference, link });
      return {
        additionalData: { paymentLinkId: link.id, paymentMethod: 'visa', ...mandates.paid(link) },
        amount: link.amount,
        eventCode: 'AUTHORISATION',
        eventDate: new Date().toISOString(),
        merchantAccountCode: link.merchantAccount,
        merchantReference: link.reference,
        pspReference: reference,
        reason: '012345:1111:03/2030',
        success: 'true',
      };
    },
    refuse(linkId, { reason, code, advice, raw }) {
      const link = paymentLinks.get(linkId);
      if (!link) throw new Error(`no payment link ${linkId}`);
      return {
        additionalData: {
          paymentLinkId: link.id,
          paymentMethod: 'visa',
          ...(code === undefined ? {} : { refusalReasonCode: code }),
          ...(advice === undefined ? {} : { merchantAdviceCode: advice }),
          ...(raw === undefined ? {} : { refusalReasonRaw: raw }),
        },
        amount: link.amount,
        eventCode: 'AUTHORISATION',
        eventDate: new Date().toISOString(),
        merchantAccountCode: link.merchantAccount,
        merchantReference: link.reference,
        pspReference: pspReference(),
        reason,
        success: 'false',
      };
    },
    expire(linkId) {
      const link = paymentLinks.get(linkId);
      if (!link) throw new Error(`no payment link ${linkId}`);
      link.status = 'expired';
    },
    refundItem(refundPspReference, outcome) {
      const refund = refunds.get(refundPspReference);
      if (!refund) throw new Error(`no refund ${refundPspReference}`);
      const eventCodes = {
        succeeded: 'REFUND',
        refused: 'REFUND',
        failed: 'REFUND_FAILED',
        reversed: 'REFUNDED_REVERSED',
      };
      const reasons = {
        succeeded: '',
        refused: 'Insufficient balance on merchant account',
        failed: 'Refund Failed',
        reversed: 'Refund returned by the issuer',
      };
      return {
        amount: refund.amount,
        eventCode: eventCodes[outcome],
        eventDate: new Date().toISOString(),
        merchantAccountCode: options.merchantAccount,
        merchantReference: refund.reference,
        originalReference: refund.paymentPspReference,
        pspReference: refund.pspReference,
        reason: reasons[outcome],
        success: outcome === 'refused' ? 'false' : 'true',
      };
    },
    notification(items, { hmacKey, live = false }) {
      const signer = new HmacValidator();
      return JSON.stringify({
        live: String(live),
        notificationItems: items.map((item) => {
          const signed = { ...item, additionalData: { ...item.additionalData } };
          signed.additionalData.hmacSignature = signer.calculateHmac(signed as never, hmacKey);
          return { NotificationRequestItem: signed };
        }),
      });
    },
    get outage() {
      return state.outage;
    },
    set outage(value) {
      state.outage = value;
    },
    mandates: mandates.controls,
    stop: server.stop,
  };
}

/** The fake as the test stacks start it (test/support/psp-stack.ts), with credentials it accepts. */
export const ADYEN_FAKE = {
  provider: 'adyen',
  credentials: {
    api_key: 'AQE-fakepsp-adyen-test-key',
    merchant_account: 'AdyenFakePspECOM',
    hmac_key: '44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056',
    environment: 'test',
  },
  async start() {
    const { api_key, merchant_account } = ADYEN_FAKE.credentials;
    const fake = await startFakeAdyen({ apiKeys: [api_key], merchantAccount: merchant_account });
    return Object.assign(fake, { apiUrl: fake.url });
  },
} as const satisfies PspFakeDefinition;
