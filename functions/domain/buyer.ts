import type { Provider } from './connection.ts';

/**
 * What a link asks of its buyer and what a payment knows of them (docs/checkout.md#buyer-details). Buyer details
 * are personal data: never logged, erased after the account's retention period or on request
 * (docs/security.md#personal-data).
 */

/** The details a link may ask for (`collect`). A name comes with an address or from the PSP, never asked alone. */
export const BUYER_DETAILS = ['email', 'phone', 'billing_address', 'shipping_address'] as const;
export type BuyerDetail = (typeof BUYER_DETAILS)[number];

export const COLLECT_REQUIREMENTS = ['required', 'optional'] as const;
export type CollectRequirement = (typeof COLLECT_REQUIREMENTS)[number];

/** Most countries a link may ship to (every code `isCountryCode` knows: ISO 3166-1's 249 and a few more). */
export const MAX_SHIPPING_COUNTRIES = 260;

/**
 * A link's `collect`: each detail asked as required or optional; a shipping address is always required and only
 * in the countries named (as Stripe's and PayPal's pages ask it).
 */
export interface Collect {
  email?: CollectRequirement;
  phone?: CollectRequirement;
  billing_address?: CollectRequirement;
  shipping_address?: { countries: string[] };
}

export interface PostalAddress {
  line1: string;
  line2?: string;
  city: string;
  postal_code?: string;
  state?: string;
  /** ISO 3166-1 alpha-2. */
  country: string;
}

/** What a payment knows of its buyer: from the PSP's page or from ours (each absent when nobody gave it). */
export interface BuyerDetails {
  email?: string;
  name?: string;
  phone?: string;
  billing_address?: PostalAddress;
  shipping_address?: PostalAddress;
}

/** A payment's buyer once erased: the payment stays, the details are gone (docs/security.md#personal-data). */
export interface ErasedBuyer {
  erased_at: string;
}

export type PaymentBuyer = BuyerDetails | ErasedBuyer;

export const isErased = (buyer: PaymentBuyer): buyer is ErasedBuyer => 'erased_at' in buyer;

/** The details `collect` requires (a shipping address always is). */
export function requiredDetails(collect: Collect): BuyerDetail[] {
  return BUYER_DETAILS.filter((detail) =>
    detail === 'shipping_address' ? collect.shipping_address !== undefined : collect[detail] === 'required',
  );
}

/** The details `collect` asks for, required or not. */
export const askedDetails = (collect: Collect): BuyerDetail[] =>
  BUYER_DETAILS.filter((detail) => collect[detail] !== undefined);

/**
 * Region codes that ICU names but that are no country a parcel or an address can be in: groupings (`EU`, `EZ`,
 * `UN`, `QO`), pseudo-locales (`XA`, `XB`), unknown (`ZZ`) and ICU's exceptionally reserved codes for parts of
 * other countries (`CP`, `CQ`, `DG`, `EA`, `IC`).
 */
const NOT_COUNTRIES = new Set(['CP', 'CQ', 'DG', 'EA', 'EU', 'EZ', 'IC', 'QO', 'UN', 'XA', 'XB', 'ZZ']);
const regionNames = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });

/**
 * An ISO 3166-1 alpha-2 country code in canonical form, from Node's own ICU data (no hand-kept list, and no
 * library in the bundle of every function that validates a link): `UK` is an alias of `GB`, so it is refused.
 */
export function isCountryCode(code: string): boolean {
  if (!/^[A-Z]{2}$/.test(code) || NOT_COUNTRIES.has(code) || regionNames.of(code) === undefined) return false;
  return new Intl.Locale(`und-${code}`).region === code;
}

/**
 * What each PSP's hosted page can ask the buyer itself, as `collect` asks it (docs/checkout.md#buyer-details):
 * Stripe Checkout's email, phone, billing and shipping address collection; Adyen Pay by Link's
 * `requiredShopperFields` (required only); PayPal's approval page gives the payer's e-mail (its shipping address
 * cannot be held to `countries`). Mollie's and Checkout.com's pages and our sandbox ask none: our page asks.
 */
export const PSP_PAGE_ASKS: Record<Provider, { details: readonly BuyerDetail[]; optional: boolean }> = {
  stripe: { details: ['email', 'phone', 'billing_address', 'shipping_address'], optional: true },
  adyen: { details: ['email', 'phone', 'billing_address', 'shipping_address'], optional: false },
  paypal: { details: ['email'], optional: true },
  mollie: { details: [], optional: false },
  checkout: { details: [], optional: false },
  sandbox: { details: [], optional: false },
};

/**
 * The details our page asks first because the chosen PSP's page cannot ask them as `collect` asks: not at all,
 * or (for a PSP that asks only required fields) not as optional.
 */
export function detailsOurPageAsks(collect: Collect | null, provider: Provider): BuyerDetail[] {
  if (!collect) return [];
  const psp = PSP_PAGE_ASKS[provider];
  const required = new Set(requiredDetails(collect));
  return askedDetails(collect).filter(
    (detail) => !psp.details.includes(detail) || (!required.has(detail) && !psp.optional),
  );
}
