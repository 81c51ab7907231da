import { hasAdjustableLines, type LineItem, lineItemsTotal, MAX_QUANTITY, totalProblem } from '../amount.ts';
import {
  type BuyerDetail,
  type BuyerDetails,
  detailsOurPageAsks,
  type PageAsks,
  requiredDetails,
} from '../buyer.ts';
import {
  type CustomField,
  type CustomFieldAnswer,
  MAX_CUSTOM_FIELD_ANSWER_LENGTH,
} from '../custom-fields.ts';
import type { Amount } from '../money.ts';
import type { PaymentLink } from '../payment-link.ts';
import { type FormProblem, type FormProblemCode, type PostedForm, readDetails } from './buyer-answers.ts';
import type { FormTables } from './form-tables.ts';

/**
 * The "before you pay" step of our checkout page (docs/checkout.md#buyer-details, #custom-fields, #quantities):
 * what the buyer answers on our page before going on to the PSP, read and checked here from the posted form, and
 * what the payment then records.
 */

/** What the buyer answered on our page, as the payment records it (each absent when nothing was asked). */
export interface CheckoutAnswers {
  buyer?: BuyerDetails;
  custom_fields?: CustomFieldAnswer[];
  /** The quantity of each of the link's lines, in their order, as charged (a link with an adjustable line). */
  quantities?: number[];
}

/** The name of a custom field's input: its key, which the link keeps unique. */
export const customFieldName = (key: string): string => `custom_${key}`;
/** The name of a line's quantity input: its index in the link's lines. */
export const quantityName = (index: number): string => `quantity_${index}`;

/**
 * Whether our page asks the buyer first, whichever PSP serves them: custom fields and quantities always are;
 * buyer details only when the connection's page cannot ask them (`detailsAsked`).
 */
export const asksFirst = (link: PaymentLink, details: readonly BuyerDetail[] = []): boolean =>
  (link.custom_fields?.length ?? 0) > 0 || hasAdjustableLines(link) || details.length > 0;

/** Whether the link may ask first with some connection: its own questions, or details to collect. */
export const mayAskFirst = (link: PaymentLink): boolean => asksFirst(link) || link.collect !== null;

/**
 * The buyer details our page asks before a session at a PSP's page that can ask `page` (`detailsOurPageAsks`);
 * none when no connection serves the link (the page then says so).
 */
export const detailsAsked = (link: PaymentLink, page: PageAsks | undefined): BuyerDetail[] =>
  page ? detailsOurPageAsks(link.collect, page) : [];

/**
 * The details a session at a PSP whose page can ask `page` needs from our page but that the buyer was not asked:
 * required in `collect`, which the PSP's page cannot ask as required. A session there would open without them, so the
 * buyer is asked them first (never a session missing a required detail).
 */
export function detailsMissingFor(
  link: PaymentLink,
  page: PageAsks,
  asked: readonly BuyerDetail[],
): BuyerDetail[] {
  const required = new Set(link.collect ? requiredDetails(link.collect) : []);
  return detailsAsked(link, page).filter((detail) => required.has(detail) && !asked.includes(detail));
}

/** The posted form, read: the answers when all are fine, else what was refused. */
export type AnswersRead =
  | {
      ok: true;
      answers: CheckoutAnswers;
      /** The lines as picked, when the buyer picked quantities; the amount is their total. */
      lines?: LineItem[];
      amount?: Amount;
      asked: BuyerDetail[];
    }
  | { ok: false; problems: FormProblem[]; asked: BuyerDetail[] };

/**
 * Reads everything the posted form answers: the link's custom fields, its quantities, the details it asked
 * (`tables`: loaded when the link asks a phone number or an address, `readingNeedsTables`).
 */
export function readAnswers(link: PaymentLink, form: PostedForm, tables?: FormTables): AnswersRead {
  const details = readDetails(form, link.collect, tables);
  const fields = readCustomFields(link.custom_fields ?? [], form);
  const picked = readQuantities(link.line_items ?? [], form);
  const problems = [...fields.problems, ...picked.problems, ...details.problems];
  if (problems.length > 0) return { ok: false, problems, asked: details.asked };
  const answers: CheckoutAnswers = {
    ...(Object.keys(details.buyer).length > 0 ? { buyer: details.buyer } : {}),
    ...(fields.answers.length > 0 ? { custom_fields: fields.answers } : {}),
    ...(picked.lines ? { quantities: picked.lines.map((line) => line.quantity) } : {}),
  };
  if (!picked.lines) return { ok: true, answers, asked: details.asked };
  return {
    ok: true,
    answers,
    lines: picked.lines,
    amount: lineItemsTotal(picked.lines),
    asked: details.asked,
  };
}

function readCustomFields(fields: readonly CustomField[], form: PostedForm) {
  const answers: CustomFieldAnswer[] = [];
  const problems: FormProblem[] = [];
  for (const field of fields) {
    const value = form.get(customFieldName(field.key))?.trim() ?? '';
    const problem = customFieldProblem(field, value);
    if (problem) problems.push({ field: customFieldName(field.key), problem });
    else if (value !== '') answers.push({ key: field.key, label: field.label, type: field.type, value });
  }
  return { answers, problems };
}

/** Why an answer to a custom field is refused: empty while required, out of its bounds, not an option. */
export function customFieldProblem(field: CustomField, value: string): FormProblemCode | undefined {
  if (value === '') return field.optional ? undefined : 'missing';
  switch (field.type) {
    case 'dropdown':
      return field.dropdown.options.some((option) => option.value === value) ? undefined : 'not_an_option';
    case 'numeric':
      if (!/^[0-9]+$/.test(value)) return 'not_digits';
      return lengthProblem(value, field.numeric);
    case 'text':
      return lengthProblem(value, field.text);
  }
}

function lengthProblem(
  value: string,
  bounds: { minimum_length?: number; maximum_length?: number } | null,
): FormProblemCode | undefined {
  // Characters as the buyer sees them (code points), not UTF-16 units.
  const length = [...value].length;
  if (length < (bounds?.minimum_length ?? 1)) return 'too_short';
  if (
    length >
    Math.min(bounds?.maximum_length ?? MAX_CUSTOM_FIELD_ANSWER_LENGTH, MAX_CUSTOM_FIELD_ANSWER_LENGTH)
  ) {
    return 'too_long';
  }
  return undefined;
}

/**
 * The lines with the quantities picked: each adjustable line's whole number within its bounds; the total must
 * be an amount a link may have (`totalProblem`). Undefined lines: the link has no adjustable line.
 */
function readQuantities(items: readonly LineItem[], form: PostedForm) {
  const problems: FormProblem[] = [];
  if (!items.some((item) => item.adjustable_quantity?.enabled)) return { problems };
  const lines = items.map((item, index) => {
    const bounds = item.adjustable_quantity;
    if (!bounds?.enabled) return item;
    const text = form.get(quantityName(index))?.trim() ?? '';
    const quantity = /^[0-9]{1,5}$/.test(text) ? Number(text) : Number.NaN;
    if (text === '') problems.push({ field: quantityName(index), problem: 'missing' });
    else if (!(quantity >= bounds.minimum && quantity <= Math.min(bounds.maximum, MAX_QUANTITY))) {
      problems.push({ field: quantityName(index), problem: 'quantity_out_of_range' });
    }
    return { ...item, quantity };
  });
  if (problems.length > 0) return { problems };
  if (totalProblem(lineItemsTotal(lines))) {
    return { problems: [{ field: quantityName(0), problem: 'total_not_payable' as const }] };
  }
  return { lines, problems };
}
