import { describe, expect, it } from 'vitest';
import {
  type Collect,
  detailsOurPageAsks,
  detailsPspPageAsks,
  type PageAsks,
} from '../../functions/domain/buyer.ts';
import { buyerDetails, e164Phone, withPspBuyer } from '../../functions/domain/buyer-details.ts';
import {
  checkoutReferences,
  REFERENCES_COOKIE,
  referencesCookie,
  wellFormedReferences,
} from '../../functions/http/checkout/references.ts';
import { withoutPersonalData } from '../../functions/logger.ts';

describe("what a PSP's page asks (its descriptor's pageAsks)", () => {
  const collect: Collect = {
    email: 'optional',
    phone: 'optional',
    billing_address: 'required',
    shipping_address: { countries: ['NL'] },
  };
  /** A page that always asks the e-mail and asks the rest when told, as required. */
  const asksEverything: PageAsks = {
    email: 'always',
    phone: 'required',
    billing_address: 'required',
    shipping_address: 'required',
  };
  /** A page that asks three details, each only as required, and no shipping address held to countries. */
  const asksRequiredOnly: PageAsks = { email: 'required', phone: 'required', billing_address: 'required' };

  it('leaves to the page what it asks as collect asks it, and to ours an optional detail it asks only as required', () => {
    expect(detailsOurPageAsks(collect, asksEverything)).toEqual(['phone']);
    // The e-mail the page always asks needs no asking; the billing and shipping address do.
    expect(detailsPspPageAsks(collect, asksEverything)).toEqual(['billing_address', 'shipping_address']);
  });

  it('asks on ours what the page asks only as required, and what it cannot ask at all', () => {
    expect(detailsOurPageAsks(collect, asksRequiredOnly)).toEqual(['email', 'phone', 'shipping_address']);
    expect(detailsPspPageAsks(collect, asksRequiredOnly)).toEqual(['billing_address']);
    expect(detailsPspPageAsks({ email: 'required', phone: 'required' }, asksRequiredOnly)).toEqual([
      'email',
      'phone',
    ]);
  });

  it('asks everything but an always-asked e-mail on ours, and everything when the page asks nothing', () => {
    expect(detailsOurPageAsks(collect, { email: 'always' })).toEqual([
      'phone',
      'billing_address',
      'shipping_address',
    ]);
    expect(detailsOurPageAsks(collect, {})).toEqual([
      'email',
      'phone',
      'billing_address',
      'shipping_address',
    ]);
    expect(detailsPspPageAsks(collect, {})).toEqual([]);
    expect(detailsOurPageAsks(null, asksEverything)).toEqual([]);
  });
});

describe("a PSP's report of its buyer, normalised", () => {
  it('reads phone numbers into E.164, in the country of the address when they have no +', async () => {
    expect(await e164Phone('06 12345678', 'NL')).toBe('+31612345678');
    expect(await e164Phone('+32 470 12 34 56')).toBe('+32470123456');
    expect(await e164Phone('12', 'NL')).toBeUndefined();
    expect(await e164Phone('not a number')).toBeUndefined();
  });

  it('keeps ISO countries in upper case and leaves out an address without its street, city or country', async () => {
    expect(
      await buyerDetails({
        email: ' ann@example.com ',
        name: 'Ann\u0000 \n Example',
        billing_address: { line1: 'Main St 1', city: 'Gent', country: 'be', postal_code: null },
        shipping_address: { line1: 'Main St 1', city: null, country: 'BE' },
      }),
    ).toEqual({
      email: 'ann@example.com',
      name: 'Ann Example',
      billing_address: { line1: 'Main St 1', city: 'Gent', country: 'BE' },
    });
    expect(await buyerDetails({ billing_address: { line1: 'x', city: 'y', country: 'XX' } })).toBeUndefined();
    expect(await buyerDetails({ email: 'no-at-sign' })).toBeUndefined();
  });

  it('cuts text at its length and at twice as many bytes of UTF-8', async () => {
    expect((await buyerDetails({ name: 'a'.repeat(300) }))?.name).toHaveLength(200);
    expect((await buyerDetails({ name: '\u20ac'.repeat(300) }))?.name).toHaveLength(133);
  });

  it('completes what our page stored with what the PSP reports, ours standing, and never un-erases', () => {
    expect(withPspBuyer({ phone: '+31612345678' }, { email: 'a@b.nl', phone: '+31600000000' })).toEqual({
      email: 'a@b.nl',
      phone: '+31612345678',
    });
    expect(withPspBuyer({ erased_at: '2026-01-01T00:00:00Z' }, { email: 'a@b.nl' })).toEqual({
      erased_at: '2026-01-01T00:00:00Z',
    });
    expect(withPspBuyer(undefined, undefined)).toBeUndefined();
  });
});

describe('the references of a checkout visit', () => {
  const page = { checkoutBase: 'https://pay.example.com/c', linkId: 'pl_x', https: true };

  it('keeps only well-formed values', () => {
    expect(wellFormedReferences({ client_reference_id: 'order_1-A', prefilled_email: 'a@b.nl' })).toEqual({
      client_reference_id: 'order_1-A',
      prefilled_email: 'a@b.nl',
    });
    expect(
      wellFormedReferences({ client_reference_id: 'a b', prefilled_email: `${'a'.repeat(250)}@b.nl` }),
    ).toEqual({});
    expect(wellFormedReferences({ client_reference_id: 'x'.repeat(201) })).toEqual({});
  });

  it("are kept in the page's cookie for its next steps, and a new address's references replace them", () => {
    const visit = { queryStringParameters: { client_reference_id: 'order-1', prefilled_email: 'a+b@c.nl' } };
    const cookie = referencesCookie(visit, page);
    expect(cookie).toMatch(
      new RegExp(`^${REFERENCES_COOKIE}=[^;]+; Path=/c/pl_x; Max-Age=86400; HttpOnly; SameSite=Lax; Secure$`),
    );
    const kept = [cookie?.split(';')[0] as string];
    expect(checkoutReferences({ cookies: kept })).toEqual({
      client_reference_id: 'order-1',
      prefilled_email: 'a+b@c.nl',
    });
    expect(
      checkoutReferences({ cookies: kept, queryStringParameters: { client_reference_id: 'order-2' } }),
    ).toEqual({ client_reference_id: 'order-2' });
    expect(
      referencesCookie({ queryStringParameters: { client_reference_id: '<script>' } }, page),
    ).toBeUndefined();
    expect(checkoutReferences({ cookies: [`${REFERENCES_COOKIE}=%%%`] })).toEqual({});
  });
});

describe('an error as logged', () => {
  it("keeps its name, message and causes, without the buyer's values or the request and answer an SDK hangs on it", () => {
    const sdkError = Object.assign(new Error('Invalid email address: kim@example.com'), {
      request: { body: '{"email_address":"kim@example.com"}', headers: { authorization: 'Bearer token' } },
    });
    const logged = withoutPersonalData(new Error('The PSP refused', { cause: sdkError }), [
      'kim@example.com',
    ]);
    expect(JSON.stringify(logged)).not.toMatch(/kim@example\.com|Bearer/);
    expect(logged).toMatchObject({
      name: 'Error',
      message: 'The PSP refused',
      cause: { name: 'Error', message: 'Invalid email address: [redacted]' },
    });
    expect(withoutPersonalData('not an error', ['x'])).toBe('not an error');
  });

  it("keeps its stack, or for a failure our code classified only its causes' (ownStack: false)", () => {
    const sdkError = new Error('socket hang up');
    const classified = new Error('The PSP did not answer', { cause: sdkError });
    expect(withoutPersonalData(classified, [])).toHaveProperty('stack');
    const logged = withoutPersonalData(classified, [], { ownStack: false });
    expect(logged).not.toHaveProperty('stack');
    expect(logged).toMatchObject({
      message: 'The PSP did not answer',
      cause: { message: 'socket hang up', stack: expect.stringContaining('socket hang up') },
    });
  });
});
