import { beforeAll, describe, expect, it } from 'vitest';
import type { Collect, PageAsks } from '../../functions/domain/buyer.ts';
import {
  customFieldProblem,
  detailsMissingFor,
  readAnswers,
} from '../../functions/domain/checkout/answers.ts';
import { readDetails } from '../../functions/domain/checkout/buyer-answers.ts';
import { type FormTables, loadFormTables } from '../../functions/domain/checkout/form-tables.ts';
import {
  askedForm,
  candidatesWithDetails,
  linkAsAsked,
  readPosted,
} from '../../functions/domain/checkout/questions.ts';
import type { PspConnection } from '../../functions/domain/connection.ts';
import type { CustomField } from '../../functions/domain/custom-fields.ts';
import type { PaymentLink } from '../../functions/domain/payment-link.ts';

/** The rules of the "before you pay" form (docs/checkout.md#buyer-details, #custom-fields, #quantities). */

const form = (fields: Record<string, string>) => new Map(Object.entries(fields));

const link = (overrides: Partial<PaymentLink> = {}) =>
  ({
    id: 'pl_test',
    amount_kind: 'line_items',
    amount: { value: '65.00', currency: 'EUR' },
    amount_range: null,
    line_items: [
      {
        name: 'Ticket',
        quantity: 2,
        unit_amount: { value: '25.00', currency: 'EUR' },
        adjustable_quantity: { enabled: true, minimum: 1, maximum: 10 },
      },
      { name: 'Shirt', quantity: 1, unit_amount: { value: '15.00', currency: 'EUR' } },
    ],
    collect: null,
    custom_fields: null,
    ...overrides,
  }) as PaymentLink;

const connection = (id: string, provider: PspConnection['provider']) => ({ id, provider }) as PspConnection;

describe('custom fields', () => {
  const text: CustomField = {
    key: 'note',
    label: 'Note',
    type: 'text',
    optional: false,
    text: { minimum_length: 2, maximum_length: 4 },
  };
  const numeric: CustomField = { key: 'id', label: 'Id', type: 'numeric', optional: true, numeric: null };
  const dropdown: CustomField = {
    key: 'size',
    label: 'Size',
    type: 'dropdown',
    optional: false,
    dropdown: { options: [{ label: 'Small', value: 's' }] },
  };

  it.each([
    [text, '', 'missing'],
    [text, 'a', 'too_short'],
    [text, 'abcde', 'too_long'],
    [text, '😀😀', undefined],
    [numeric, '', undefined],
    [numeric, '0042', undefined],
    [numeric, '4 2', 'not_digits'],
    [numeric, '٤٢', 'not_digits'],
    [numeric, '1'.repeat(256), 'too_long'],
    [dropdown, 'S', 'not_an_option'],
    [dropdown, 's', undefined],
  ])('%#: %j answered %j is %s', (field, value, problem) => {
    expect(customFieldProblem(field, value)).toBe(problem);
  });
});

describe('quantities', () => {
  it('charge the lines as picked and record each line’s quantity in order', () => {
    const read = readAnswers(link(), form({ quantity_0: '3' }));
    expect(read).toMatchObject({
      ok: true,
      amount: { value: '90.00', currency: 'EUR' },
      answers: { quantities: [3, 1] },
    });
  });

  it.each(['0', '11', '2.5', '-1', '1e1', '', '99999999999999999999'])('refuse %j', (quantity) => {
    const read = readAnswers(link(), form({ quantity_0: quantity }));
    expect(read.ok).toBe(false);
  });

  it('refuse a total beyond what any amount may be', () => {
    const huge = link({
      line_items: [
        {
          name: 'Gold',
          quantity: 1,
          unit_amount: { value: '999999999999', currency: 'EUR' },
          adjustable_quantity: { enabled: true, minimum: 1, maximum: 10_000 },
        },
      ],
    });
    expect(readAnswers(huge, form({ quantity_0: '10000' }))).toMatchObject({
      ok: false,
      problems: [{ field: 'quantity_0', problem: 'total_not_payable' }],
    });
  });
});

describe('buyer details', () => {
  const collect: Collect = { email: 'required', phone: 'optional', shipping_address: { countries: ['NL'] } };
  let tables: FormTables;
  beforeAll(async () => {
    tables = await loadFormTables();
  });

  it('keep what was asked and given: the phone as E.164, read in the address’s country', () => {
    const read = readDetails(
      form({
        email: ' ada@example.com ',
        phone: '020 123 4567',
        shipping_name: 'Ada',
        shipping_line1: 'Keizersgracht 1',
        shipping_city: 'Amsterdam',
        shipping_postal_code: '1015CJ',
        shipping_country: 'nl',
      }),
      collect,
      tables,
    );
    expect(read.problems).toEqual([]);
    expect(read.buyer).toEqual({
      email: 'ada@example.com',
      phone: '+31201234567',
      name: 'Ada',
      shipping_address: { line1: 'Keizersgracht 1', city: 'Amsterdam', postal_code: '1015CJ', country: 'NL' },
    });
  });

  it('read only the details the form asked', () => {
    expect(readDetails(form({}), collect, tables)).toEqual({ buyer: {}, asked: [], problems: [] });
  });

  it.each([
    [{ email: 'a@b' }, 'email', undefined],
    [{ email: 'a b@c.d' }, 'email', 'invalid_email'],
    [{ email: '' }, 'email', 'missing'],
    [{ phone: '+1 555' }, 'phone', 'invalid_phone'],
    [{ shipping_line1: 'x', shipping_country: 'DE' }, 'shipping_country', 'country_not_shipped'],
    [{ shipping_line1: 'x', shipping_country: 'ZZ' }, 'shipping_country', 'invalid_country'],
    [
      { shipping_line1: 'x', shipping_country: 'NL', shipping_postal_code: '10115' },
      'shipping_postal_code',
      'invalid_postal_code',
    ],
    [{ shipping_line1: 'x', shipping_country: 'NL' }, 'shipping_postal_code', 'missing'],
    [{ shipping_line1: 'x' }, 'shipping_postal_code', 'missing'],
    [
      { shipping_line1: 'x', shipping_country: 'NL', shipping_postal_code: '1015 CJ' },
      'shipping_postal_code',
      undefined,
    ],
  ])('%#: %j at %s is %s', (fields, field, problem) => {
    const read = readDetails(form({ email: 'a@b.c', ...fields }), collect, tables);
    expect(read.problems.find((refused) => refused.field === field)?.problem).toBe(problem);
  });
});

describe('which details our page asks, by the connection that serves the amount', () => {
  const collecting = link({ collect: { email: 'required', phone: 'optional' } });
  /** Pages as descriptors state them: one that asks everything, one that asks only as required, one that asks nothing. */
  const pages = {
    everything: {
      email: 'always',
      phone: 'required',
      billing_address: 'required',
      shipping_address: 'required',
    },
    requiredOnly: { email: 'required', phone: 'required', billing_address: 'required' },
    nothing: {},
  } satisfies Record<string, PageAsks>;
  const psps = {
    rules: (provider: string) => ({
      amounts: { psp: provider },
      pageAsks: (pages as Record<string, PageAsks>)[provider] ?? {},
      methods: {},
    }),
  };

  it('asks nothing a page asks itself, and the optional details at a page that asks only required ones', () => {
    expect(
      askedForm(link({ collect: { email: 'required' }, line_items: null }), pages.everything, {}),
    ).toBeUndefined();
    expect(askedForm(collecting, pages.requiredOnly, {})?.details).toEqual(['phone']);
    expect(askedForm(collecting, pages.nothing, {})?.details).toEqual(['email', 'phone']);
  });

  it('never opens a session at a page that cannot ask a required detail the buyer was not asked', () => {
    const candidates = [connection('pc_nothing', 'nothing'), connection('pc_everything', 'everything')];
    expect(candidatesWithDetails(collecting, candidates, [], psps)).toEqual({
      candidates: [candidates[1]],
      missing: [],
    });
    expect(candidatesWithDetails(collecting, [candidates[0]!], [], psps)).toEqual({
      candidates: [],
      missing: ['email'],
    });
    expect(candidatesWithDetails(collecting, [candidates[0]!], ['email'], psps).candidates).toHaveLength(1);
    // An optional detail is never a reason to skip a connection.
    expect(detailsMissingFor(collecting, pages.requiredOnly, [])).toEqual([]);
  });
});

describe('details the link does not ask', () => {
  it('are never read, whatever the form posted', () => {
    const read = readDetails(form({ email: 'ada@example.com', shipping_line1: 'x' }), { phone: 'optional' });
    expect(read).toEqual({ buyer: {}, asked: [], problems: [] });
    expect(readDetails(form({ email: 'ada@example.com' }), null).buyer).toEqual({});
  });
});

describe('details a PSP needs for every session (docs/checkout.md#details-a-psp-needs)', () => {
  /** A PSP whose page asks nothing and that takes no payment without the buyer's e-mail, beside one without needs. */
  const psps = {
    rules: (provider: string) => ({
      amounts: { psp: provider },
      pageAsks: {},
      methods: {},
      ...(provider === 'needy' ? { needs: ['email' as const] } : {}),
    }),
  };
  const plain = link({ line_items: null, amount_kind: 'fixed' });
  const needy = [connection('pc_needy', 'needy')];

  it('asks the e-mail first, as required, of a link that does not collect it, when a routed PSP needs it', () => {
    const asking = linkAsAsked(plain, needy, psps);
    expect(asking.collect).toEqual({ email: 'required' });
    expect(askedForm(asking, {}, {})?.details).toEqual(['email']);
    expect(askedForm(plain, {}, {})).toBeUndefined();
    // An optional e-mail is asked as required there.
    expect(
      linkAsAsked(link({ collect: { email: 'optional', phone: 'optional' } }), needy, psps).collect,
    ).toEqual({
      email: 'required',
      phone: 'optional',
    });
  });

  it('reads the e-mail posted, refuses the form without one, and never opens that PSP unasked', () => {
    const asking = linkAsAsked(plain, needy, psps);
    expect(readPosted(asking, undefined, form({ email: 'ada@example.com' }))).toMatchObject({
      answered: { answers: { buyer: { email: 'ada@example.com' } }, asked: ['email'] },
    });
    expect(readPosted(asking, undefined, form({ email: '' }))).toMatchObject({
      refused: { form: { problems: [{ field: 'email', problem: 'missing' }] } },
    });
    expect(candidatesWithDetails(asking, needy, [], psps)).toEqual({ candidates: [], missing: ['email'] });
  });

  it('changes nothing when no routed PSP needs a detail, or the link already requires it', () => {
    expect(linkAsAsked(plain, [connection('pc_other', 'other')], psps)).toBe(plain);
    const requiring = link({ collect: { email: 'required' } });
    expect(linkAsAsked(requiring, needy, psps)).toBe(requiring);
  });
});
