import { getCountries, parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { postcodeValidator, postcodeValidatorExistsForCountry } from 'postcode-validator';

/**
 * What our form checks a phone number and an address against (docs/checkout.md#buyer-details): libphonenumber's
 * full metadata and every country's postal code format, about 65 KB gzipped. Most links ask neither, so they are
 * a chunk of their own (tables.ts), loaded by a request that reads or draws such a form (`loadFormTables`) and
 * handed to the rules that need them; a cold start loads none of it (docs/performance.md#a-buyers-cold-start).
 */
export interface FormTables {
  /** Every country an address may be in (ISO 3166-1 alpha-2): the countries of libphonenumber's metadata. */
  countries: readonly string[];
  isCountry(code: string): boolean;
  /** A phone number as typed, in E.164, read in `country` when it has no `+` prefix; undefined when it is none. */
  phoneE164(text: string, country: string | undefined): string | undefined;
  /** Whether `country` writes a postal code in a known format (an address there then needs one). */
  writesPostalCodes(country: string): boolean;
  isPostalCode(code: string, country: string): boolean;
}

/**
 * The tables themselves: libphonenumber's full metadata, which phone numbers need and whose countries are those
 * an address may be in, and postcode-validator's formats. Imported by `loadFormTables` only (form-tables.ts).
 */
const countries = [...getCountries()];
const known: ReadonlySet<string> = new Set(countries);

export const FORM_TABLES: FormTables = {
  countries,
  isCountry: (code) => known.has(code),
  phoneE164: (text, country) => {
    const number = parsePhoneNumberFromString(
      text,
      country as Parameters<typeof parsePhoneNumberFromString>[1],
    );
    return number?.isValid() ? number.number : undefined;
  },
  writesPostalCodes: (country) => postcodeValidatorExistsForCountry(country),
  isPostalCode: (code, country) => postcodeValidator(code, country),
};
