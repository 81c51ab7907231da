import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventRepository, linkRepository } from '../../functions/dependencies.ts';
import { markPaid } from '../../functions/domain/link-events.ts';
import { encodeCursor } from '../../functions/domain/page-cursor.ts';
import { newPaymentLink } from '../../functions/domain/payment-link.ts';
import { handler as expireLinks } from '../../functions/handlers/expire-links.ts';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { lambdaContext } from '../../lib/local/api-gateway.ts';
import { startTestStack, type TestResponse, type TestStack } from '../support/test-stack.ts';

let stack: TestStack;
let acme: IssuedApiKey;
let acmeLive: IssuedApiKey;
let globex: IssuedApiKey;

beforeAll(async () => {
  stack = await startTestStack();
  acme = await stack.issueKey('acme', 'test');
  acmeLive = await stack.issueKey('acme', 'live');
  globex = await stack.issueKey('globex', 'test');
});
afterAll(() => stack.stop());

function expectProblem(response: TestResponse, status: number, code: string) {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toBe('application/problem+json');
  expect(response.body).toMatchObject({ status, code, type: `/problems/${code}` });
}

const create = async (key: string, body: Record<string, unknown> = {}) => {
  const response = await stack.request('POST', '/v1/payment-links', {
    key,
    body: { amount: { value: '5.00', currency: 'EUR' }, ...body },
  });
  expect(response.status).toBe(201);
  return response.body;
};

/** A stored open link whose expiry has already passed (the API refuses past expiries, so it is written directly). */
async function storeOverdueLink(account: string) {
  const createdAt = new Date(Date.now() - 2 * 3_600_000);
  const link = newPaymentLink(
    { account, mode: 'test' },
    {
      amount: { value: '7.00', currency: 'EUR' },
      expires_at: new Date(Date.now() - 3_600_000).toISOString(),
    },
    createdAt,
  );
  await linkRepository().create(link);
  return link;
}

const storedEvent = (id: string) => eventRepository().get(id, 'test');

describe('GET /v1/payment-links', () => {
  it('pages through every link of the tenant, newest first, with no duplicate and no other tenant', async () => {
    const tenant = await stack.issueKey('pager', 'test');
    const created: string[] = [];
    for (let index = 0; index < 7; index++) created.push((await create(tenant.api_key)).id);
    await create(globex.api_key);

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = cursor ? `?limit=3&cursor=${cursor}` : '?limit=3';
      const response = await stack.request('GET', `/v1/payment-links${query}`, { key: tenant.api_key });
      expect(response.status).toBe(200);
      expect(response.body.data.length).toBeLessThanOrEqual(3);
      seen.push(...response.body.data.map((link: { id: string }) => link.id));
      cursor = response.body.next_cursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual([...created].reverse());
  });

  it('defaults to 10 links per page and answers next_cursor null on the last page', async () => {
    const tenant = await stack.issueKey('defaults', 'test');
    for (let index = 0; index < 11; index++) await create(tenant.api_key);
    const first = await stack.request('GET', '/v1/payment-links', { key: tenant.api_key });
    expect(first.body.data).toHaveLength(10);
    expect(typeof first.body.next_cursor).toBe('string');
    const last = await stack.request('GET', `/v1/payment-links?cursor=${first.body.next_cursor}`, {
      key: tenant.api_key,
    });
    expect(last.body).toMatchObject({ next_cursor: null });
    expect(last.body.data).toHaveLength(1);
  });

  it('keeps the modes of one account apart', async () => {
    const live = await stack.request('POST', '/v1/payment-links', {
      key: acmeLive.api_key,
      body: { amount: { value: '1.00', currency: 'EUR' } },
    });
    const testList = await stack.request('GET', '/v1/payment-links?limit=100', { key: acme.api_key });
    expect(testList.body.data.map((link: { id: string }) => link.id)).not.toContain(live.body.id);
  });

  it.each(['0', '101', '-1', '1.5', 'ten', ''])(
    'answers 422 with pointer /limit to limit=%s',
    async (limit) => {
      const response = await stack.request('GET', `/v1/payment-links?limit=${limit}`, { key: acme.api_key });
      expectProblem(response, 422, 'validation_failed');
      expect(response.body.errors).toEqual([{ pointer: '/limit', detail: expect.any(String) }]);
    },
  );

  it('answers 422 to an unknown status and to an unknown parameter', async () => {
    const status = await stack.request('GET', '/v1/payment-links?status=closed', { key: acme.api_key });
    expectProblem(status, 422, 'validation_failed');
    expect(status.body.errors[0].pointer).toBe('/status');
    const unknown = await stack.request('GET', '/v1/payment-links?page=2', { key: acme.api_key });
    expect(unknown.body.errors[0].pointer).toBe('/page');
  });

  it.each([
    'garbage',
    '!!!',
    Buffer.from('{"p":1}').toString('base64url'),
    Buffer.from('null').toString('base64url'),
    'x'.repeat(300),
  ])('answers 422 with pointer /cursor, never a 5xx, to the cursor %s', async (cursor) => {
    const response = await stack.request('GET', `/v1/payment-links?cursor=${encodeURIComponent(cursor)}`, {
      key: acme.api_key,
    });
    expectProblem(response, 422, 'validation_failed');
    expect(response.body.errors[0].pointer).toBe('/cursor');
  });

  it("refuses another tenant's cursor, so a cursor cannot reach its links", async () => {
    await create(globex.api_key);
    await create(globex.api_key);
    const globexPage = await stack.request('GET', '/v1/payment-links?limit=1', { key: globex.api_key });
    const stolen = globexPage.body.next_cursor;
    expect(typeof stolen).toBe('string');
    const response = await stack.request('GET', `/v1/payment-links?cursor=${stolen}`, { key: acme.api_key });
    expectProblem(response, 422, 'validation_failed');
    // Even a cursor minted with the victim's tag for our own key's listing names only a position: the listing
    // stays the caller's own.
    const forged = encodeCursor(
      { account: 'acme', mode: 'test' },
      globexPage.body.data[0].created_at.concat(`#${globexPage.body.data[0].id}`),
    );
    const own = await stack.request('GET', `/v1/payment-links?cursor=${forged}`, { key: acme.api_key });
    expect(own.status).toBe(200);
    for (const link of own.body.data) expect(link.id).not.toBe(globexPage.body.data[0].id);
  });

  it('filters by the status reads show: an overdue open link is expired, not open', async () => {
    const tenant = await stack.issueKey('filters', 'test');
    const open = await create(tenant.api_key);
    const canceled = await create(tenant.api_key);
    await stack.request('POST', `/v1/payment-links/${canceled.id}/cancel`, { key: tenant.api_key });
    const overdue = await storeOverdueLink('filters');
    const ids = async (status: string) =>
      (
        await stack.request('GET', `/v1/payment-links?status=${status}`, { key: tenant.api_key })
      ).body.data.map((link: { id: string; status: string }) => {
        expect(link.status).toBe(status);
        return link.id;
      });
    expect(await ids('open')).toEqual([open.id]);
    expect(await ids('canceled')).toEqual([canceled.id]);
    expect(await ids('expired')).toEqual([overdue.id]);
    expect(await ids('paid')).toEqual([]);
  });

  it('filters by metadata values, exactly, each pair combined with the others and with status', async () => {
    const tenant = await stack.issueKey('metadatafilter', 'test');
    const first = await create(tenant.api_key, { metadata: { order_id: '1042', shop: 'north' } });
    const second = await create(tenant.api_key, { metadata: { order_id: '1042', shop: 'south' } });
    await create(tenant.api_key, { metadata: { order_id: '10420' } });
    await create(tenant.api_key);
    await stack.request('POST', `/v1/payment-links/${second.id}/cancel`, { key: tenant.api_key });
    const ids = async (query: string) => {
      const page = await stack.request('GET', `/v1/payment-links?${query}`, { key: tenant.api_key });
      expect(page.status).toBe(200);
      return page.body.data.map((link: { id: string }) => link.id);
    };

    expect(await ids('metadata[order_id]=1042')).toEqual([second.id, first.id]);
    expect(await ids('metadata[order_id]=1042&metadata[shop]=north')).toEqual([first.id]);
    expect(await ids('metadata[order_id]=1042&status=canceled')).toEqual([second.id]);
    expect(await ids(`metadata[${encodeURIComponent('order id')}]=1042`)).toEqual([]);
    // A page of one that matches, then its cursor carries on to the next match past the ones that do not.
    const page = await stack.request('GET', '/v1/payment-links?metadata[order_id]=1042&limit=1', {
      key: tenant.api_key,
    });
    expect(page.body.data.map((link: { id: string }) => link.id)).toEqual([second.id]);
    expect(await ids(`metadata[order_id]=1042&cursor=${page.body.next_cursor}`)).toEqual([first.id]);
  });

  it('answers 422 with a pointer into metadata to a filter it cannot apply', async () => {
    const tooMany = Array.from({ length: 6 }, (_, index) => `metadata[key${index}]=v`).join('&');
    const answers = await Promise.all(
      [tooMany, `metadata[${'k'.repeat(41)}]=v`, 'metadata[]=v', `metadata[k]=${'v'.repeat(501)}`].map(
        (query) => stack.request('GET', `/v1/payment-links?${query}`, { key: acme.api_key }),
      ),
    );
    for (const answer of answers) expectProblem(answer, 422, 'validation_failed');
    expect(answers.map((answer) => answer.body.errors[0].pointer)).toEqual([
      '/metadata',
      `/metadata/${'k'.repeat(41)}`,
      '/metadata/',
      '/metadata/k',
    ]);
  });
});

describe('POST /v1/payment-links/{id}/cancel', () => {
  it('cancels an open link with 200, records the event once, and returns the same link again unchanged', async () => {
    const link = await create(acme.api_key);
    const first = await stack.request('POST', `/v1/payment-links/${link.id}/cancel`, { key: acme.api_key });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ id: link.id, status: 'canceled', object: 'payment_link' });
    expect(Date.parse(first.body.canceled_at)).toBeGreaterThan(Date.now() - 60_000);

    const again = await stack.request('POST', `/v1/payment-links/${link.id}/cancel`, {
      key: acme.api_key,
      body: {},
    });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);

    const stored = await linkRepository().get(link.id, 'test');
    expect(stored?.event_ids).toHaveLength(1);
    expect(await storedEvent(stored?.event_ids[0] as string)).toMatchObject({
      type: 'payment_link.canceled',
      link_id: link.id,
      data: { status: 'canceled' },
    });
  });

  it('answers 409 invalid_state for a paid link and for an expired one', async () => {
    const link = newPaymentLink(
      { account: 'acme', mode: 'test' },
      { amount: { value: '1', currency: 'EUR' } },
      new Date(),
    );
    await linkRepository().create(link);
    const paid = markPaid(
      link,
      {
        id: 'pay_x',
        connection_id: 'pc_x',
        provider: 'sandbox' as const,
        reference: 'pay_1',
        amount: link.amount!,
      },
      new Date(),
    );
    await linkRepository().commit(paid as NonNullable<typeof paid>);
    expectProblem(
      await stack.request('POST', `/v1/payment-links/${link.id}/cancel`, { key: acme.api_key }),
      409,
      'invalid_state',
    );
    const overdue = await storeOverdueLink('acme');
    expectProblem(
      await stack.request('POST', `/v1/payment-links/${overdue.id}/cancel`, { key: acme.api_key }),
      409,
      'invalid_state',
    );
  });

  it("answers 404 for another tenant's link and for the other mode's", async () => {
    const link = await create(acme.api_key);
    expectProblem(
      await stack.request('POST', `/v1/payment-links/${link.id}/cancel`, { key: globex.api_key }),
      404,
      'not_found',
    );
    expectProblem(
      await stack.request('POST', `/v1/payment-links/${link.id}/cancel`, { key: acmeLive.api_key }),
      404,
      'not_found',
    );
    expect(
      (await stack.request('GET', `/v1/payment-links/${link.id}`, { key: acme.api_key })).body.status,
    ).toBe('open');
  });

  it('accepts no body and {} but rejects fields with 422', async () => {
    const link = await create(acme.api_key);
    const response = await stack.request('POST', `/v1/payment-links/${link.id}/cancel`, {
      key: acme.api_key,
      body: { reason: 'x' },
    });
    expectProblem(response, 422, 'validation_failed');
    expect(response.body.errors[0].pointer).toBe('/reason');
  });
});

/** One run of the expiry sweeper, as the schedule invokes it (a 60 s function). */
const sweep = () => expireLinks({} as never, lambdaContext('expire-links', 60_000));

describe('expiry', () => {
  it('takes no link once the function is about to time out, leaving it for the next run', async () => {
    const overdue = await storeOverdueLink('acme');
    await expireLinks({} as never, lambdaContext('expire-links', 5_000));
    expect((await linkRepository().get(overdue.id, 'test'))?.status).toBe('open');
    await sweep();
    expect((await linkRepository().get(overdue.id, 'test'))?.status).toBe('expired');
  });

  it('shows a link past expires_at as expired at once, then the sweeper records it and its event once', async () => {
    const overdue = await storeOverdueLink('acme');
    const read = await stack.request('GET', `/v1/payment-links/${overdue.id}`, { key: acme.api_key });
    expect(read.body.status).toBe('expired');

    await sweep();
    await sweep();
    const stored = await linkRepository().get(overdue.id, 'test');
    expect(stored?.status).toBe('expired');
    expect(stored?.event_ids).toHaveLength(1);
    expect(await storedEvent(stored?.event_ids[0] as string)).toMatchObject({
      type: 'payment_link.expired',
      data: { id: overdue.id, status: 'expired' },
    });
    const after = await stack.request('GET', `/v1/payment-links/${overdue.id}`, { key: acme.api_key });
    expect(after.body).toEqual({ ...read.body, status: 'expired' });
  });

  it('leaves links that are not due, and links without expiry, open', async () => {
    const later = await create(acme.api_key, { expires_at: new Date(Date.now() + 3_600_000).toISOString() });
    const never = await create(acme.api_key);
    await sweep();
    for (const link of [later, never])
      expect((await linkRepository().get(link.id, 'test'))?.status).toBe('open');
  });

  it('still records a payment confirmed after expiry as paid', async () => {
    const overdue = await storeOverdueLink('acme');
    await sweep();
    const expired = await linkRepository().get(overdue.id, 'test');
    const paid = markPaid(
      expired as NonNullable<typeof expired>,
      {
        id: 'pay_x',
        connection_id: 'pc_x',
        provider: 'sandbox' as const,
        reference: 'late',
        amount: overdue.amount!,
      },
      new Date(),
    );
    await linkRepository().commit(paid as NonNullable<typeof paid>);
    const read = await stack.request('GET', `/v1/payment-links/${overdue.id}`, { key: acme.api_key });
    expect(read.body).toMatchObject({ status: 'paid', payment: { reference: 'late' } });
  });
});
