import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadPspContract, type PspContract } from '../../../../../test/support/psp-contract.ts';

// What the fake PayPal (./fake.ts) answers besides its objects: its errors, the documents that judge it, the rules
// of a purchase unit its documents cannot say, and its approval page.

export type Money = { currency_code: string; value: string };

export interface FakePaypalPayer {
  email_address: string;
  account_id: string;
  name: { given_name: string; surname: string };
  address: { country_code: string };
}

export type FakePaypalOrder = {
  id: string;
  intent: string;
  status: 'PAYER_ACTION_REQUIRED' | 'APPROVED' | 'COMPLETED' | 'VOIDED';
  purchase_units: Record<string, unknown>[];
  return_url: string;
  cancel_url: string;
  /** The capture, once made: its status is what the capture answered (`captureOutcome`). */
  capture?: { id: string; status: string; amount: Money; refunded: bigint; fee?: Money };
  create_time: string;
  /** The e-mail the order offered as the login (`payment_source.paypal.email_address`). */
  prefilled_email?: string;
  /** The language of PayPal's page (`payment_source.paypal.experience_context.locale`). */
  locale?: string;
  /** The PayPal account that approved the order, as PayPal shows it in `payment_source.paypal`. */
  payer?: FakePaypalPayer;
  /** A renewal's: the vaulted token it was paid with (`payment_source.paypal.vault_id`, ./fake-mandates.ts). */
  vault_token?: string;
};

/** PayPal's error body: `name`, its fixed `message`, and the `details` that say which `issue`. */
const ERRORS: Record<number, [string, string]> = {
  400: ['INVALID_REQUEST', 'Request is not well-formed, syntactically incorrect, or violates schema.'],
  401: [
    'AUTHENTICATION_FAILURE',
    'Authentication failed due to missing authorization header, or invalid authentication credentials.',
  ],
  404: ['RESOURCE_NOT_FOUND', 'The specified resource does not exist.'],
  422: [
    'UNPROCESSABLE_ENTITY',
    'The requested action could not be performed, semantically incorrect, or failed business validation.',
  ],
  503: ['SERVICE_UNAVAILABLE', 'Service Unavailable.'],
};
/** Each issue's description, as PayPal's documents enumerate it (the contract holds the fake to the exact text). */
const DESCRIPTIONS: Record<string, string> = {
  AMOUNT_MISMATCH:
    'Should equal item_total + tax_total + shipping + handling + insurance - shipping_discount - discount.',
  CAPTURE_FULLY_REFUNDED: 'The capture has already been fully refunded',
  DECIMAL_PRECISION: 'If the currency supports decimals, only two decimal place precision is supported.',
  DUPLICATE_INVOICE_ID:
    'Duplicate Invoice ID detected. To avoid a potential duplicate transaction your account setting requires that Invoice Id be unique for each transaction.',
  INSTRUMENT_DECLINED:
    "The instrument presented  was either declined by the processor or bank, or it can't be used for this payment.",
  INVALID_PARAMETER_SYNTAX: 'The value of a field does not conform to the expected format.',
  INVALID_RESOURCE_ID: 'Specified resource ID does not exist. Please check the resource ID and try again.',
  ITEM_TOTAL_MISMATCH:
    'Should equal sum of (unit_amount * quantity) across all items for a given purchase_unit.',
  ITEM_TOTAL_REQUIRED:
    'If item details are specified (items.unit_amount and items.quantity) corresponding amount.breakdown.item_total is required.',
  ORDER_ALREADY_CAPTURED: "Order already captured.If 'intent=CAPTURE' only one capture per order is allowed.",
  ORDER_NOT_APPROVED:
    "Payer has not yet approved the Order for payment. Please redirect the payer to the 'rel':'approve' url returned as part of the HATEOAS links within the Create Order call or provide a valid `payment_source` in the request.",
  REFUND_AMOUNT_EXCEEDED:
    'The refund amount must be less than or equal to the capture amount that has not yet been refunded.',
  INVALID_TOKEN: 'Access Token not found in cache.',
  PAYER_ACTION_REQUIRED: 'Transaction cannot complete successfully, instruct the buyer to return to PayPal.',
  PAYER_ACCOUNT_LOCKED_OR_CLOSED: 'The payer account cannot be used for this transaction.',
  MAX_NUMBER_OF_PAYMENT_ATTEMPTS_EXCEEDED: 'You have exceeded the maximum number of payment attempts.',
  PAYEE_BLOCKED_TRANSACTION:
    'The Fraud settings for this seller are such that this payment cannot be executed.',
  PAYPAL_REQUEST_ID_REQUIRED:
    "A PayPal-Request-Id is required if you are trying to process payment for an Order. Please specify a PayPal-Request-Id or Create the Order without a 'payment_source' specified.",
};
export const error = (status: number, issue: string) => {
  const [name, message] = ERRORS[status] ?? ['INTERNAL_SERVER_ERROR', 'An internal server error occurred.'];
  const description = DESCRIPTIONS[issue] ?? issue;
  return { status, body: { name, message, debug_id: hex(7), details: [{ issue, description }] } };
};
export const hex = (bytes: number) => randomBytes(bytes).toString('hex');
export const paypalId = () =>
  randomBytes(9)
    .toString('base64url')
    .toUpperCase()
    .replace(/[^A-Z0-9]/g, '7')
    .slice(0, 17);
export const ZERO_DECIMAL = new Set(['JPY', 'HUF', 'TWD']);
export const minor = (money: Money) => BigInt(money.value.replace('.', ''));

/**
 * The four documents PayPal publishes for what the adapter calls, as one judge: each request goes to the
 * document of its API. PayPal publishes no document of its OAuth 2 token endpoint, which is left unchecked.
 */
export function paypalContract(): PspContract {
  const documents: [RegExp, PspContract][] = [
    [/^\/v2\/checkout\//, loadPspContract(new URL('./contract/paypal-orders.trimmed.json', import.meta.url))],
    [
      /^\/v2\/payments\//,
      loadPspContract(new URL('./contract/paypal-payments.trimmed.json', import.meta.url)),
    ],
    [
      /^\/v1\/notifications\//,
      loadPspContract(new URL('./contract/paypal-webhooks.trimmed.json', import.meta.url)),
    ],
    [/^\/v3\/vault\//, loadPspContract(new URL('./contract/paypal-vault.trimmed.json', import.meta.url))],
  ];
  const of = (path: string) => documents.find(([prefix]) => prefix.test(path))?.[1];
  return {
    checkRequest: (exchange) => of(exchange.path)?.checkRequest(exchange) ?? [],
    checkResponse: (exchange) => of(exchange.path)?.checkResponse(exchange) ?? [],
  };
}

/**
 * PayPal's rules for a purchase unit the document cannot say: amounts with the currency's decimals (none for
 * JPY, HUF, TWD), items whose unit amounts × quantities add up to `breakdown.item_total`, and that total the
 * amount; items require the breakdown.
 */
export function unitProblem(unit: Record<string, unknown>): string | undefined {
  const amount = unit.amount as Money & { breakdown?: { item_total?: Money } };
  const decimals = ZERO_DECIMAL.has(amount.currency_code) ? 0 : 2;
  const wrong = (money: Money) => (money.value.split('.')[1]?.length ?? 0) !== decimals;
  if (wrong(amount)) return 'DECIMAL_PRECISION';
  const items = unit.items as { quantity: string; unit_amount: Money }[] | undefined;
  if (!items) return undefined;
  const itemTotal = amount.breakdown?.item_total;
  if (!itemTotal) return 'ITEM_TOTAL_REQUIRED';
  const sum = items.reduce((total, item) => total + minor(item.unit_amount) * BigInt(item.quantity), 0n);
  if (items.some((item) => wrong(item.unit_amount)) || sum !== minor(itemTotal)) {
    return 'ITEM_TOTAL_MISMATCH';
  }
  if (minor(itemTotal) !== minor(amount)) {
    return 'AMOUNT_MISMATCH';
  }
  return undefined;
}

/**
 * PayPal's hosted approval page, on plain HTTP so that Chromium shows it without a certificate: the order's
 * amount, Pay (approves, then sends the buyer to `return_url?token=…&PayerID=…`, as PayPal does) and Cancel
 * (`cancel_url?token=…`).
 */
export async function startApprovalPage(
  orders: Map<string, FakePaypalOrder>,
  approved: (order: FakePaypalOrder) => void,
): Promise<{ url: string; server: Server }> {
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://paypal');
    const order = orders.get(url.searchParams.get('token') ?? '');
    if (!order || !url.pathname.startsWith('/checkoutnow')) {
      response.writeHead(404, { 'content-type': 'text/html; charset=utf-8' });
      response.end('<!doctype html><title>PayPal</title><p>This order does not exist.');
      return;
    }
    if (request.method === 'POST' && url.pathname === '/checkoutnow/approve') {
      approved(order);
      const back = new URL(order.return_url);
      back.searchParams.set('token', order.id);
      back.searchParams.set('PayerID', 'FAKEPAYER7');
      response.writeHead(303, { location: back.toString() });
      response.end();
      return;
    }
    const amount = (order.purchase_units[0] as { amount: Money }).amount;
    const cancel = new URL(order.cancel_url);
    cancel.searchParams.set('token', order.id);
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(`<!doctype html><html lang="en"><title>PayPal Checkout</title><main><h1>Pay with PayPal</h1>
<p id="amount">${amount.value} ${amount.currency_code}</p>
<form method="post" action="/checkoutnow/approve?token=${order.id}"><button type="submit">Pay Now</button></form>
<a href="${cancel.toString().replaceAll('&', '&amp;')}">Cancel and return</a></main></html>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}
