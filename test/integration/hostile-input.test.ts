import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../support/test-stack.ts';

let stack: TestStack;
let key: string;

beforeAll(async () => {
  stack = await startTestStack();
  key = (await stack.issueKey('fuzz', 'test')).api_key;
});
afterAll(() => stack.stop());

/** Bodies a careless or hostile client may send: wrong types, deep nesting, huge strings, arrays. */
const hostileValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.boolean(),
    fc.double(),
    fc.integer(),
    fc.string(),
    fc.string({ unit: 'grapheme', maxLength: 300 }),
    fc.constantFrom(
      '10.00',
      'EUR',
      '__proto__',
      'constructor',
      'https://127.0.0.1/',
      '1e309',
      'x'.repeat(5000),
    ),
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(
      fc.constantFrom('amount', 'value', 'currency', 'metadata', '__proto__', 'description', 'x'),
      tie('value'),
      {
        maxKeys: 6,
      },
    ),
  ),
})).value;

const nearlyValid = fc.record({
  amount: fc.oneof(hostileValue, fc.record({ value: hostileValue, currency: hostileValue })),
  description: hostileValue,
  redirect_url: hostileValue,
  webhook_url: hostileValue,
  metadata: hostileValue,
  expires_at: hostileValue,
});

describe('hostile request bodies', () => {
  it('never get a 5xx: every answer is 201 or a 4xx problem', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(hostileValue, nearlyValid), async (body) => {
        const response = await stack.request('POST', '/v1/payment-links', { key, body });
        expect(response.status === 201 || (response.status >= 400 && response.status < 500)).toBe(true);
        if (response.status !== 201)
          expect(response.headers.get('content-type')).toBe('application/problem+json');
      }),
      { numRuns: 300 },
    );
  });

  it('deeply nested JSON is a 400, not a crash, with or without an Idempotency-Key', async () => {
    for (const depth of [1_000, 15_000]) {
      for (const idempotency of [{}, { 'idempotency-key': `deep-${depth}` }] as Record<string, string>[]) {
        const rawBody = `${'['.repeat(depth)}${']'.repeat(depth)}`;
        const response = await stack.request('POST', '/v1/payment-links', {
          key,
          rawBody,
          headers: { 'content-type': 'application/json', ...idempotency },
        });
        expect(response.status).toBe(400);
        expect(response.body.code).toBe('invalid_json');
      }
    }
  });

  it('an id of any length or shape in a path or a PSP notification is a 4xx, never a store error', async () => {
    const long = 'a'.repeat(3000);
    const responses = await Promise.all([
      stack.request('GET', `/v1/payment-links/pl_${long}`, { key }),
      stack.request('GET', `/v1/payment-links/pl_${long}/events`, { key }),
      stack.request('POST', `/v1/payment-links/pl_${long}/cancel`, { key }),
      stack.request('POST', `/v1/events/evt_${long}/redeliver`, { key }),
      stack.request('GET', `/v1/payment-links/${encodeURIComponent('pl_x/../..')}`, { key }),
      stack.request('POST', '/psp/sandbox/notifications', {
        body: {
          type: 'sandbox.session.completed',
          session_id: 's',
          link_id: `pl_${long}`,
          mode: 'test',
          created: 1,
        },
      }),
    ]);
    expect(responses.map((response) => response.status)).toEqual([404, 404, 404, 404, 404, 400]);
  });

  it('raw bytes that are not UTF-8 are malformed JSON', async () => {
    const response = await fetch(`${stack.baseUrl}/v1/payment-links`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: Buffer.from([0x7b, 0xff, 0xfe, 0x7d]),
    });
    expect(response.status).toBe(400);
  });
});
