import { randomBytes } from 'node:crypto';
import { error, type FakePaypalOrder, type FakePaypalPayer, type Money, paypalId } from './fake-answers.ts';

// The fake PayPal's vault (./fake.ts mounts it): an order that asks `attributes.vault` vaults the payer's wallet
// when it is captured; an order paid with `payment_source.paypal.vault_id` is a merchant-initiated charge,
// captured on creation as PayPal does; Vault v3 shows a payment token. Every answer is judged by PayPal's Orders
// and Vault documents (test/contract/).

/** A vaulted PayPal wallet: a payment token under a PayPal customer. */
export interface FakePaypalToken {
  id: string;
  customer: string;
  payer: FakePaypalPayer;
  /** The payer removed the merchant from their account: the token is gone (404). */
  deleted: boolean;
  /** The payer's account was closed: every charge is refused (PAYER_ACCOUNT_LOCKED_OR_CLOSED). */
  closed: boolean;
  /** PayPal vaulted it after the capture, which shows it `APPROVED`; until then the vault has no such token. */
  vaulted_later: boolean;
  vaulting: boolean;
}

/**
 * What the next renewal on any token meets (once), as the fixture interface names the outcomes, or a 422 with
 * another of create-order's issues (its description must be in ./fake-answers.ts).
 */
export type FakeRenewalOutcome =
  | 'soft_decline'
  | 'hard_decline'
  | 'authentication_required'
  | 'pending'
  | 'revoked'
  | { issue: string };

/** A renewal that reached PayPal (a replayed `PayPal-Request-Id` is none). */
export interface FakePaypalRenewal {
  token: string;
  amount: Money;
  /** The order's id, when one was made (none for a 422 or 404). */
  orderId: string | null;
  /** The capture's status, `PAYER_ACTION_REQUIRED`, or the 422's issue. */
  state: string;
}

export interface FakePaypalVault {
  tokens: Map<string, FakePaypalToken>;
  renewals: FakePaypalRenewal[];
  /** The next renewal meets this outcome; later ones are charged as usual. */
  nextCharge(outcome: FakeRenewalOutcome): void;
  /** The next renewal is made and its answer lost (a 503 after the fact), as a connection that dropped. */
  loseNextAnswer(): void;
  /** The next vaulting order's token is made later (`finishVaulting`), as PayPal may vault asynchronously. */
  vaultLater(): void;
  finishVaulting(): void;
  /** Settles a renewal whose capture is `PENDING`, and notifies its `PAYMENT.CAPTURE.*` event. */
  settle(orderId: string, outcome: 'succeeded' | 'failed'): void;
}

/** What the fake lends its vault: its orders, the invoice ids it took, its page and its notifications. */
interface FakeContext {
  orders: Map<string, FakePaypalOrder>;
  invoices: Set<string>;
  pageUrl: () => string;
  notify: (eventType: string, orderId: string) => void;
  /** An order as the fake's answers show it. */
  render: (order: FakePaypalOrder) => unknown;
}

type Answer = { status: number; body: unknown };
type VaultInstruction = { usage_type?: string; store_in_vault?: string };
type Wallet = { vault_id?: string; attributes?: { vault?: VaultInstruction } };

const vaultId = () =>
  randomBytes(8)
    .toString('base64url')
    .replace(/[^a-z0-9]/gi, '7')
    .slice(0, 10);

export function fakePaypalVault(context: FakeContext) {
  const tokens = new Map<string, FakePaypalToken>();
  /** The orders that asked to vault the wallet, and the token each made once captured. */
  const vaulting = new Map<string, string | null>();
  const renewals: FakePaypalRenewal[] = [];
  let next: FakeRenewalOutcome | undefined;
  let loseNext = false;
  let later = false;

  const tokenLink = (id: string) => ({
    href: `https://fake.paypal/v3/vault/payment-tokens/${id}`,
    rel: 'self',
    method: 'GET',
  });
  const vaultOf = (token: FakePaypalToken, status?: string) => ({
    id: token.id,
    ...(status ? { status, links: [tokenLink(token.id)] } : {}),
    customer: { id: token.customer },
  });

  /** A renewal's order, made paid at once: the capture is the outcome the test set. */
  function chargeToken(token: FakePaypalToken, unit: Record<string, unknown>, now: string): Answer {
    const amount = unit.amount as Money;
    const order: FakePaypalOrder = {
      id: paypalId(),
      intent: 'CAPTURE',
      status: 'COMPLETED',
      purchase_units: [{ reference_id: 'default', ...unit }],
      return_url: context.pageUrl(),
      cancel_url: context.pageUrl(),
      create_time: now,
      payer: token.payer,
      vault_token: token.id,
    };
    if (next === 'authentication_required') order.status = 'PAYER_ACTION_REQUIRED';
    else {
      const status = next === 'pending' ? 'PENDING' : 'COMPLETED';
      order.capture = { id: paypalId(), status, amount: { ...amount }, refunded: 0n };
    }
    next = undefined;
    context.orders.set(order.id, order);
    const state = order.capture?.status ?? order.status;
    renewals.push({ token: token.id, amount, orderId: order.id, state });
    if (order.capture) context.notify(`PAYMENT.CAPTURE.${order.capture.status}`, order.id);
    return { status: 201, body: context.render(order) };
  }

  function refused(token: FakePaypalToken, amount: Money, issue: string): Answer {
    renewals.push({ token: token.id, amount, orderId: null, state: issue });
    return error(422, issue);
  }

  const vault = {
    tokens,
    renewals,
    nextCharge(outcome: FakeRenewalOutcome) {
      next = outcome;
    },
    loseNextAnswer() {
      loseNext = true;
    },
    vaultLater() {
      later = true;
    },
    finishVaulting() {
      for (const token of tokens.values()) token.vaulting = false;
    },
    settle(orderId: string, outcome: 'succeeded' | 'failed') {
      const capture = context.orders.get(orderId)?.capture;
      if (capture?.status !== 'PENDING') throw new Error(`No pending fake PayPal renewal ${orderId}`);
      capture.status = outcome === 'succeeded' ? 'COMPLETED' : 'DECLINED';
      const renewal = renewals.find((candidate) => candidate.orderId === orderId);
      if (renewal) renewal.state = capture.status;
      context.notify(`PAYMENT.CAPTURE.${outcome === 'succeeded' ? 'COMPLETED' : 'DENIED'}`, orderId);
    },

    /**
     * `POST /v2/checkout/orders` with `vault_id`: PayPal requires a `PayPal-Request-Id` to pay an order on creation,
     * answers 404 for a token it does not have, and refuses a closed account. Undefined: not a renewal.
     */
    createOrder(body: Record<string, unknown>, requestId: string | undefined, now: string) {
      const wallet = (body.payment_source as { paypal?: Wallet } | undefined)?.paypal;
      if (wallet?.vault_id === undefined) return undefined;
      if (!requestId) return error(400, 'PAYPAL_REQUEST_ID_REQUIRED');
      const token = tokens.get(wallet.vault_id);
      if (next === 'revoked' && token) token.deleted = true;
      if (!token || token.deleted) {
        next = undefined;
        return error(404, 'INVALID_RESOURCE_ID');
      }
      const unit = (body.purchase_units as Record<string, unknown>[])[0] as Record<string, unknown>;
      const amount = unit.amount as Money;
      if (typeof unit.invoice_id === 'string' && context.invoices.has(unit.invoice_id)) {
        return error(422, 'DUPLICATE_INVOICE_ID');
      }
      if (typeof unit.invoice_id === 'string') context.invoices.add(unit.invoice_id);
      if (next === 'hard_decline') token.closed = true;
      const issue = token.closed
        ? 'PAYER_ACCOUNT_LOCKED_OR_CLOSED'
        : next === 'soft_decline'
          ? 'INSTRUMENT_DECLINED'
          : typeof next === 'object'
            ? next.issue
            : undefined;
      if (issue) {
        next = undefined;
        return refused(token, amount, issue);
      }
      return chargeToken(token, unit, now);
    },

    /** An order created with `attributes.vault` is vaulted once captured (`store_in_vault: ON_SUCCESS`). */
    created(orderId: string, body: Record<string, unknown>) {
      const wallet = (body.payment_source as { paypal?: Wallet } | undefined)?.paypal;
      if (wallet?.attributes?.vault) vaulting.set(orderId, null);
    },

    captured(order: FakePaypalOrder) {
      if (!vaulting.has(order.id) || !order.payer) return;
      const token: FakePaypalToken = {
        id: vaultId(),
        customer: vaultId(),
        payer: order.payer,
        deleted: false,
        closed: false,
        vaulted_later: later,
        vaulting: later,
      };
      later = false;
      tokens.set(token.id, token);
      vaulting.set(order.id, token.id);
    },

    /** What an order's `payment_source.paypal` adds: the vault of a vaulting order, or the renewal's token. */
    walletOf(order: FakePaypalOrder) {
      const id = order.vault_token ?? vaulting.get(order.id);
      const token = id ? tokens.get(id) : undefined;
      if (!token) return {};
      // The order keeps what it said at the capture: a token vaulted later stays `APPROVED` there.
      const status = order.vault_token ? undefined : token.vaulted_later ? 'APPROVED' : 'VAULTED';
      return { attributes: { vault: vaultOf(token, status) } };
    },

    /** Vault v3: a payment token as `GET /v3/vault/payment-tokens/{id}` shows it. Undefined: not the vault. */
    route(method: string, path: string): Answer | undefined {
      const id = /^\/v3\/vault\/payment-tokens\/([^/]+)$/.exec(path)?.[1];
      if (id === undefined || method !== 'GET') return undefined;
      const token = tokens.get(id);
      if (!token || token.deleted || token.vaulting) return error(404, 'INVALID_RESOURCE_ID');
      const { email_address, account_id, name, address } = token.payer;
      return {
        status: 200,
        body: {
          id: token.id,
          customer: { id: token.customer },
          payment_source: { paypal: { email_address, account_id, name, address } },
          links: [tokenLink(token.id)],
        },
      };
    },

    /** The answer as sent: lost once when asked (`loseNextAnswer`), after PayPal made the charge. */
    sent(answer: Answer, path: string, method: string): Answer {
      if (!loseNext || method !== 'POST' || path !== '/v2/checkout/orders') return answer;
      loseNext = false;
      return error(503, 'SERVICE_UNAVAILABLE');
    },
  };
  return vault satisfies FakePaypalVault;
}
