import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idempotencyStore, linkRepository } from '../../functions/dependencies.ts';
import { markPaid } from '../../functions/domain/link-events.ts';
import { newPaymentLink } from '../../functions/domain/payment-link.ts';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { IDEMPOTENCY_LOCK_SECONDS, runIdempotently } from '../../functions/use-cases/idempotency.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';

let stack: TestStack;
let acme: IssuedApiKey;
let globex: IssuedApiKey;

beforeAll(async () => {
  stack = await startTestStack();
  acme = await stack.issueKey('acme', 'test');
  globex = await stack.issueKey('globex', 'test');
});
afterAll(() => stack.stop());

const body = { amount: { value: '12.00', currency: 'EUR' }, metadata: { order: '7' } };
const post = (key: string, idempotencyKey: string | undefined, payload: unknown = body) =>
  stack.request('POST', '/v1/payment-links', {
    key,
    body: payload,
    headers: idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey },
  });
/** A cancel with no body at all. */
const cancel = (key: string, idempotencyKey: string, id: string) =>
  stack.request('POST', `/v1/payment-links/${id}/cancel`, {
    key,
    headers: { 'idempotency-key': idempotencyKey },
  });
const linkCount = async (key: string) =>
  (await stack.request('GET', '/v1/payment-links?limit=100', { key })).body.data.length as number;

describe('Idempotency-Key on POST', () => {
  it('replays the first response, same status, body and headers, with Idempotent-Replayed: true', async () => {
    const first = await post(acme.api_key, 'order-7');
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    // The same body with its members in another order is the same request.
    const second = await post(acme.api_key, 'order-7', { metadata: { order: '7' }, amount: body.amount });
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get('location')).toBe(first.headers.get('location'));
    expect(second.headers.get('content-type')).toBe('application/json');
    expect(second.headers.get('idempotent-replayed')).toBe('true');
  });

  it('replays the first response byte for byte after the link was changed and paid', async () => {
    const first = await post(acme.api_key, 'changed-later');
    const patched = await stack.request('PATCH', `/v1/payment-links/${first.body.id}`, {
      key: acme.api_key,
      body: { description: 'Corrected', metadata: null },
    });
    expect(patched.status).toBe(200);
    const link = (await linkRepository().get(first.body.id, 'test'))!;
    await linkRepository().commit(
      markPaid(
        link,
        { id: 'pay_y', connection_id: 'pc_y', provider: 'sandbox', reference: 'p', amount: link.amount! },
        new Date(),
      )!,
    );
    const replay = await post(acme.api_key, 'changed-later');
    expect(replay.status).toBe(201);
    // Member for member, in the same order.
    expect(JSON.stringify(replay.body)).toBe(JSON.stringify(first.body));
    expect(replay.body.status).toBe('open');
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
  });

  it('answers 422 idempotency_key_reused to the same key with another body, and creates nothing', async () => {
    await post(acme.api_key, 'reuse-1');
    const before = await linkCount(acme.api_key);
    const response = await post(acme.api_key, 'reuse-1', { amount: { value: '99.00', currency: 'EUR' } });
    expect(response.status).toBe(422);
    expect(response.body).toMatchObject({
      code: 'idempotency_key_reused',
      type: '/problems/idempotency_key_reused',
    });
    expect(await linkCount(acme.api_key)).toBe(before);
  });

  it('treats the same key on another operation as a different request', async () => {
    const created = await post(acme.api_key, 'cross-op');
    const canceled = await cancel(acme.api_key, 'cross-op', created.body.id);
    expect(canceled.body.code).toBe('idempotency_key_reused');
  });

  it('scopes keys by account: two tenants may use the same key', async () => {
    const mine = await post(acme.api_key, 'shared-key');
    const theirs = await post(globex.api_key, 'shared-key');
    expect(theirs.status).toBe(201);
    expect(theirs.body.id).not.toBe(mine.body.id);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
  });

  it('creates exactly one link for 10 concurrent requests with the same key; the others replay it or get 409', async () => {
    const tenant = await stack.issueKey('racer', 'test');
    const responses = await Promise.all(Array.from({ length: 10 }, () => post(tenant.api_key, 'burst')));
    const created = responses.filter(
      (r) => r.status === 201 && r.headers.get('idempotent-replayed') === null,
    );
    expect(created).toHaveLength(1);
    for (const response of responses) {
      if (response.status === 201) expect(response.body.id).toBe(created[0]?.body.id);
      else expect(response.body).toMatchObject({ status: 409, code: 'idempotency_in_progress' });
      if (response.status === 409) expect(response.headers.get('retry-after')).toBe('1');
    }
    expect(await linkCount(tenant.api_key)).toBe(1);
  });

  it('answers 422 with pointer /Idempotency-Key to a key over 255 characters', async () => {
    const response = await post(acme.api_key, 'k'.repeat(256));
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual([{ pointer: '/Idempotency-Key', detail: expect.any(String) }]);
    expect((await post(acme.api_key, 'k'.repeat(255))).status).toBe(201);
  });

  it('does not keep a validation failure: the fixed body may be retried with the same key', async () => {
    const invalid = await post(acme.api_key, 'fix-me', { amount: { value: '1.001', currency: 'EUR' } });
    expect(invalid.body.code).toBe('validation_failed');
    const fixed = await post(acme.api_key, 'fix-me', { amount: { value: '1.00', currency: 'EUR' } });
    expect(fixed.status).toBe(201);
  });

  it('keeps other 4xx results: a cancel that was 409 invalid_state replays its 409', async () => {
    const link = newPaymentLink(
      { account: 'acme', mode: 'test' },
      { amount: { value: '1', currency: 'EUR' } },
      new Date(),
    );
    await linkRepository().create(link);
    await linkRepository().commit(
      markPaid(
        link,
        {
          id: 'pay_x',
          connection_id: 'pc_x',
          provider: 'sandbox' as const,
          reference: 'p',
          amount: link.amount!,
        },
        new Date(),
      )!,
    );
    const first = await cancel(acme.api_key, 'cancel-paid', link.id);
    const replay = await cancel(acme.api_key, 'cancel-paid', link.id);
    expect(first.body.code).toBe('invalid_state');
    expect(replay.status).toBe(409);
    expect(replay.body).toEqual(first.body);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
  });

  it('replays a cancel without sending a second event', async () => {
    const link = (await post(acme.api_key, undefined)).body;
    const first = await cancel(acme.api_key, 'cancel-once', link.id);
    const replay = await cancel(acme.api_key, 'cancel-once', link.id);
    expect(first.body.status).toBe('canceled');
    expect(replay.body).toEqual(first.body);
    expect((await linkRepository().get(link.id, 'test'))?.event_ids).toHaveLength(1);
  });

  it('runs requests without the header every time', async () => {
    const a = await post(acme.api_key, undefined);
    const b = await post(acme.api_key, undefined);
    expect(a.body.id).not.toBe(b.body.id);
  });
});

describe('the idempotency store', () => {
  const scope = { account: 'store', mode: 'test' as const, key: 'k' };
  const ok = { statusCode: 201, headers: { 'Content-Type': 'application/json' }, body: '{"n":1}' };

  it('frees a key after 24 hours even though the embedded store never deletes expired items', async () => {
    let now = new Date('2026-01-01T00:00:00Z');
    const deps = { store: idempotencyStore(), now: () => now };
    let runs = 0;
    const execute = async () => ({ response: { ...ok, body: `{"n":${++runs}}` }, keep: true });
    await runIdempotently(deps, scope, 'fp', execute);
    now = new Date('2026-01-01T23:59:00Z');
    expect(await runIdempotently(deps, scope, 'fp', execute)).toMatchObject({
      replayed: true,
      response: { body: '{"n":1}' },
    });
    now = new Date('2026-01-02T00:00:01Z');
    expect(await runIdempotently(deps, { ...scope }, 'other', execute)).toMatchObject({
      replayed: false,
      response: { body: '{"n":2}' },
    });
  });

  it('answers in progress while the first holder runs, and lets a retry take over once its lock has lapsed', async () => {
    let now = new Date('2026-02-01T00:00:00Z');
    const deps = { store: idempotencyStore(), now: () => now };
    const crashed = { ...scope, key: 'crash' };
    await expect(
      runIdempotently(deps, crashed, 'fp', async () => {
        // While this request holds the key, a retry is refused.
        await expect(
          runIdempotently(deps, crashed, 'fp', async () => ({ response: ok, keep: true })),
        ).rejects.toMatchObject({
          code: 'idempotency_in_progress',
        });
        throw new Error('the function crashed');
      }),
    ).rejects.toThrow('crashed');
    // The crash left the key in progress (nothing released it); after the lock it may be taken over.
    now = new Date(now.getTime() + (IDEMPOTENCY_LOCK_SECONDS + 1) * 1000);
    expect(
      await runIdempotently(deps, crashed, 'fp', async () => ({ response: ok, keep: true })),
    ).toMatchObject({
      replayed: false,
    });
  });

  it('frees the key when the response is not kept (a 5xx), so the retry runs anew', async () => {
    const deps = { store: idempotencyStore(), now: () => new Date() };
    const failing = { ...scope, key: '5xx' };
    await runIdempotently(deps, failing, 'fp', async () => ({
      response: { ...ok, statusCode: 500 },
      keep: false,
    }));
    expect(
      await runIdempotently(deps, failing, 'fp', async () => ({ response: ok, keep: true })),
    ).toMatchObject({
      replayed: false,
      response: { statusCode: 201 },
    });
  });
});
