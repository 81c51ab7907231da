import type { LineItem } from '../../domain/amount.ts';
import type { BuyerDetail, Collect } from '../../domain/buyer.ts';
import { customFieldName, quantityName } from '../../domain/checkout/answers.ts';
import {
  ADDRESS_PARTS,
  type AddressPart,
  type FormProblem,
  postalCodeNeededIn,
} from '../../domain/checkout/buyer-answers.ts';
import { type FormTables, loadedTables } from '../../domain/checkout/form-tables.ts';
import type { AskedForm } from '../../domain/checkout/questions.ts';
import type { CustomField } from '../../domain/custom-fields.ts';
import type { PaymentLink } from '../../domain/payment-link.ts';
import { formatAmount, type Html, html } from '../html.ts';
import { ANSWERS_FIELD } from './form.ts';
import type { FormMessages, Messages } from './messages.ts';

/**
 * The questions of the "before you pay" form (docs/checkout.md#buyer-details, #custom-fields, #quantities): no
 * script; each field has its label (marked required or optional), its hint and, when refused, its error, both
 * named by `aria-describedby`. The server checks every answer (`readAnswers`); the browser's own checks are off
 * (`novalidate`), so every buyer gets the same messages, in their language.
 */

interface Field {
  name: string;
  label: string;
  required: boolean;
  hint?: string | undefined;
  /** The control itself, given its `aria-describedby` and `aria-invalid` attributes. */
  control: (attributes: Html) => Html;
}

interface Rendering {
  form: AskedForm;
  locale: string;
  t: FormMessages;
  /** Loaded when the form asks an address (`drawingNeedsTables`): its countries, and whether a postal code is. */
  tables: FormTables | undefined;
}

/** One field: label, control, hint and error, tied together for assistive technology. */
function field({ name, label, required, hint, control }: Field, { form, t }: Rendering): Html {
  const problem = form.problems.find((refused) => refused.field === name)?.problem;
  const described = [hint ? `${name}-hint` : undefined, problem ? `${name}-error` : undefined].filter(
    Boolean,
  );
  const attributes = html` id="${name}" name="${name}"${required ? html` required aria-required="true"` : undefined}${described.length > 0 ? html` aria-describedby="${described.join(' ')}"` : undefined}${problem ? html` aria-invalid="true"` : undefined}`;
  return html`<label for="${name}">${label} <span class="muted">${required ? t.required : t.optional}</span></label>
${control(attributes)}
${hint ? html`<p id="${`${name}-hint`}" class="muted hint">${hint}</p>` : undefined}
${problem ? html`<p id="${`${name}-error`}" class="error">${t.problems[problem]}</p>` : undefined}`;
}

const textInput =
  (value: string | undefined, extra: Html | undefined = undefined) =>
  (attributes: Html) =>
    html`<input type="text"${attributes}${extra} value="${value ?? ''}">`;

/** The questions: quantities, the link's own fields, then the buyer's details. */
function formQuestions(link: PaymentLink, rendering: Rendering): Html {
  const { form } = rendering;
  return html`<input type="hidden" name="${ANSWERS_FIELD}" value="1">
${form.via ? html`<input type="hidden" name="via" value="${form.via}">` : undefined}
${quantities(link.line_items ?? [], rendering)}
${customFields(link.custom_fields ?? [], rendering)}
${details(link.collect, form.details, rendering)}`;
}

/**
 * The whole form: why it was refused, a range link's `amount` field, the questions, and the button that goes on
 * to the payment.
 */
export function questionsForm(
  link: PaymentLink,
  form: AskedForm,
  options: {
    action: string;
    locale: string;
    t: Messages;
    tables: FormTables | undefined;
    amount?: Html | undefined;
    notPayable: boolean;
  },
): Html {
  const { t, locale, tables } = options;
  return html`<form method="post" action="${options.action}" novalidate>
${formNotice(form.problems, options.notPayable, t.form)}
${options.amount}
${formQuestions(link, { form, locale, t: t.form, tables })}
<button type="submit">${t.continueToPayment}</button>
</form>`;
}

/** Why the form as a whole was refused, above it: a total that no payment provider takes, or fields below. */
function formNotice(
  problems: readonly FormProblem[],
  notPayable: boolean,
  t: FormMessages,
): Html | undefined {
  if (notPayable) return html`<p id="form-error" class="error">${t.totalNotPayable}</p>`;
  return problems.length > 0 ? html`<p id="form-error" class="error">${t.fixBelow}</p>` : undefined;
}

function quantities(items: readonly LineItem[], rendering: Rendering): Html | undefined {
  const { form, locale, t } = rendering;
  const fields = items.flatMap((item, index) => {
    const bounds = item.adjustable_quantity;
    if (!bounds?.enabled) return [];
    const name = quantityName(index);
    const value = form.values.get(name) ?? String(item.quantity);
    return [
      field(
        {
          name,
          label: t.quantityOf(item.name),
          required: true,
          hint: `${formatAmount(item.unit_amount, locale)} · ${t.quantityHint(bounds.minimum, bounds.maximum)}`,
          control: (attributes) =>
            html`<input type="number" inputmode="numeric" min="${bounds.minimum}" max="${bounds.maximum}" step="1"${attributes} value="${value}">`,
        },
        rendering,
      ),
    ];
  });
  return fields.length > 0
    ? html`<fieldset><legend>${t.quantitiesLegend}</legend>${fields}</fieldset>`
    : undefined;
}

function customFields(fields: readonly CustomField[], rendering: Rendering): Html | undefined {
  if (fields.length === 0) return undefined;
  const { t } = rendering;
  return html`<fieldset><legend>${t.questionsLegend}</legend>${fields.map((custom) => customField(custom, rendering))}</fieldset>`;
}

function customField(custom: CustomField, rendering: Rendering): Html {
  const { form, t } = rendering;
  const name = customFieldName(custom.key);
  const value = form.values.get(name);
  const common = { name, label: custom.label, required: !custom.optional };
  switch (custom.type) {
    case 'dropdown':
      return field(
        {
          ...common,
          control: (attributes) => html`<select${attributes}>
<option value="">${t.chooseOption}</option>
${custom.dropdown.options.map((option) => html`<option value="${option.value}"${option.value === value ? html` selected` : undefined}>${option.label}</option>`)}
</select>`,
        },
        rendering,
      );
    case 'numeric': {
      const bounds = custom.numeric;
      const hint = bounds
        ? t.digitsHint(bounds.minimum_length ?? 1, bounds.maximum_length ?? 255)
        : undefined;
      return field({ ...common, hint, control: textInput(value, html` inputmode="numeric"`) }, rendering);
    }
    case 'text': {
      const bounds = custom.text;
      const hint = bounds
        ? t.lengthHint(bounds.minimum_length ?? 1, bounds.maximum_length ?? 255)
        : undefined;
      return field({ ...common, hint, control: textInput(value) }, rendering);
    }
  }
}

/** The buyer details asked: e-mail and phone, then each address with its addressee's name. */
function details(
  collect: Collect | null,
  asked: readonly BuyerDetail[],
  rendering: Rendering,
): Html | undefined {
  if (!collect || asked.length === 0) return undefined;
  const { form, t } = rendering;
  const required = (detail: 'email' | 'phone' | 'billing_address') => collect[detail] === 'required';
  const contact = [
    asked.includes('email')
      ? field(
          {
            name: 'email',
            label: t.email,
            required: required('email'),
            control: (attributes) =>
              html`<input type="email" autocomplete="email"${attributes} value="${form.values.get('email') ?? ''}">`,
          },
          rendering,
        )
      : undefined,
    asked.includes('phone')
      ? field(
          {
            name: 'phone',
            label: t.phone,
            required: required('phone'),
            hint: t.phoneHint,
            control: (attributes) =>
              html`<input type="tel" autocomplete="tel"${attributes} value="${form.values.get('phone') ?? ''}">`,
          },
          rendering,
        )
      : undefined,
  ].filter(Boolean);
  return html`${contact.length > 0 ? html`<fieldset><legend>${t.contactLegend}</legend>${contact}</fieldset>` : undefined}
${asked.includes('billing_address') ? address('billing', required('billing_address'), undefined, rendering) : undefined}
${asked.includes('shipping_address') ? address('shipping', true, collect.shipping_address?.countries, rendering) : undefined}`;
}

/** Each part's label and `autocomplete` token (WHATWG autofill), and whether the address needs it. */
const PARTS: Record<AddressPart, { label: keyof FormMessages; token: string; needed: boolean }> = {
  name: { label: 'name', token: 'name', needed: true },
  line1: { label: 'line1', token: 'address-line1', needed: true },
  line2: { label: 'line2', token: 'address-line2', needed: false },
  city: { label: 'city', token: 'address-level2', needed: true },
  // Marked required only where every country offered writes one (`postalCodeNeededIn`); checked per country.
  postal_code: { label: 'postalCode', token: 'postal-code', needed: false },
  state: { label: 'state', token: 'address-level1', needed: false },
  country: { label: 'country', token: 'country', needed: true },
};

function address(
  kind: 'billing' | 'shipping',
  required: boolean,
  countries: readonly string[] | undefined,
  rendering: Rendering,
): Html {
  const { form, t } = rendering;
  const tables = loadedTables(rendering.tables);
  const offered = countries ?? tables.countries;
  const fields = ADDRESS_PARTS.map((part) => {
    const name = `${kind}_${part}`;
    const { label, token, needed } = PARTS[part];
    const autocomplete = html` autocomplete="${`${kind} ${token}`}"`;
    const control =
      part === 'country'
        ? countrySelect(form.values.get(name), offered, rendering, autocomplete)
        : textInput(form.values.get(name), autocomplete);
    const marked = needed || (part === 'postal_code' && postalCodeNeededIn(offered, tables));
    return field({ name, label: t[label] as string, required: required && marked, control }, rendering);
  });
  return html`<fieldset><legend>${kind === 'billing' ? t.billingAddress : t.shippingAddress}</legend>${fields}</fieldset>`;
}

/** The countries by their names in the buyer's language (`Intl.DisplayNames`), in that language's order. */
function countrySelect(
  value: string | undefined,
  countries: readonly string[],
  { locale, t }: Rendering,
  autocomplete: Html,
) {
  const names = new Intl.DisplayNames([locale], { type: 'region', fallback: 'code' });
  const options = countries
    .map((code) => ({ code, name: names.of(code) ?? code }))
    .sort((a, b) => a.name.localeCompare(b.name, locale));
  return (attributes: Html) => html`<select${attributes}${autocomplete}>
<option value="">${t.chooseCountry}</option>
${options.map((option) => html`<option value="${option.code}"${option.code === value?.toUpperCase() ? html` selected` : undefined}>${option.name}</option>`)}
</select>`;
}
