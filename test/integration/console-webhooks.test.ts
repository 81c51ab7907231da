import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventQueue } from '../../functions/dependencies.ts';
import { signInToConsole } from '../support/console.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';
import { endpointHelpers } from '../support/webhook-tests.ts';
import { createLink, eventually, storedEvent, transition } from '../support/webhooks.ts';

/**
 * Webhooks in the console as the merchant sees them (docs/console.md#webhooks): one row per recipient of each
 * event, "none set" for a link without `webhook_url` rather than "failed", a Redeliver per recipient, and an
 * endpoint's page with its deliveries.
 */
let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack.stop();
});

const { receiver, newAccount, createEndpoint } = endpointHelpers(() => stack);

/** The text of a page's rows, markup removed, one line per row. */
const rowsOf = (page: string) =>
  [...page.matchAll(/<tr>(.*?)<\/tr>/gs)].map((row) =>
    (row[1] ?? '')
      .replace(/<[^>]+>/g, ' ')
      .replaceAll('&#39;', "'")
      .replace(/\s+/g, ' '),
  );

describe('console webhooks, per recipient', () => {
  it('shows a link without webhook_url as "none set" and the endpoint that got the event as delivered', async () => {
    const acme = await newAccount();
    const erp = await receiver();
    erp.reply(204);
    const endpoint = await createEndpoint(acme.api_key, { url: erp.url, enabled_events: ['*'] });
    const { eventId } = await transition(await createLink(stack, acme.api_key), eventQueue(), 'canceled');
    await eventually(
      async () => (await storedEvent(eventId)).status === 'failed' && erp.received.length === 1,
    );
    const admin = await signInToConsole(stack.baseUrl, acme.account, 'admin');

    // The latest events, below the endpoints.
    const webhooks = rowsOf((await admin.get('/console/webhooks')).text.split('Latest events')[1] ?? '');
    const event = rowsOf((await admin.get(`/console/events/${eventId}`)).text);
    const page = await admin.get(`/console/webhooks/${endpoint.id}`);

    const own = webhooks.find((row) => row.includes(eventId));
    expect(own).toContain("the link's webhook URL: none set");
    expect(own).not.toContain('failed');
    expect(webhooks.find((row) => row.includes(erp.url))).toMatch(/delivered 1 \(latest: 204\)/);
    expect(event.find((row) => row.includes('none set'))).not.toContain('failed');
    expect(event.find((row) => row.includes(erp.url))).toMatch(/delivered 1 \(latest: 204\)/);
    expect(page.status).toBe(200);
    expect(rowsOf(page.text).find((row) => row.includes(eventId))).toMatch(
      /payment_link\.canceled .* delivered 1 \(latest: 204\)/,
    );
  });

  it('redelivers to the one recipient asked for, and refuses a recipient the event never went to', async () => {
    const acme = await newAccount();
    const [erp, shop, linkUrl] = [await receiver(), await receiver(), await receiver()];
    const first = await createEndpoint(acme.api_key, { url: erp.url, enabled_events: ['*'] });
    await createEndpoint(acme.api_key, { url: shop.url, enabled_events: ['*'] });
    const { eventId } = await transition(await createLink(stack, acme.api_key, linkUrl.url), eventQueue());
    await eventually(async () => erp.received.length + shop.received.length + linkUrl.received.length === 3);
    const admin = await signInToConsole(stack.baseUrl, acme.account, 'admin');

    const redelivered = await admin.post(`/console/events/${eventId}/redeliver`, { recipient: first.id });
    const elsewhere = await admin.post(`/console/events/${eventId}/redeliver`, { recipient: 'we_nothere' });

    expect(redelivered.status).toBe(303);
    await eventually(async () => erp.received.length === 2);
    expect([shop.received.length, linkUrl.received.length]).toEqual([1, 1]);
    expect(erp.received[1]?.headers['webhook-id']).toBe(eventId);
    expect(elsewhere.status).toBe(404);

    await admin.post(`/console/events/${eventId}/redeliver`, { recipient: 'link' });
    await eventually(async () => linkUrl.received.length === 2);
    expect([erp.received.length, shop.received.length]).toEqual([2, 1]);
  });

  it("shows a Redeliver per recipient to admins only, and answers 404 for another account's endpoint", async () => {
    const [acme, globex] = [await newAccount(), await newAccount()];
    const erp = await receiver();
    await createEndpoint(acme.api_key, { url: erp.url, enabled_events: ['*'] });
    const theirs = await createEndpoint(globex.api_key, { url: erp.url, enabled_events: ['*'] });
    await transition(await createLink(stack, acme.api_key), eventQueue(), 'canceled');
    await eventually(async () => erp.received.length === 1);
    const [admin, viewer] = await Promise.all([
      signInToConsole(stack.baseUrl, acme.account, 'admin'),
      signInToConsole(stack.baseUrl, acme.account, 'viewer'),
    ]);

    const asAdmin = (await admin.get('/console/webhooks')).text;
    const asViewer = (await viewer.get('/console/webhooks')).text;

    // One button, for the endpoint: the link has no webhook_url, so nothing to redeliver there.
    expect(asAdmin.match(/name="recipient"/g)).toHaveLength(1);
    expect(asViewer).not.toContain('name="recipient"');
    expect((await admin.get(`/console/webhooks/${theirs.id}`)).status).toBe(404);
  });
});
