/**
 * The payment methods a link may ask for and a connection may serve: one vocabulary, ours, spelled by each PSP
 * adapter in its PSP's own words (docs/orchestration.md#payment-methods).
 */
export const PAYMENT_METHODS = [
  'card',
  'applepay',
  'googlepay',
  'ideal',
  'bancontact',
  'sepa_debit',
  'paypal',
  'eps',
  'przelewy24',
  'klarna',
  'blik',
  'twint',
  'cashapp',
  'afterpay_clearpay',
  // Africa's local methods (docs/orchestration.md#payment-methods): a bank transfer to an account the PSP shows the
  // buyer, a USSD code dialled on the buyer's phone, a mobile-money wallet.
  'bank_transfer',
  'ussd',
  'mobile_money',
  // Southeast Asia's (docs/orchestration.md#payment-methods): Indonesia's national QR code, and the e-wallets each
  // asked by name (GCash in the Philippines; OVO and DANA in Indonesia; ShopeePay across the region).
  'qris',
  'gcash',
  'ovo',
  'dana',
  'shopeepay',
  // India's instant bank payments (UPI apps, QR codes) and its banks' own online transfers.
  'upi',
  'netbanking',
  // Latin America's (docs/orchestration.md#payment-methods): Brazil's instant payment by QR code or key, Brazil's
  // bank slip paid at a bank, a lottery outlet or online, Mexico's cash payment at an OXXO store.
  'pix',
  'boleto',
  'oxxo',
] as const;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];

/**
 * Our payment methods a PSP serves, each in the PSP's own word (several of ours may share one: a PSP that offers
 * the wallets on its card method). A method absent is one the PSP does not serve.
 */
export type MethodNames = Partial<Record<PaymentMethod, string>>;

export const isPaymentMethod = (value: string): value is PaymentMethod =>
  (PAYMENT_METHODS as readonly string[]).includes(value);

/**
 * The methods a connection offers a link: the link's methods that the connection serves, in the link's order;
 * `null` when the link names none (the PSP shows whatever it offers). An empty list: the connection cannot
 * serve the link, and routing skips it.
 */
export function methodsFor(
  linkMethods: readonly PaymentMethod[] | null | undefined,
  connectionMethods: readonly PaymentMethod[] | null | undefined,
): PaymentMethod[] | null {
  if (!linkMethods?.length) return null;
  if (!connectionMethods) return [...linkMethods];
  return linkMethods.filter((method) => connectionMethods.includes(method));
}
