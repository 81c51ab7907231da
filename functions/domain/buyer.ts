import { getCountries } from 'libphonenumber-js/min';

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

/** Most countries a link may ship to (every code `isCountryCode` knows). */
export const MAX_SHIPPING_COUNTRIES = 245;

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
 * The ISO 3166-1 alpha-2 codes of the inhabited countries and territories, from libphonenumber's metadata (no
 * hand-kept list; Node's own region names also accept `EU`, `UK` and `ZZ`).
 */
let countries: ReadonlySet<string> | undefined;
export function isCountryCode(code: string): boolean {
  countries ??= new Set(getCountries());
  return countries.has(code);
}
