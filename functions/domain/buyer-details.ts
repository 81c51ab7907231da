import type { CountryCode } from 'libphonenumber-js/min';
import {
  BUYER_TEXT_LIMITS,
  type BuyerDetails,
  isErased,
  type PaymentBuyer,
  type PostalAddress,
} from './buyer.ts';

/**
 * What a PSP reports of its buyer, normalised to `BuyerDetails` (docs/checkout.md#on-the-psps-page): text trimmed,
 * control characters removed and cut to the lengths `BuyerSchema` documents, phone numbers in E.164, countries in
 * ISO 3166-1 alpha-2. A value that cannot be read as such (a phone number that is no number, a country that is
 * none) is left out rather than stored wrong. Pure: each adapter maps its PSP's fields to `ReportedBuyer`.
 *
 * libphonenumber's metadata (its country codes and numbering plans, about 30 KB gzipped) is loaded on the first
 * report that needs it, not at a cold start: the functions that read PSP statuses mostly never see a paid one
 * (docs/performance.md).
 */
type PhoneLibrary = typeof import('libphonenumber-js/min');
let phoneLibrary: Promise<PhoneLibrary> | undefined;
const loadPhoneLibrary = (): Promise<PhoneLibrary> => {
  phoneLibrary ??= import('libphonenumber-js/min');
  return phoneLibrary;
};

/** A postal address in the words PSPs use for it, every part as the PSP gave it (or nothing). */
export interface ReportedAddress {
  line1?: string | null | undefined;
  line2?: string | null | undefined;
  city?: string | null | undefined;
  postal_code?: string | null | undefined;
  state?: string | null | undefined;
  country?: string | null | undefined;
}

export interface ReportedBuyer {
  email?: string | null | undefined;
  name?: string | null | undefined;
  phone?: string | null | undefined;
  /** The country to read a phone number without `+` in, when the PSP gives it apart (else the addresses'). */
  phone_country?: string | null | undefined;
  billing_address?: ReportedAddress | null | undefined;
  shipping_address?: ReportedAddress | null | undefined;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/g;

/**
 * Trimmed, without control characters, at most `maxLength` characters and twice as many bytes of UTF-8: the
 * `payment_link.paid` event carries the buyer, and must stay within its size bound (docs/webhooks.md#the-request)
 * whatever script an address is written in; no address line of any script comes near either bound.
 */
function text(value: string | null | undefined, maxLength: number): string | undefined {
  const cleaned = value?.replace(CONTROL_CHARACTERS, ' ').replace(/\s+/g, ' ').trim();
  if (!cleaned) return undefined;
  let kept = '';
  let bytes = 0;
  for (const character of cleaned) {
    bytes += utf8Length(character);
    if (kept.length + character.length > maxLength || bytes > 2 * maxLength) break;
    kept += character;
  }
  return kept.trim() || undefined;
}

const utf8Length = (character: string): number => {
  const code = character.codePointAt(0) ?? 0;
  return code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
};

/** An ISO 3166-1 alpha-2 code that libphonenumber knows; PSPs may send lower case. */
function countryCode(value: string | null | undefined, library: PhoneLibrary): string | undefined {
  const code = value?.trim().toUpperCase();
  return code && library.isSupportedCountry(code) ? code : undefined;
}

/**
 * A phone number in E.164, read in `country` when it has no `+` (the country of the buyer's address), or
 * undefined when it is not a valid number.
 */
export async function e164Phone(
  value: string | null | undefined,
  country?: string,
): Promise<string | undefined> {
  return phoneOf(value, country, await loadPhoneLibrary());
}

function phoneOf(value: string | null | undefined, country: string | undefined, library: PhoneLibrary) {
  const given = value?.trim();
  if (!given) return undefined;
  const region = country && library.isSupportedCountry(country) ? (country as CountryCode) : undefined;
  const parsed = library.parsePhoneNumberFromString(given, region ? { defaultCountry: region } : {});
  return parsed?.isValid() ? parsed.number : undefined;
}

function postalAddress(
  reported: ReportedAddress | null | undefined,
  library: PhoneLibrary,
): PostalAddress | undefined {
  if (!reported) return undefined;
  const line1 = text(reported.line1, BUYER_TEXT_LIMITS.line1);
  const city = text(reported.city, BUYER_TEXT_LIMITS.city);
  const country = countryCode(reported.country, library);
  if (!line1 || !city || !country) return undefined;
  const line2 = text(reported.line2, BUYER_TEXT_LIMITS.line2);
  const postalCode = text(reported.postal_code, BUYER_TEXT_LIMITS.postal_code);
  const state = text(reported.state, BUYER_TEXT_LIMITS.state);
  return {
    line1,
    ...(line2 ? { line2 } : {}),
    city,
    ...(postalCode ? { postal_code: postalCode } : {}),
    ...(state ? { state } : {}),
    country,
  };
}

/** The buyer details of a PSP's report, or undefined when it reports none. */
export async function buyerDetails(reported: ReportedBuyer): Promise<BuyerDetails | undefined> {
  const library = await loadPhoneLibrary();
  const billing = postalAddress(reported.billing_address, library);
  const shipping = postalAddress(reported.shipping_address, library);
  const email = text(reported.email, BUYER_TEXT_LIMITS.email);
  const details: BuyerDetails = {
    ...(email?.includes('@') ? { email } : {}),
    ...optional('name', text(reported.name, BUYER_TEXT_LIMITS.name)),
    ...optional(
      'phone',
      phoneOf(
        reported.phone,
        countryCode(reported.phone_country, library) ?? billing?.country ?? shipping?.country,
        library,
      ),
    ),
    ...optional('billing_address', billing),
    ...optional('shipping_address', shipping),
  };
  return Object.keys(details).length > 0 ? details : undefined;
}

const optional = <K extends keyof BuyerDetails>(key: K, value: BuyerDetails[K] | undefined) =>
  value === undefined ? {} : ({ [key]: value } as Pick<BuyerDetails, K>);

/**
 * A payment's buyer once its PSP reported success: what our page stored when the session opened, completed by
 * what the PSP's page asked (our page asked only what the PSP's could not, so each detail has one source; where
 * both hold one, ours stands, as the buyer gave it to us for this link). Erased details stay erased.
 */
export function withPspBuyer(stored: PaymentBuyer | undefined, reported: BuyerDetails | undefined) {
  if (!reported || (stored && isErased(stored))) return stored;
  return { ...reported, ...stored };
}
