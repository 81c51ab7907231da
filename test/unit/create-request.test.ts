import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ValidationError } from '../../functions/domain/errors.ts';
import { createPaymentLinkRequest } from '../../functions/http/api/schemas.ts';
import { validate } from '../../functions/http/validate.ts';

const testMode = createPaymentLinkRequest('test', false);
const liveMode = createPaymentLinkRequest('live', false);
/** Where the deployment allows private targets (the local stack). */
const localLive = createPaymentLinkRequest('live', true);
const localTest = createPaymentLinkRequest('test', true);

function fieldErrors(schema: typeof testMode, body: unknown): Record<string, string> {
  try {
    validate(schema, body);
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return Object.fromEntries((error as ValidationError).errors?.map((e) => [e.pointer, e.detail]) ?? []);
  }
  return {};
}

const eur = (value: unknown) => ({ amount: { value, currency: 'EUR' } });

describe('the create-link request (docs/api.md#create-a-payment-link)', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: new Date('2026-06-01T00:00:00Z'), toFake: ['Date'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it.each(['10', '10.5', '10.50'])('accepts the EUR amount %j and keeps it byte for byte', (value) => {
    expect(validate(testMode, eur(value)).amount?.value).toBe(value);
  });

  it.each([['10.505'], ['1e3'], ['-1'], ['0.00'], [' 10'], [10], [null], ['1000000000000']])(
    'rejects the EUR amount %j at /amount/value',
    (value) => {
      expect(Object.keys(fieldErrors(testMode, eur(value)))).toEqual(['/amount/value']);
    },
  );

  it('refuses private targets for live links even where the deployment allows them for test links', () => {
    const body = { ...eur('1'), webhook_url: 'https://10.1.2.3/hooks', redirect_url: 'https://[::1]/done' };
    expect(Object.keys(fieldErrors(localLive, body))).toEqual(['/redirect_url', '/webhook_url']);
    expect(fieldErrors(localTest, body)).toEqual({});
  });

  it('applies each currency minor units: JPY 0, KWD 3', () => {
    expect(fieldErrors(testMode, { amount: { value: '100.5', currency: 'JPY' } })).toHaveProperty([
      '/amount/value',
    ]);
    expect(fieldErrors(testMode, { amount: { value: '100', currency: 'JPY' } })).toEqual({});
    expect(fieldErrors(testMode, { amount: { value: '1.234', currency: 'KWD' } })).toEqual({});
    expect(fieldErrors(testMode, { amount: { value: '1.2345', currency: 'KWD' } })).toHaveProperty([
      '/amount/value',
    ]);
  });

  it('rejects unknown, lower-case and missing currencies', () => {
    for (const currency of ['eur', 'ABC', '', undefined]) {
      expect(fieldErrors(testMode, { amount: { value: '1', currency } })).toHaveProperty([
        '/amount/currency',
      ]);
    }
  });

  it('rejects unknown fields at the top level and in amount, one entry each', () => {
    const errors = fieldErrors(testMode, {
      amount: { value: '1', currency: 'EUR', cents: 100 },
      redirectUrl: 'https://example.com',
    });
    expect(errors).toEqual({ '/amount/cents': 'Unknown field.', '/redirectUrl': 'Unknown field.' });
  });

  it('reports every bad field at once', () => {
    const errors = fieldErrors(testMode, {
      amount: { value: 'ten', currency: 'EUR' },
      description: 'x'.repeat(256),
      webhook_url: 'ftp://example.com',
      metadata: { '': 'empty key' },
    });
    expect(Object.keys(errors).sort()).toEqual([
      '/amount/value',
      '/description',
      '/metadata/',
      '/webhook_url',
    ]);
  });

  it('accepts a description of 255 characters and not 256', () => {
    expect(fieldErrors(testMode, { ...eur('1'), description: 'é'.repeat(255) })).toEqual({});
    expect(fieldErrors(testMode, { ...eur('1'), description: 'x'.repeat(256) })).toHaveProperty([
      '/description',
    ]);
  });

  it('accepts http URLs for test-mode links only', () => {
    const body = { ...eur('1'), redirect_url: 'http://shop.example.com/done' };
    expect(fieldErrors(testMode, body)).toEqual({});
    expect(fieldErrors(liveMode, body)).toHaveProperty(['/redirect_url']);
  });

  it('rejects private webhook targets unless the deployment allows them', () => {
    const body = { ...eur('1'), webhook_url: 'https://169.254.169.254/latest' };
    expect(fieldErrors(liveMode, body)).toHaveProperty(['/webhook_url']);
    expect(fieldErrors(createPaymentLinkRequest('test', true), body)).toEqual({});
  });

  it('limits metadata to 50 keys of 1-40 characters with string values of at most 500', () => {
    const fifty = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, 'v']));
    expect(fieldErrors(testMode, { ...eur('1'), metadata: fifty })).toEqual({});
    expect(fieldErrors(testMode, { ...eur('1'), metadata: { ...fifty, k50: 'v' } })).toHaveProperty([
      '/metadata',
    ]);
    expect(fieldErrors(testMode, { ...eur('1'), metadata: { ['k'.repeat(41)]: 'v' } })).not.toEqual({});
    expect(fieldErrors(testMode, { ...eur('1'), metadata: { k: 'v'.repeat(501) } })).toHaveProperty([
      '/metadata/k',
    ]);
    expect(fieldErrors(testMode, { ...eur('1'), metadata: { k: 1 } })).toHaveProperty(['/metadata/k']);
  });

  it('rejects a metadata key named __proto__ instead of dropping it silently', () => {
    const body = JSON.parse('{"amount":{"value":"1","currency":"EUR"},"metadata":{"__proto__":"x","a":"b"}}');
    expect(fieldErrors(testMode, body)).toEqual({ '/metadata/__proto__': 'This key name is reserved.' });
  });

  it('accepts expires_at in the future up to 365 days ahead', () => {
    expect(fieldErrors(testMode, { ...eur('1'), expires_at: '2026-06-02T00:00:00Z' })).toEqual({});
    expect(fieldErrors(testMode, { ...eur('1'), expires_at: '2026-06-02T02:00:00+02:00' })).toEqual({});
    expect(fieldErrors(testMode, { ...eur('1'), expires_at: '2026-05-31T00:00:00Z' })).toHaveProperty([
      '/expires_at',
    ]);
    expect(fieldErrors(testMode, { ...eur('1'), expires_at: '2027-06-02T00:00:00Z' })).toHaveProperty([
      '/expires_at',
    ]);
    expect(fieldErrors(testMode, { ...eur('1'), expires_at: 'tomorrow' })).toHaveProperty(['/expires_at']);
    // RFC 3339 to the nanosecond with an offset is 35 characters; a longer fraction is no timestamp we store.
    expect(fieldErrors(testMode, { ...eur('1'), expires_at: '2026-06-02T00:00:00.123456789+01:00' })).toEqual(
      {},
    );
    expect(
      fieldErrors(testMode, { ...eur('1'), expires_at: `2026-06-02T00:00:00.${'0'.repeat(1000)}Z` }),
    ).toEqual({ '/expires_at': 'Must have at most 35 characters.' });
  });

  it('rejects a body that is not an object', () => {
    for (const body of [[], 'x', 42, null]) expect(fieldErrors(testMode, body)).toHaveProperty(['']);
  });
});
