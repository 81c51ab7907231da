import { BUYER_DETAILS, COLLECT_REQUIREMENTS } from '../../domain/buyer.ts';
import { CUSTOM_FIELD_TYPES, MAX_CUSTOM_FIELDS } from '../../domain/custom-fields.ts';
import { Html, html } from '../html.ts';
import type { ConsoleMessages } from './messages.ts';
import type { FieldError } from './views.ts';

/**
 * The create form's questions to the buyer (`collect`, `custom_fields`) and each line's `adjustable_quantity`,
 * as the API's create request: the schema of `POST /v1/payment-links` then checks them, and its pointers are
 * mapped back to the inputs here, so each error shows at its field.
 */

type Words = ConsoleMessages['linkForm'];

const ASKED_DETAILS = BUYER_DETAILS.filter((detail) => detail !== 'shipping_address');

const optional = (form: URLSearchParams, name: string) => form.get(name)?.trim() || undefined;
/** A whole number as a number; anything else as typed, for the schema to refuse with its own words. */
const integer = (text: string | undefined) => (text && /^\d+$/.test(text) ? Number(text) : text);

/** The form's custom-field slots (1 to 3) that have a type, in order: the request's `custom_fields`. */
export const filledCustomSlots = (form: URLSearchParams): number[] =>
  Array.from({ length: MAX_CUSTOM_FIELDS }, (_, index) => index + 1).filter((slot) =>
    optional(form, `custom_${slot}_type`),
  );

function collectOf(form: URLSearchParams) {
  const asked = ASKED_DETAILS.flatMap((detail) => {
    const requirement = optional(form, `collect_${detail}`);
    return requirement ? [[detail, requirement] as const] : [];
  });
  const countries = optional(form, 'collect_shipping_countries')
    ?.split(/[\s,]+/)
    .filter(Boolean)
    .map((code) => code.toUpperCase());
  const collect = {
    ...Object.fromEntries(asked),
    ...(countries?.length && { shipping_address: { countries } }),
  };
  return Object.keys(collect).length ? collect : undefined;
}

/** A dropdown's options, one a line: `value: Label`, or just `value` for both. */
function optionsOf(text: string) {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const [value = '', ...label] = line.split(':');
      return { value: value.trim(), label: label.join(':').trim() || value.trim() };
    });
}

function customFieldOf(form: URLSearchParams, slot: number) {
  const value = (name: string) => optional(form, `custom_${slot}_${name}`);
  const type = value('type') ?? '';
  const least = integer(value('minimum_length'));
  const most = integer(value('maximum_length'));
  const bounds = {
    ...(least !== undefined && { minimum_length: least }),
    ...(most !== undefined && { maximum_length: most }),
  };
  return {
    key: value('key') ?? '',
    label: value('label') ?? '',
    type,
    ...(form.get(`custom_${slot}_optional`) === 'on' && { optional: true }),
    ...(type === 'dropdown' && { dropdown: { options: optionsOf(value('options') ?? '') } }),
    ...((type === 'text' || type === 'numeric') && Object.keys(bounds).length && { [type]: bounds }),
  };
}

/** `collect` and `custom_fields` of the create request, each left out when the form asks nothing. */
export function questionsOf(form: URLSearchParams): Record<string, unknown> {
  const collect = collectOf(form);
  const slots = filledCustomSlots(form);
  return {
    ...(collect && { collect }),
    ...(slots.length && { custom_fields: slots.map((slot) => customFieldOf(form, slot)) }),
  };
}

/** A line-item row's `adjustable_quantity`, when its box is ticked; bounds left empty take the API's defaults. */
export function adjustableQuantityOf(form: URLSearchParams, row: number) {
  if (form.get(`item_adjustable_${row}`) !== 'on') return {};
  const minimum = integer(optional(form, `item_minimum_${row}`));
  const maximum = integer(optional(form, `item_maximum_${row}`));
  return {
    adjustable_quantity: {
      enabled: true,
      ...(minimum !== undefined && { minimum }),
      ...(maximum !== undefined && { maximum }),
    },
  };
}

/**
 * The input an API pointer names: `/custom_fields/0/key` is the first filled slot's key, `/line_items/1/...` the
 * second filled row's; undefined for a pointer of the request as a whole.
 */
export function inputOf(pointer: string, customSlots: number[], itemRows: number[]): string | undefined {
  const [, field, index, name = '', sub = ''] = pointer.split('/');
  if (field === 'collect') {
    return index === 'shipping_address' ? 'collect_shipping_countries' : `collect_${index}`;
  }
  if (field === 'custom_fields') return customFieldInput(customSlots[Number(index)], name, sub);
  if (field === 'line_items' && name === 'adjustable_quantity') {
    const row = itemRows[Number(index)];
    return row === undefined ? undefined : `item_${sub === 'maximum' ? 'maximum' : 'minimum'}_${row}`;
  }
  return undefined;
}

/** A custom field's input: its bounds' own, the options' textarea for anything of a dropdown. */
function customFieldInput(slot: number | undefined, name: string, sub: string): string | undefined {
  if (slot === undefined) return undefined;
  if (name === 'text' || name === 'numeric') return `custom_${slot}_${sub || 'maximum_length'}`;
  return `custom_${slot}_${name === 'dropdown' ? 'options' : name || 'type'}`;
}

/** The errors of one input, beside it, and the attributes that tie them to it. */
export function errorAt(errors: ReadonlyMap<string, string[]>, input: string) {
  const found = errors.get(input);
  return {
    attributes: found ? new Html(` aria-invalid="true" aria-describedby="${input}-error"`) : '',
    message: found ? html`<span class="error" id="${input}-error">${found.join(' ')}</span>` : undefined,
  };
}

/** The errors by input they belong to (see `inputOf`). */
export function errorsByInput(errors: readonly FieldError[], values: URLSearchParams, itemRows: number[]) {
  const slots = filledCustomSlots(values);
  const byInput = new Map<string, string[]>();
  for (const error of errors) {
    const input = inputOf(error.pointer, slots, itemRows);
    if (input) byInput.set(input, [...(byInput.get(input) ?? []), error.detail]);
  }
  return byInput;
}

const selected = (on: boolean) => (on ? new Html(' selected') : '');

function collectFields(values: URLSearchParams, errors: ReadonlyMap<string, string[]>, words: Words): Html {
  const detailRow = (detail: (typeof ASKED_DETAILS)[number]) => {
    const input = `collect_${detail}`;
    const current = values.get(input) ?? '';
    const error = errorAt(errors, input);
    return html`<div><label for="${input}">${words.details[detail]}</label><select id="${input}" name="${input}"${error.attributes}><option value="">${words.notAsked}</option>${COLLECT_REQUIREMENTS.map((requirement) => html`<option value="${requirement}"${selected(current === requirement)}>${words.requirements[requirement]}</option>`)}</select>${error.message}</div>`;
  };
  const shipping = errorAt(errors, 'collect_shipping_countries');
  return html`<fieldset><legend>${words.askBuyer}</legend><div class="inline">${ASKED_DETAILS.map(detailRow)}</div>
<label for="collect_shipping_countries">${words.shippingCountries}</label>
<input id="collect_shipping_countries" name="collect_shipping_countries" value="${values.get('collect_shipping_countries') ?? ''}"${shipping.attributes}>${shipping.message}
</fieldset>`;
}

function customFieldSlot(
  values: URLSearchParams,
  errors: ReadonlyMap<string, string[]>,
  slot: number,
  words: Words,
): Html {
  const name = (field: string) => `custom_${slot}_${field}`;
  const value = (field: string) => values.get(name(field)) ?? '';
  const input = (field: string, label: string, extra = '') => {
    const error = errorAt(errors, name(field));
    return html`<div><label for="${name(field)}">${label}</label><input id="${name(field)}" name="${name(field)}" value="${value(field)}"${new Html(extra)}${error.attributes}>${error.message}</div>`;
  };
  const type = errorAt(errors, name('type'));
  const options = errorAt(errors, name('options'));
  return html`<fieldset><legend>${words.question(slot)}</legend><div class="inline">
<div><label for="${name('type')}">${words.type}</label><select id="${name('type')}" name="${name('type')}"${type.attributes}><option value="">${words.noType}</option>${CUSTOM_FIELD_TYPES.map((kind) => html`<option value="${kind}"${selected(value('type') === kind)}>${words.fieldTypes[kind]}</option>`)}</select>${type.message}</div>
${input('key', words.key)}${input('label', words.label)}
<label class="choice"><input type="checkbox" name="${name('optional')}"${values.get(name('optional')) === 'on' ? new Html(' checked') : ''}> ${words.optional}</label>
${input('minimum_length', words.shortest, ' inputmode="numeric" size="4"')}${input('maximum_length', words.longest, ' inputmode="numeric" size="4"')}</div>
<label for="${name('options')}">${words.dropdownOptions} <code>${words.dropdownLine}</code></label><textarea id="${name('options')}" name="${name('options')}" rows="3"${options.attributes}>${value('options')}</textarea>${options.message}
</fieldset>`;
}

/** The fieldsets of `collect` and of up to `MAX_CUSTOM_FIELDS` custom fields. */
export function questionFields(
  values: URLSearchParams,
  errors: ReadonlyMap<string, string[]>,
  words: Words,
): Html {
  const slots = Array.from({ length: MAX_CUSTOM_FIELDS }, (_, index) => index + 1);
  return html`${collectFields(values, errors, words)}
<details${slots.some((slot) => values.get(`custom_${slot}_type`)) ? new Html(' open') : ''}><summary>${words.ownQuestions(MAX_CUSTOM_FIELDS)}</summary>
${slots.map((slot) => customFieldSlot(values, errors, slot, words))}</details>`;
}

/** A line-item row's quantity choice: whether the buyer may change it, and within which bounds. */
export function adjustableCells(
  values: URLSearchParams,
  errors: ReadonlyMap<string, string[]>,
  row: number,
  words: Words,
) {
  const bound = (which: 'minimum' | 'maximum', label: string) => {
    const input = `item_${which}_${row}`;
    const error = errorAt(errors, input);
    return html`<td><input aria-label="${label}" name="${input}" inputmode="numeric" size="4" value="${values.get(input) ?? ''}"${error.attributes}>${error.message}</td>`;
  };
  return html`<td><input type="checkbox" aria-label="${words.itemAdjustableLabel(row)}" name="item_adjustable_${row}"${values.get(`item_adjustable_${row}`) === 'on' ? new Html(' checked') : ''}></td>
${bound('minimum', words.itemLeastLabel(row))}${bound('maximum', words.itemMostLabel(row))}`;
}
