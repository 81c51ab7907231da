import { randomBytes } from 'node:crypto';

/**
 * What the fake Adyen (fake.ts) adds for mandates, as Adyen's Checkout API v72 has it (docs/subscriptions.md#adyen):
 * a payment link that stores the payment method (`storePaymentMethodMode`, `recurringProcessingModel`,
 * `shopperReference`), the token its payment creates (named in the AUTHORISATION's `additionalData`, outside the
 * signature), `POST /payments` with the token (`ContAuth`), `GET /storedPaymentMethods` and
 * `DELETE /storedPaymentMethods/{id}`. Every request and answer is judged by the contract as fake.ts's are.
 */

type Answer = { status: number; body: unknown };
/** What this needs of fake.ts's payment link and notification item (its own types: fake.ts imports this file). */
type StoringLink = Record<string, unknown> & { merchantAccount: string };
interface AuthorisationItem {
  additionalData: Record<string, string>;
  amount: { value: number; currency: string };
  eventCode: 'AUTHORISATION';
  eventDate: string;
  merchantAccountCode: string;
  merchantReference: string;
  pspReference: string;
  reason: string;
  success: 'true' | 'false';
}
type ErrorAnswer = (status: number, errorCode: string, message: string, errorType?: string) => Answer;

export interface FakeToken {
  id: string;
  shopperReference: string;
  merchantAccount: string;
  type: string;
  brand: string;
  lastFour: string;
  /** Deleted by the merchant, or disabled by Adyen or the issuer: a payment with it is refused with `800`. */
  disabled: boolean;
}

/** A payment made with a token (`POST /payments`), once per idempotency key (replays are not new ones). */
export interface FakeRenewal {
  pspReference: string;
  merchantReference: string;
  tokenId: string;
  amount: { value: number; currency: string };
  resultCode: string;
  refusalReason?: string;
}

/** What the next payment with a token is answered, as Adyen would (or a `PaymentResponse` of the test's own). */
export type FakeChargeOutcome =
  | 'soft_decline'
  | 'hard_decline'
  | 'authentication_required'
  | 'pending'
  | 'revoked'
  | FakeChargeAnswer
  | FakeChargeError;

/** An error Adyen answers the payment with instead (a validation error, `704` for a key still in progress, a 429). */
export interface FakeChargeError {
  status: number;
  errorCode: string;
  message: string;
}

export interface FakeChargeAnswer {
  resultCode: string;
  refusalReasonCode?: string;
  refusalReason?: string;
  additionalData?: Record<string, string>;
}

const ANSWERS: Record<Exclude<FakeChargeOutcome, object | 'revoked'>, FakeChargeAnswer> = {
  soft_decline: {
    resultCode: 'Refused',
    refusalReasonCode: '12',
    refusalReason: 'Not enough balance',
    additionalData: {
      refusalReasonRaw: '51 : Insufficient funds/over credit limit',
      merchantAdviceCode: '02: Cannot approve at this time, try again later',
    },
  },
  hard_decline: { resultCode: 'Refused', refusalReasonCode: '6', refusalReason: 'Expired Card' },
  authentication_required: {
    resultCode: 'Refused',
    refusalReasonCode: '38',
    refusalReason: 'Authentication required',
  },
  pending: { resultCode: 'Received' },
};

export interface FakeAdyenMandates {
  tokens: Map<string, FakeToken>;
  renewals: FakeRenewal[];
  /** The next payment with any token is answered so (one payment each, in the order given). */
  nextCharge(outcome: FakeChargeOutcome): void;
  /** Adyen or the issuer disabled the token. */
  disableToken(id: string): void;
  /** The AUTHORISATION item of a renewal (no `paymentLinkId`; a refusal's text in `reason`), as Adyen sends it. */
  renewalItem(pspReference: string, outcome?: 'succeeded' | 'failed'): AuthorisationItem;
}

const token16 = () =>
  randomBytes(12)
    .toString('base64url')
    .toUpperCase()
    .replace(/[^0-9A-Z]/g, '7')
    .slice(0, 16);

export function mountFakeMandates(options: { merchantAccount: string; error: ErrorAnswer }) {
  const { error } = options;
  const tokens = new Map<string, FakeToken>();
  const renewals: FakeRenewal[] = [];
  const next: FakeChargeOutcome[] = [];

  /** Adyen's rule (`PaymentLinkRequest.storePaymentMethodMode`): storing needs a model and a shopper reference. */
  function linkProblem(body: Record<string, unknown>): Answer | undefined {
    const mode = body.storePaymentMethodMode;
    if (mode !== 'askForConsent' && mode !== 'enabled') return undefined;
    if (body.recurringProcessingModel === undefined) {
      return error(422, '702', 'recurringProcessingModel is required when storing the payment method');
    }
    if (typeof body.shopperReference !== 'string') {
      return error(422, '702', 'shopperReference is required when storing the payment method');
    }
    return undefined;
  }

  /** The storing fields a link echoes (its `shopperReference` is echoed with the shopper fields). */
  const linkFields = (body: Record<string, unknown>) =>
    Object.fromEntries(
      ['storePaymentMethodMode', 'recurringProcessingModel'].flatMap((field) =>
        body[field] === undefined ? [] : [[field, body[field]]],
      ),
    );

  /** The token a storing link's payment creates, as its AUTHORISATION's `additionalData` names it. */
  function paid(link: StoringLink): Record<string, string> {
    if (link.storePaymentMethodMode !== 'enabled' || typeof link.shopperReference !== 'string') return {};
    const token: FakeToken = {
      id: token16(),
      shopperReference: link.shopperReference,
      merchantAccount: link.merchantAccount,
      type: 'scheme',
      brand: 'visa',
      lastFour: '1111',
      disabled: false,
    };
    tokens.set(token.id, token);
    return {
      'tokenization.storedPaymentMethodId': token.id,
      'tokenization.shopperReference': token.shopperReference,
      'tokenization.store.operationType': 'created',
      'recurring.recurringDetailReference': token.id,
      'recurring.shopperReference': token.shopperReference,
      recurringProcessingModel: String(link.recurringProcessingModel),
    };
  }

  const liveToken = (id: unknown, shopperReference: unknown) => {
    const token = typeof id === 'string' ? tokens.get(id) : undefined;
    return token && !token.disabled && token.shopperReference === shopperReference ? token : undefined;
  };

  function pay(body: Record<string, unknown>): Answer {
    if (body.merchantAccount !== options.merchantAccount) {
      return error(403, '901', 'Invalid Merchant Account', 'security');
    }
    const method = body.paymentMethod as { type?: unknown; storedPaymentMethodId?: unknown };
    if (body.shopperInteraction !== 'ContAuth' || body.recurringProcessingModel === undefined) {
      return error(
        422,
        '702',
        'A stored payment method is paid with ContAuth and a recurringProcessingModel',
      );
    }
    const outcome = next.shift();
    if (typeof outcome === 'object' && 'errorCode' in outcome) {
      return error(
        outcome.status,
        outcome.errorCode,
        outcome.message,
        outcome.status < 500 ? 'validation' : 'internal',
      );
    }
    if (outcome === 'revoked') {
      const revoked = tokens.get(String(method.storedPaymentMethodId));
      if (revoked) revoked.disabled = true;
    }
    const token = liveToken(method.storedPaymentMethodId, body.shopperReference);
    if (!token || method.type !== token.type) return error(422, '800', 'Contract not found');
    const answer =
      typeof outcome === 'object'
        ? outcome
        : outcome && outcome !== 'revoked'
          ? ANSWERS[outcome]
          : { resultCode: 'Authorised' };
    const amount = body.amount as { value: number; currency: string };
    const renewal: FakeRenewal = {
      pspReference: token16(),
      merchantReference: String(body.reference),
      tokenId: token.id,
      amount,
      resultCode: answer.resultCode,
      ...(answer.refusalReason ? { refusalReason: answer.refusalReason } : {}),
    };
    renewals.push(renewal);
    return {
      status: 200,
      body: {
        ...answer,
        pspReference: renewal.pspReference,
        merchantReference: renewal.merchantReference,
        amount,
      },
    };
  }

  function list(url: URL): Answer {
    const shopperReference = url.searchParams.get('shopperReference');
    const merchantAccount = url.searchParams.get('merchantAccount');
    if (!shopperReference || merchantAccount !== options.merchantAccount) {
      return error(422, '702', 'shopperReference and merchantAccount are required');
    }
    const held = [...tokens.values()].filter(
      (token) => !token.disabled && token.shopperReference === shopperReference,
    );
    return {
      status: 200,
      body: {
        merchantAccount,
        shopperReference,
        storedPaymentMethods: held.map((token) => ({
          id: token.id,
          type: token.type,
          brand: token.brand,
          lastFour: token.lastFour,
          expiryMonth: '03',
          expiryYear: '2030',
          holderName: 'Sam Shopper',
          shopperReference: token.shopperReference,
          supportedRecurringProcessingModels: ['Subscription', 'CardOnFile'],
        })),
      },
    };
  }

  function remove(id: string, url: URL): Answer {
    const token = liveToken(id, url.searchParams.get('shopperReference'));
    // The document gives this operation a 204 only: a token it does not hold is removed all the same.
    if (token && url.searchParams.get('merchantAccount') === options.merchantAccount) token.disabled = true;
    return { status: 204, body: undefined };
  }

  function route(method: string, path: string, body: Record<string, unknown>, url: URL) {
    if (path === '/v72/payments' && method === 'POST') return pay(body);
    if (path === '/v72/storedPaymentMethods' && method === 'GET') return list(url);
    const stored = /^\/v72\/storedPaymentMethods\/([0-9A-Z]+)$/.exec(path);
    if (stored?.[1] && method === 'DELETE') return remove(stored[1], url);
    return undefined;
  }

  const controls: FakeAdyenMandates = {
    tokens,
    renewals,
    nextCharge: (outcome) => next.push(outcome),
    disableToken(id) {
      const token = tokens.get(id);
      if (!token) throw new Error(`no token ${id}`);
      token.disabled = true;
    },
    renewalItem(pspReference, outcome) {
      const renewal = renewals.find((made) => made.pspReference === pspReference);
      if (!renewal) throw new Error(`no renewal ${pspReference}`);
      const success =
        (outcome ?? (renewal.resultCode === 'Authorised' ? 'succeeded' : 'failed')) === 'succeeded';
      return {
        additionalData: { paymentMethod: 'visa', shopperInteraction: 'ContAuth' },
        amount: renewal.amount,
        eventCode: 'AUTHORISATION',
        eventDate: new Date().toISOString(),
        merchantAccountCode: options.merchantAccount,
        merchantReference: renewal.merchantReference,
        pspReference,
        reason: success ? '' : (renewal.refusalReason ?? 'Refused'),
        success: success ? 'true' : 'false',
      };
    },
  };
  return { linkProblem, linkFields, paid, route, controls };
}
