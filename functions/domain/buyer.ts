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
 * in the countries named (as the PSPs' hosted pages ask it).
 */
export interface Collect {
  email?: CollectRequirement;
  phone?: CollectRequirement;
  billing_address?: CollectRequirement;
  shipping_address?: { countries: string[] };
}

/**
 * The longest each of a buyer's details and address parts may be (E.164 phones; RFC 5321 addresses), however they
 * reach us: read back from a PSP, typed on our form, documented by `BuyerSchema`.
 */
export const BUYER_TEXT_LIMITS = {
  email: 254,
  phone: 32,
  name: 200,
  line1: 200,
  line2: 200,
  city: 100,
  postal_code: 20,
  state: 100,
  country: 2,
} as const;

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
 * How a PSP's hosted page asks one detail: `always`, whatever a link's `collect` says (a page that always asks the
 * e-mail address: an optional one is required there); `required`, when we ask it to, and then only as required.
 */
export type PspPageAsk = 'always' | 'required';

/**
 * What a PSP's hosted page can ask the buyer itself (docs/checkout.md#on-the-psps-page), stated by its descriptor
 * from the PSP's own document; a detail it cannot ask is absent.
 */
export type PageAsks = Partial<Record<BuyerDetail, PspPageAsk>>;

/**
 * The details our page asks first because the chosen PSP's page (`page`) cannot ask them as `collect` asks: not
 * at all, or (for a page that asks a detail only as required) not as optional.
 */
export function detailsOurPageAsks(collect: Collect | null, page: PageAsks): BuyerDetail[] {
  if (!collect) return [];
  const required = new Set(requiredDetails(collect));
  return askedDetails(collect).filter((detail) => {
    const ask = page[detail];
    return ask === undefined || (ask === 'required' && !required.has(detail));
  });
}

/**
 * The details a PSP adapter asks its page for (as required): what `collect` asks that our page does not and the
 * page asks only when told (`required`). Details the page asks `always` need no asking.
 */
export function detailsPspPageAsks(collect: Collect | null, page: PageAsks): BuyerDetail[] {
  if (!collect) return [];
  const ours = new Set(detailsOurPageAsks(collect, page));
  return askedDetails(collect).filter((detail) => !ours.has(detail) && page[detail] === 'required');
}
