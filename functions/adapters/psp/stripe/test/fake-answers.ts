// What the fake Stripe (./fake.ts) answers besides its objects: what a buyer typed on its page, and its refusals
// of what Stripe refuses.

export type FakeSession = Record<string, unknown> & { id: string; status: string; payment_status: string };

/**
 * What a buyer types on Stripe's page: Stripe keeps what the session asked for (the e-mail always, the phone,
 * billing and shipping address when collected) in `customer_details` and `collected_information`.
 */
export interface FakeStripeBuyer {
  email?: string;
  name?: string;
  phone?: string;
  address?: FakeStripeAddress;
  shipping?: { name: string; address: FakeStripeAddress };
}
export interface FakeStripeAddress {
  line1: string;
  line2?: string | null;
  city: string;
  postal_code: string | null;
  state?: string | null;
  country: string;
}

/** A buyer who fills in Stripe's page as a buyer would, when the test names no other. */
export const DEFAULT_STRIPE_BUYER: Required<Omit<FakeStripeBuyer, 'shipping'>> &
  Pick<FakeStripeBuyer, 'shipping'> = {
  email: 'buyer@example.com',
  name: 'Jane Buyer',
  phone: '+31612345678',
  address: { line1: 'Keizersgracht 1', city: 'Amsterdam', postal_code: '1015 CJ', country: 'NL' },
  shipping: {
    name: 'Jane Buyer',
    address: { line1: 'Damrak 1', city: 'Amsterdam', postal_code: '1012 LG', country: 'NL' },
  },
};

/**
 * The `customer_details` and `collected_information` of a completed session: what its page asked (Stripe always
 * asks the e-mail, prefilled from `customer_email`; the rest when collected), as `buyer` typed it.
 */
export function buyerAnswers(session: FakeSession, buyer: FakeStripeBuyer) {
  const given = { ...DEFAULT_STRIPE_BUYER, ...buyer };
  const address = { line2: null, state: null, ...given.address };
  const asked = session as {
    customer_email?: string | null;
    phone_number_collection?: { enabled: boolean };
    billing_address_collection?: string | null;
    shipping_address_collection?: unknown;
  };
  const shipping = asked.shipping_address_collection ? given.shipping : undefined;
  return {
    customer_details: {
      address:
        asked.billing_address_collection === 'required'
          ? address
          : { ...nullAddress, country: address.country },
      business_name: null,
      email: asked.customer_email ?? given.email,
      individual_name: null,
      name: given.name,
      phone: asked.phone_number_collection?.enabled ? given.phone : null,
      tax_exempt: 'none',
      tax_ids: [],
    },
    collected_information: shipping
      ? {
          business_name: null,
          individual_name: null,
          shipping_details: {
            name: shipping.name,
            address: { line2: null, state: null, ...shipping.address },
          },
        }
      : null,
  };
}

/** Stripe keeps only the country of a card's billing address that it did not ask for in full. */
export const nullAddress = { city: null, line1: null, line2: null, postal_code: null, state: null };

/** Stripe's three-decimal currencies: their amounts must end in 0 (docs.stripe.com/currencies). */
export const THREE_DECIMAL = new Set(['bhd', 'jod', 'kwd', 'omr', 'tnd']);

export const invalid = (param: string, message: string, code = 'parameter_invalid_integer') => ({
  error: { type: 'invalid_request_error', code, param, message },
});

/** Stripe's answer to a parameter outside its enum. */
export const invalidParameter = (param: string, value: string | undefined) => ({
  error: {
    type: 'invalid_request_error',
    code: 'parameter_invalid_string',
    param,
    message: `Invalid ${param}: ${value}`,
  },
});

/**
 * What Stripe refuses in a Checkout Session's form that its OpenAPI document does not say
 * (docs.stripe.com/api/checkout/sessions/create, docs.stripe.com/api/metadata): a line without `quantity`, and
 * metadata keys over 40 or values over 500 characters. Unknown parameters, lengths and enums are the contract's.
 */
export function checkoutParamProblem(form: Record<string, string>) {
  const error = (param: string, message: string, code = 'parameter_invalid_string') => ({
    error: { type: 'invalid_request_error', code, param, message },
  });
  const lines = new Set(Object.keys(form).flatMap((name) => /^line_items\[(\d+)\]/.exec(name)?.[1] ?? []));
  for (const line of lines) {
    if (form[`line_items[${line}][quantity]`] === undefined) {
      const param = `line_items[${line}][quantity]`;
      return error(param, `Missing required param: ${param}.`, 'parameter_missing');
    }
  }
  for (const [name, value] of Object.entries(form)) {
    const key = /^(?:payment_intent_data\[)?metadata\]?\[(.+)\]$/.exec(name)?.[1];
    if (key === undefined) continue;
    if (key.length > 40) return error(name, 'Metadata keys can be at most 40 characters long.');
    if (value.length > 500) return error(name, 'Metadata values can be at most 500 characters long.');
  }
  return undefined;
}

/**
 * Stripe's 400 for a request its document refuses, from the contract's first violation: the parameter in Stripe's
 * bracket notation (`request body/line_items/0/quantity` is `line_items[0][quantity]`), `parameter_unknown` for a
 * field the document does not list ("Received unknown parameter"), `parameter_invalid` otherwise.
 */
export function contractRefusal(violation: string) {
  const match = /^request body(\S*) (?:has the unknown field (\S+)|(.*))$/.exec(violation);
  const segments = [...(match?.[1] ?? '').split('/').filter(Boolean), ...(match?.[2] ? [match[2]] : [])];
  const param = segments.map((segment, index) => (index === 0 ? segment : `[${segment}]`)).join('');
  return {
    error: {
      type: 'invalid_request_error',
      code: match?.[2] ? 'parameter_unknown' : 'parameter_invalid',
      param: param || undefined,
      message: match?.[2]
        ? `Received unknown parameter: ${param}`
        : `Invalid ${param}: ${match?.[3] ?? violation}`,
    },
  };
}

/**
 * The lines of a session as Stripe checks them (ad-hoc prices: the session's one currency, whole minor units,
 * quantity ≥ 1, a name; a three-decimal currency's amounts ending in 0; the total at least the minimum charge):
 * their total, or Stripe's refusal.
 */
export function linesTotal(form: Record<string, string>): { total: number } | { refusal: unknown } {
  // Line items with ad-hoc prices: every line in the session's one currency, whole minor units, quantity ≥ 1.
  const lines = new Set(Object.keys(form).flatMap((name) => /^line_items\[(\d+)\]/.exec(name)?.[1] ?? []))
    .size;
  let total = 0;
  for (let index = 0; index < lines; index++) {
    const field = (name: string) => form[`line_items[${index}]${name}`];
    const quantity = Number(field('[quantity]'));
    const unitAmount = Number(field('[price_data][unit_amount]'));
    if (!Number.isInteger(quantity) || quantity < 1) {
      return { refusal: invalidParameter(`line_items[${index}][quantity]`, field('[quantity]')) };
    }
    if (!Number.isInteger(unitAmount) || unitAmount < 0) {
      return {
        refusal: invalidParameter(
          `line_items[${index}][price_data][unit_amount]`,
          field('[price_data][unit_amount]'),
        ),
      };
    }
    if (field('[price_data][currency]') !== form['line_items[0][price_data][currency]']) {
      return {
        refusal: invalidParameter(
          `line_items[${index}][price_data][currency]`,
          field('[price_data][currency]'),
        ),
      };
    }
    // Stripe checks each amount it is given, not only the total (docs.stripe.com/currencies).
    if (THREE_DECIMAL.has(field('[price_data][currency]') ?? '') && unitAmount % 10 !== 0) {
      return {
        refusal: invalid(
          `line_items[${index}][price_data][unit_amount]`,
          'Amounts in this currency must be a multiple of 10.',
        ),
      };
    }
    if (!field('[price_data][product_data][name]')) {
      return { refusal: invalidParameter(`line_items[${index}][price_data][product_data][name]`, '') };
    }
    total += quantity * unitAmount;
  }
  // Stripe's minimum charge on the total (docs.stripe.com/currencies), for the currencies the tests use.
  const minimum = { eur: 50, usd: 50, gbp: 30 }[form['line_items[0][price_data][currency]'] ?? ''];
  if (minimum !== undefined && total < minimum) {
    return {
      refusal: {
        error: {
          type: 'invalid_request_error',
          code: 'amount_too_small',
          param: 'line_items[0][price_data][unit_amount]',
          message: "The Checkout Session's total amount due must add up to at least €0.50 eur",
        },
      },
    };
  }
  return { total };
}

/** A new Checkout Session from its form: every field `checkout.session` requires in Stripe's document. */
export function checkoutSession(
  form: Record<string, string>,
  created: { id: string; total: number; at: number; livemode: boolean },
): FakeSession {
  const allowedTypes = Object.entries(form).flatMap(([name, value]) =>
    /^allowed_payment_method_types\[\d*\]$/.test(name) ? [value] : [],
  );
  // Every field `checkout.session` requires in Stripe's document (the answer itself is not judged yet).
  const session: FakeSession = {
    id: created.id,
    object: 'checkout.session',
    allowed_payment_method_types: allowedTypes.length > 0 ? allowedTypes : null,
    amount_subtotal: created.total,
    amount_total: created.total,
    automatic_tax: { enabled: false, liability: null, provider: null, status: null },
    custom_fields: [],
    custom_text: {
      after_submit: null,
      shipping_address: null,
      submit: null,
      terms_of_service_acceptance: null,
    },
    payment_method_types: allowedTypes.length > 0 ? allowedTypes : ['card'],
    shipping_options: [],
    cancel_url: form.cancel_url ?? null,
    client_reference_id: form.client_reference_id ?? null,
    customer_email: form.customer_email ?? null,
    customer_details: null,
    collected_information: null,
    phone_number_collection: { enabled: form['phone_number_collection[enabled]'] === 'true' },
    billing_address_collection: form.billing_address_collection ?? null,
    shipping_address_collection: form['shipping_address_collection[allowed_countries][0]']
      ? {
          allowed_countries: Object.entries(form).flatMap(([name, value]) =>
            /^shipping_address_collection\[allowed_countries\]\[\d+\]$/.test(name) ? [value] : [],
          ),
        }
      : null,
    created: created.at,
    currency: form['line_items[0][price_data][currency]'],
    expires_at: Number(form.expires_at ?? created.at + 86_400),
    livemode: created.livemode,
    locale: form.locale ?? null,
    metadata: Object.fromEntries(
      Object.entries(form).flatMap(([name, value]) => {
        const field = /^metadata\[(.+)\]$/.exec(name)?.[1];
        return field ? [[field, value]] : [];
      }),
    ),
    mode: form.mode,
    payment_intent: null,
    payment_status: 'unpaid',
    status: 'open',
    success_url: form.success_url ?? null,
    url: `https://checkout.stripe.com/c/pay/${created.id}`,
  };
  return session;
}
