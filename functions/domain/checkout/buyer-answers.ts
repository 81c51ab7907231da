import {
  askedDetails,
  BUYER_TEXT_LIMITS,
  type BuyerDetail,
  type BuyerDetails,
  type Collect,
  type PostalAddress,
  requiredDetails,
} from '../buyer.ts';
import { type FormTables, loadedTables } from './form-tables.ts';

/**
 * The buyer's details as our page asks them (docs/checkout.md#buyer-details): read from the posted form, checked
 * here (an e-mail address as browsers check `type=email`, a phone number with libphonenumber's full metadata and
 * stored as E.164, a postal code by its country's format: the form tables, form-tables.ts), never trusted from
 * the page.
 */

/** Why one answer of the form was refused; the page says it in the buyer's language. */
export type FormProblemCode =
  | 'missing'
  | 'too_short'
  | 'too_long'
  | 'not_digits'
  | 'not_an_option'
  | 'invalid_email'
  | 'invalid_phone'
  | 'invalid_postal_code'
  | 'invalid_country'
  | 'country_not_shipped'
  | 'quantity_out_of_range'
  | 'total_not_payable';

/** A refused answer, at the form field (its `name`) that shows it. */
export interface FormProblem {
  field: string;
  problem: FormProblemCode;
}

/** What the buyer posted: each field's value as sent (absent: the form did not ask it). */
export type PostedForm = ReadonlyMap<string, string>;

/** The fields of an address on our form, each `{prefix}_{part}` (`billing_city`); `name` is the addressee. */
export const ADDRESS_PARTS = ['name', 'line1', 'line2', 'city', 'postal_code', 'state', 'country'] as const;
export type AddressPart = (typeof ADDRESS_PARTS)[number];

/** The parts an address cannot be without; a postal code too where its country has a format for one. */
const REQUIRED_PARTS: readonly AddressPart[] = ['name', 'line1', 'city', 'country'];

/** The `valid e-mail address` of the HTML standard: what a browser's `type=email` field accepts. */
const EMAIL =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;

/** Whether every one of `countries` writes a postal code (the form then marks it required). */
export const postalCodeNeededIn = (countries: readonly string[], tables: FormTables): boolean =>
  countries.length > 0 && countries.every((country) => tables.writesPostalCodes(country));

/** What the posted details come to: the details read, the details the form asked, and what was refused. */
export interface DetailsRead {
  buyer: BuyerDetails;
  /** The details the form asked (its fields were posted, answered or not). */
  asked: BuyerDetail[];
  problems: FormProblem[];
}

/** A posted value, trimmed; undefined when absent. */
const posted = (form: PostedForm, field: string) => form.get(field)?.trim();

/** The details the posted form asked: each one the link asks whose (first) field is in it. */
export function detailsPosted(form: PostedForm, collect: Collect | null): BuyerDetail[] {
  const fields: Record<BuyerDetail, string> = {
    email: 'email',
    phone: 'phone',
    billing_address: 'billing_line1',
    shipping_address: 'shipping_line1',
  };
  // A detail the link does not ask is never read, whatever was posted.
  return (collect ? askedDetails(collect) : []).filter((detail) => form.has(fields[detail]));
}

/**
 * Reads and checks the details the form asked (`detailsPosted`): required ones (`collect`) must be given; an
 * optional one left empty is not kept. The name given with the shipping address, else with the billing one, is
 * the buyer's `name`. `tables`: loaded when the link asks a phone number or an address (`readingNeedsTables`).
 */
export function readDetails(form: PostedForm, collect: Collect | null, tables?: FormTables): DetailsRead {
  const asked = detailsPosted(form, collect);
  const required = new Set(collect ? requiredDetails(collect) : []);
  const buyer: BuyerDetails = {};
  const problems: FormProblem[] = [];
  readContact(form, asked, required, { buyer, problems }, tables);
  for (const kind of ['billing', 'shipping'] as const) {
    const detail = `${kind}_address` as const;
    if (!asked.includes(detail)) continue;
    const countries = kind === 'shipping' ? collect?.shipping_address?.countries : undefined;
    const read = readAddress(form, kind, required.has(detail), countries, loadedTables(tables));
    problems.push(...read.problems);
    if (read.address) buyer[detail] = read.address;
    if (read.name) buyer.name = read.name;
  }
  return { buyer, asked, problems };
}

/** The e-mail address and phone number the form asked, into `into`. */
function readContact(
  form: PostedForm,
  asked: readonly BuyerDetail[],
  required: ReadonlySet<BuyerDetail>,
  into: { buyer: BuyerDetails; problems: FormProblem[] },
  tables: FormTables | undefined,
): void {
  if (asked.includes('email')) {
    const email = posted(form, 'email') ?? '';
    const problem = emailProblem(email, required.has('email'));
    if (problem) into.problems.push({ field: 'email', problem });
    else if (email !== '') into.buyer.email = email;
  }
  if (asked.includes('phone')) {
    const checks = loadedTables(tables);
    const phone = readPhone(
      posted(form, 'phone') ?? '',
      required.has('phone'),
      countryHint(form, checks),
      checks,
    );
    if ('problem' in phone) into.problems.push({ field: 'phone', problem: phone.problem });
    else if (phone.e164) into.buyer.phone = phone.e164;
  }
}

function emailProblem(email: string, required: boolean): FormProblemCode | undefined {
  if (email === '') return required ? 'missing' : undefined;
  if (email.length > BUYER_TEXT_LIMITS.email) return 'too_long';
  return EMAIL.test(email) ? undefined : 'invalid_email';
}

/** A country the buyer gave with an address: a phone number typed without its `+` prefix is read in it. */
function countryHint(form: PostedForm, tables: FormTables): string | undefined {
  const country = (posted(form, 'billing_country') || posted(form, 'shipping_country'))?.toUpperCase();
  return country && tables.isCountry(country) ? country : undefined;
}

function readPhone(
  text: string,
  required: boolean,
  country: string | undefined,
  tables: FormTables,
): { e164?: string } | { problem: FormProblemCode } {
  if (text === '') return required ? { problem: 'missing' } : {};
  if (text.length > BUYER_TEXT_LIMITS.phone) return { problem: 'too_long' };
  const e164 = tables.phoneE164(text, country);
  return e164 ? { e164 } : { problem: 'invalid_phone' };
}

/**
 * One address of the form: an optional one left wholly empty is no address; otherwise its name, first line,
 * city and country are needed, the postal code where the country has a format for one (and then in that
 * format), and a shipping country among the link's `countries`.
 */
function readAddress(
  form: PostedForm,
  kind: 'billing' | 'shipping',
  required: boolean,
  countries: readonly string[] | undefined,
  tables: FormTables,
): { address?: PostalAddress; name?: string; problems: FormProblem[] } {
  const part = (name: AddressPart) => posted(form, `${kind}_${name}`) ?? '';
  const given = ADDRESS_PARTS.filter((name) => part(name) !== '');
  if (given.length === 0 && !required) return { problems: [] };
  const problems = addressProblems(part, countries, tables).map(([name, problem]) => ({
    field: `${kind}_${name}`,
    problem,
  }));
  if (problems.length > 0) return { problems };
  const optional = (name: AddressPart) => (part(name) === '' ? {} : { [name]: part(name) });
  const address: PostalAddress = {
    line1: part('line1'),
    ...optional('line2'),
    city: part('city'),
    ...optional('postal_code'),
    ...optional('state'),
    country: part('country').toUpperCase(),
  };
  return { address, name: part('name'), problems };
}

/** What is wrong with the parts of an address (`part` reads one), each at its part. */
function addressProblems(
  part: (name: AddressPart) => string,
  countries: readonly string[] | undefined,
  tables: FormTables,
): [AddressPart, FormProblemCode][] {
  const problems: [AddressPart, FormProblemCode][] = [];
  for (const name of ADDRESS_PARTS)
    if (part(name).length > BUYER_TEXT_LIMITS[name]) problems.push([name, 'too_long']);
  for (const name of REQUIRED_PARTS) if (part(name) === '') problems.push([name, 'missing']);
  problems.push(...countryProblems(part, countries, tables));
  return problems;
}

/** The country's problems, and the postal code's, which its country's format decides. */
function countryProblems(
  part: (name: AddressPart) => string,
  countries: readonly string[] | undefined,
  tables: FormTables,
): [AddressPart, FormProblemCode][] {
  const country = part('country').toUpperCase();
  if (country === '') {
    // Without a country yet, the postal code is still asked where every country offered writes one.
    const needed = postalCodeNeededIn(countries ?? tables.countries, tables) && part('postal_code') === '';
    return needed ? [['postal_code', 'missing']] : [];
  }
  if (!tables.isCountry(country)) return [['country', 'invalid_country']];
  if (countries && !countries.includes(country)) return [['country', 'country_not_shipped']];
  const postcode = postalCodeProblem(part('postal_code'), country, tables);
  return postcode ? [['postal_code', postcode]] : [];
}

function postalCodeProblem(code: string, country: string, tables: FormTables): FormProblemCode | undefined {
  if (!tables.writesPostalCodes(country)) return undefined;
  if (code === '') return 'missing';
  return tables.isPostalCode(code, country) ? undefined : 'invalid_postal_code';
}
