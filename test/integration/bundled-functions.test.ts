import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../functions/adapters/dynamodb/table-schema.ts';
import { ADYEN_FAKE, type FakeAdyen } from '../../functions/adapters/psp/adyen/test/fake.ts';
import { CHECKOUT_FAKE, type FakeCheckout } from '../../functions/adapters/psp/checkout-com/test/fake.ts';
import { type FakeMollie, MOLLIE_FAKE } from '../../functions/adapters/psp/mollie/test/fake.ts';
import { type FakeStripe, STRIPE_FAKE } from '../../functions/adapters/psp/stripe/test/fake.ts';
import { documentClient } from '../../functions/clients/dynamodb.ts';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import type { BundleFiles } from '../../lib/local/bundled-handlers.ts';
import { functions, type HandlerName, schedules } from '../../lib/routes.ts';
import { storedLink } from '../support/checkout-helpers.ts';
import { signInToConsole } from '../support/console.ts';
import { MAP_READ_MARKER, mapReadsIn } from '../support/map-reads.ts';
import { httpRequest, NAVIGATION_HEADERS, navigate, postOurForm } from '../support/navigate.ts';
import { type PspStack, startPspStack } from '../support/psp-stack.ts';
import { functionBundleFiles, sharedBundles } from '../support/shared-bundles.ts';
import type { TestStack } from '../support/test-stack.ts';
import { eventually, type Receiver, startReceiver } from '../support/webhooks.ts';

const FAKES = { stripe: STRIPE_FAKE, mollie: MOLLIE_FAKE, adyen: ADYEN_FAKE, checkout: CHECKOUT_FAKE };

/**
 * What `cdk synth` ships, run as Lambda runs it (docs/performance.md): every function's bundle, built with the
 * stack's bundling options, imported in a process of its own with the function's environment, its `handler`
 * invoked with the events API Gateway (payload 2.0), SQS and EventBridge schedules send, against the embedded
 * DynamoDB and SQS. The TypeScript handlers the other tests run are not what deploys; these are.
 */
const projectRoot = join(import.meta.dirname, '..', '..');
let bundles: BundleFiles;
const output = new Map<HandlerName, string>();
const invocations: { handler: HandlerName; error?: Error }[] = [];
let stack: TestStack;
let acme: IssuedApiKey;
let receiver: Receiver;
// Each PSP's SDK is a chunk of its own beside index.mjs, loaded by the first call to that PSP: these fakes answer
// those calls, so a chunk that fails to load or to run fails a checkout here.
let psps: PspStack<typeof FAKES>;
let fakeStripe: FakeStripe;
let fakeMollie: FakeMollie;
let fakeAdyen: FakeAdyen;
let fakeCheckout: FakeCheckout;

beforeAll(async () => {
  receiver = await startReceiver();
  bundles = functionBundleFiles(await sharedBundles());
  // The containers are forked with this process's environment, which names the fakes to functions/config.ts.
  psps = await startPspStack({
    fakes: FAKES,
    stack: {
      bundled: {
        files: bundles,
        execArgv: [
          '--import',
          pathToFileURL(join(projectRoot, 'test', 'support', 'map-read-recorder.ts')).href,
        ],
        onOutput: (handler, _stream, chunk) =>
          output.set(handler, (output.get(handler) ?? '') + chunk.toString()),
        onInvocation: (handler, error) => invocations.push({ handler, error }),
      },
    },
  });
  ({ stack, stripe: fakeStripe, mollie: fakeMollie, adyen: fakeAdyen, checkout: fakeCheckout } = psps);
  acme = await stack.issueKey('acme', 'test');
}, 900_000); // building every bundle (or waiting for the file that builds them) and starting a process per function
afterAll(async () => {
  await psps?.stop();
  await receiver?.close();
});

const mapReads = (handler: HandlerName) => mapReadsIn(output.get(handler) ?? '');

async function createLink(body: Record<string, unknown> = {}) {
  const created = await stack.request('POST', '/v1/payment-links', {
    key: acme.api_key,
    body: { amount: { value: '10.50', currency: 'EUR' }, webhook_url: receiver.url, ...body },
  });
  expect(created.status).toBe(201);
  return created.body;
}

describe('the bundles cdk synth ships, run as the Lambda runtime runs them', { timeout: 120_000 }, () => {
  it('serve the merchant API: create, get, update, list, cancel, connections, routing, settlements, the OpenAPI document, unknown paths', async () => {
    const link = await createLink();
    expect((await stack.request('GET', `/v1/payment-links/${link.id}`, { key: acme.api_key })).body).toEqual(
      link,
    );
    const updated = await stack.request('PATCH', `/v1/payment-links/${link.id}`, {
      key: acme.api_key,
      body: { description: 'Order 1002' },
    });
    expect(updated.body.description).toBe('Order 1002');
    const list = await stack.request('GET', '/v1/payment-links?limit=10', { key: acme.api_key });
    expect(list.body.data.map((item: { id: string }) => item.id)).toContain(link.id);
    const canceled = await stack.request('POST', `/v1/payment-links/${(await createLink()).id}/cancel`, {
      key: acme.api_key,
    });
    expect(canceled.body.status).toBe('canceled');
    expect((await stack.request('GET', '/v1/openapi.json')).body.openapi).toMatch(/^3\./);
    const connections = await stack.request('GET', '/v1/psp-connections', { key: acme.api_key });
    expect(connections.body.data.map((connection: { provider: string }) => connection.provider)).toEqual([
      'sandbox',
    ]);
    const performance = await stack.request(
      'GET',
      `/v1/psp-connections/${connections.body.data[0].id}/performance`,
      { key: acme.api_key },
    );
    expect(performance.body).toMatchObject({ object: 'connection_performance' });
    const routing = await stack.request('GET', '/v1/routing', { key: acme.api_key });
    expect(routing.body).toEqual({ rules: [], default: [] });
    const refused = await stack.request('PUT', '/v1/routing', {
      key: acme.api_key,
      body: { rules: [], default: [] },
    });
    expect([refused.status, refused.body.errors?.[0]?.pointer]).toEqual([422, '/default']);
    const uplift = await stack.request('GET', '/v1/routing/uplift?window=7d', { key: acme.api_key });
    expect([uplift.status, uplift.body.object]).toEqual([200, 'routing_uplift']);
    const settlements = await stack.request('GET', '/v1/settlements', { key: acme.api_key });
    expect([settlements.status, settlements.body.data]).toEqual([200, []]);
    const unknown = await stack.request('GET', '/v1/nothing-here');
    expect([unknown.status, unknown.body.code]).toEqual([404, 'not_found']);
  });

  it('serve webhook endpoints, their test event and recovery, and the events API', async () => {
    const created = await stack.request('POST', '/v1/webhook-endpoints', {
      key: acme.api_key,
      body: { url: receiver.url, enabled_events: ['webhook_endpoint.disabled'] },
    });
    expect(created.status).toBe(201);
    const path = `/v1/webhook-endpoints/${created.body.id}`;
    expect((await stack.request('GET', '/v1/webhook-endpoints', { key: acme.api_key })).status).toBe(200);
    expect((await stack.request('GET', path, { key: acme.api_key })).body.health.attempts).toBe(0);
    const rotated = await stack.request('POST', `${path}/rotate-secret`, { key: acme.api_key });
    expect(rotated.body.secret).toMatch(/^whsec_/);
    const tested = await stack.request('POST', `${path}/test`, { key: acme.api_key });
    expect(tested.body).toMatchObject({ status: 'delivered', attempt: { status_code: 200 } });
    const recovering = await stack.request('POST', `${path}/recover`, {
      key: acme.api_key,
      body: { since: new Date(Date.now() - 60_000).toISOString() },
    });
    expect(recovering.status).toBe(202);
    const events = await stack.request('GET', '/v1/events?type=webhook_endpoint.test', { key: acme.api_key });
    expect(events.body.data.map((event: { id: string }) => event.id)).toEqual([tested.body.event_id]);
    const one = await stack.request('GET', `/v1/events/${tested.body.event_id}`, { key: acme.api_key });
    expect(one.body.deliveries).toMatchObject([{ endpoint_id: created.body.id, status: 'delivered' }]);
    const updated = await stack.request('PATCH', path, { key: acme.api_key, body: { description: 'ERP' } });
    expect(updated.body.description).toBe('ERP');
    expect((await stack.request('DELETE', path, { key: acme.api_key })).body.deleted).toBe(true);
  });

  it('serve the checkout settings and a link’s QR code', async () => {
    const settings = { display_name: 'Acme Coffee', accent_color: '#0b5a3c' };
    const put = await stack.request('PUT', '/v1/checkout-settings', { key: acme.api_key, body: settings });
    expect([put.status, put.body.display_name]).toEqual([200, 'Acme Coffee']);
    const got = await stack.request('GET', '/v1/checkout-settings', { key: acme.api_key });
    expect(got.body.accent_color).toBe('#0b5a3c');
    const retention = { personal_data_retention_days: 90 };
    const putAccount = await stack.request('PUT', '/v1/account-settings', {
      key: acme.api_key,
      body: retention,
    });
    expect(putAccount.status).toBe(200);
    const gotAccount = await stack.request('GET', '/v1/account-settings', { key: acme.api_key });
    expect(gotAccount.body).toMatchObject(retention);
    const qr = await fetch((await createLink()).qr_code_url);
    expect([qr.status, qr.headers.get('content-type')]).toEqual([200, 'image/svg+xml; charset=utf-8']);
    expect(await qr.text()).toMatch(/^<svg/);
  });

  it('serve the console: a one-time sign-in link, a page of links, and the overview with its charts', async () => {
    const admin = await signInToConsole(stack.baseUrl, 'acme', 'admin');
    const links = await admin.get('/console/links');
    expect([links.status, links.text.includes('TEST MODE')]).toEqual([200, true]);
    // The overview is its own function (console-overview), which carries Vega.
    const overview = await admin.get('/console/overview');
    expect([overview.status, overview.text.includes('<svg')]).toEqual([200, true]);
  });

  it('take a buyer through checkout and the sandbox PSP to a paid link, a signed webhook, its redelivery and a refund', async () => {
    const link = await createLink();
    const checkout = await navigate(`${link.checkout_url}?client_reference_id=bundled-1`);
    expect(checkout.status).toBe(200);
    const sessionUrl = /http-equiv="refresh" content="0;url=([^"]+)"/.exec(checkout.text)?.[1] as string;
    expect((await httpRequest(sessionUrl)).status).toBe(200);
    // The sandbox notifies psp-notifications (signed), which marks the link paid and queues the event.
    const pay = await httpRequest(`${sessionUrl}/pay`, { method: 'POST' });
    expect(pay.status).toBeLessThan(400);
    const paid = await stack.request('GET', `/v1/payment-links/${link.id}`, { key: acme.api_key });
    expect(paid.body.status).toBe('paid');

    // deliver-webhook, fed by the SQS poller like Lambda's event source.
    const webhook = await eventually(
      async () => receiver.received.find((received) => JSON.parse(received.body).data?.id === link.id),
      60_000,
    );
    const headers = webhook.headers as Record<string, string>;
    expect(new Webhook(acme.webhook_secret).verify(webhook.body, headers)).toMatchObject({
      type: 'payment_link.paid',
    });
    const events = await stack.request('GET', `/v1/payment-links/${link.id}/events`, { key: acme.api_key });
    const event = events.body.data.find((item: { type: string }) => item.type === 'payment_link.paid');
    expect(event.id).toBe(headers['webhook-id']);
    const redeliver = await stack.request('POST', `/v1/events/${event.id}/redeliver`, { key: acme.api_key });
    expect(redeliver.status).toBe(202);
    const payments = await stack.request('GET', `/v1/payment-links/${link.id}/payments`, {
      key: acme.api_key,
    });
    expect(payments.body.data.map((payment: { status: string }) => payment.status)).toEqual(['succeeded']);
    await eventually(
      async () =>
        receiver.received.filter((received) => received.headers['webhook-id'] === event.id).length === 2,
      60_000,
    );
    const refund = await stack.request('POST', `/v1/payment-links/${link.id}/refunds`, { key: acme.api_key });
    expect(refund.body).toMatchObject({ status: 'succeeded', amount: paid.body.amount });
    const refunds = await stack.request('GET', `/v1/payment-links/${link.id}/refunds`, { key: acme.api_key });
    expect(refunds.body.data.map((item: { id: string }) => item.id)).toEqual([refund.body.id]);

    // The account's books, and the erasure of the buyer's reference (the only personal data this payment has).
    const ofLink = `link_id=${link.id}`;
    const books = await stack.request('GET', `/v1/payments?${ofLink}`, { key: acme.api_key });
    expect(
      books.body.data.map((payment: { client_reference_id: string }) => payment.client_reference_id),
    ).toEqual(['bundled-1']);
    const summary = await stack.request('GET', '/v1/payments/summary', { key: acme.api_key });
    expect(summary.body).toMatchObject({ object: 'payment_summary' });
    const refundBooks = await stack.request('GET', `/v1/refunds?${ofLink}`, { key: acme.api_key });
    expect(refundBooks.body.data.map((item: { id: string }) => item.id)).toEqual([refund.body.id]);
    const erased = await stack.request('DELETE', `/v1/payments/${books.body.data[0].id}/buyer`, {
      key: acme.api_key,
    });
    expect([erased.status, erased.body.erased_at]).toEqual([200, expect.any(String)]);
  });

  it('draw and read a form asking a phone number and an address in German, from the chunks of the form tables and of the German texts', async () => {
    // An account of its own: no connection, so the built-in sandbox serves it, and its page asks neither detail.
    const key = await stack.issueKey('bundled-forms', 'test');
    const created = await stack.request('POST', '/v1/payment-links', {
      key: key.api_key,
      body: {
        amount: { value: '10.50', currency: 'EUR' },
        collect: { phone: 'required', billing_address: 'required' },
      },
    });
    const url = created.body.checkout_url as string;
    const german = { 'accept-language': 'de' };
    const form = await httpRequest(url, { headers: { ...NAVIGATION_HEADERS, ...german } });
    // The countries by their German names (the tables' countries) and the form's German words.
    expect([form.status, form.text]).toEqual([
      200,
      expect.stringContaining('<option value="DE">Deutschland</option>'),
    ]);
    expect(form.text).toContain('<html lang="de">');
    const address = {
      answers: '1',
      billing_name: 'Ada Lovelace',
      billing_line1: 'Keizersgracht 1',
      billing_city: 'Amsterdam',
      billing_postal_code: '1015 CJ',
      billing_country: 'NL',
    };
    const refused = await postOurForm(url, { ...address, phone: '12' }, german);
    expect([refused.status, refused.text]).toEqual([422, expect.stringContaining('id="phone-error"')]);
    const accepted = await postOurForm(url, { ...address, phone: '06 12345678' }, german);
    expect(accepted.status).toBe(303);
    const payments = await stack.request('GET', `/v1/payment-links/${created.body.id}/payments`, {
      key: key.api_key,
    });
    // Read in the address's country, in E.164.
    expect(payments.body.data[0].buyer).toMatchObject({ phone: '+31612345678' });
  });

  it('load each PSP SDK from its own chunk on the first call to that PSP: Stripe, Mollie, Adyen and Checkout.com checkouts', async () => {
    const sessions: Record<string, unknown> = {};
    for (const provider of ['stripe', 'mollie', 'adyen', 'checkout'] as const) {
      const account = `${provider}shop`;
      const key = await stack.issueKey(account, 'test');
      await psps.connect(account, provider);
      const created = await stack.request('POST', '/v1/payment-links', {
        key: key.api_key,
        body: { amount: { value: '12.00', currency: 'EUR' }, redirect_url: 'https://shop.example/thanks' },
      });
      expect(created.status).toBe(201);
      const page = await navigate(created.body.checkout_url);
      expect([provider, page.status]).toEqual([provider, 200]);
      sessions[provider] = (await storedLink(created.body.id)).psp_session;
    }
    // Each session was opened by the official SDK, in the checkout function's container, at that PSP's fake.
    const stripeSession = sessions.stripe as { id: string; provider: string };
    expect(stripeSession.provider).toBe('stripe');
    expect(fakeStripe.sessions.has(stripeSession.id)).toBe(true);
    const mollieSession = sessions.mollie as { id: string; provider: string };
    expect(mollieSession.provider).toBe('mollie');
    expect(fakeMollie.payments.has(mollieSession.id)).toBe(true);
    const adyenSession = sessions.adyen as { id: string; provider: string };
    expect(adyenSession.provider).toBe('adyen');
    expect(fakeAdyen.paymentLinks.has(adyenSession.id)).toBe(true);
    const checkoutSession = sessions.checkout as { id: string; provider: string };
    expect(checkoutSession.provider).toBe('checkout_com');
    expect(fakeCheckout.links.has(checkoutSession.id)).toBe(true);
  });

  it('serve subscriptions: a recurring link paid on the sandbox, its reads, change, cancel link, test clock and cancel', async () => {
    const link = await createLink({ recurring: { interval: 'month', interval_count: 1 } });
    const checkout = await navigate(link.checkout_url);
    const sessionUrl = /http-equiv="refresh" content="0;url=([^"]+)"/.exec(checkout.text)?.[1] as string;
    expect((await httpRequest(`${sessionUrl}/pay`, { method: 'POST' })).status).toBeLessThan(400);
    const key = { key: acme.api_key };
    const subscription = await eventually(async () => {
      const list = await stack.request('GET', `/v1/subscriptions?link_id=${link.id}`, key);
      return list.body.data?.[0] as { id: string } | undefined;
    }, 60_000);
    const path = `/v1/subscriptions/${subscription.id}`;
    expect((await stack.request('GET', path, key)).body.id).toBe(subscription.id);
    const patched = await stack.request('PATCH', path, { ...key, body: { metadata: { plan: 'gold' } } });
    expect(patched.body.metadata).toEqual({ plan: 'gold' });
    const cancelLink = await stack.request('POST', `${path}/cancel-link`, key);
    expect((await httpRequest(cancelLink.body.url)).status).toBe(200);
    const advanced = await stack.request(
      'POST',
      `/v1/test-helpers/subscriptions/${subscription.id}/advance`,
      key,
    );
    expect(advanced.status).toBeLessThan(300);
    const canceled = await stack.request('POST', `${path}/cancel`, key);
    expect(canceled.body.status).toBe('canceled');
  });

  it('run the scheduled functions on the schedule events EventBridge sends', async () => {
    // Each run once, here, rather than on timers that would also fire during the other tests.
    for (const schedule of schedules) await stack.runSchedule(schedule);
    const ran = new Set(invocations.map((call) => call.handler));
    expect(schedules.filter((schedule) => !ran.has(schedule.handler))).toEqual([]);
  });

  it('every function of lib/routes.ts ran from its bundle without an error, and none read its source map', () => {
    // A new function fails here until one of the tests above sends it the traffic it serves.
    const ran = new Set(invocations.map((call) => call.handler));
    expect([...ran].sort()).toEqual(Object.keys(functions).sort());
    expect(
      invocations.filter((call) => call.error).map((call) => `${call.handler}: ${call.error?.message}`),
    ).toEqual([]);
    for (const handler of ran) {
      // Node's own source-map support would parse the whole map at import (NODE_OPTIONS from the stack).
      expect(output.get(handler)).toContain(`${MAP_READ_MARKER} node-source-maps=false`);
      expect(mapReads(handler)).toEqual([]);
    }
  });

  it('log a failure with the TypeScript file and line of each frame, reading the source map only then', async () => {
    const link = await createLink();
    // A stored link the code cannot read (no event list): cancelling it fails inside our code.
    await documentClient().send(
      new UpdateCommand({
        TableName: stack.tableName,
        Key: keys.link(link.id, 'test'),
        UpdateExpression: 'REMOVE event_ids',
      }),
    );
    expect(mapReads('cancel-payment-link')).toEqual([]);

    const failed = await stack.request('POST', `/v1/payment-links/${link.id}/cancel`, { key: acme.api_key });

    expect([failed.status, failed.body.code]).toEqual([500, 'internal_error']);
    const logged = await eventually(async () =>
      (output.get('cancel-payment-link') ?? '')
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line))
        .find((entry) => entry.level === 'ERROR' && entry.request_id === failed.body.request_id),
    );
    // Project-relative when built inside the project, as `cdk synth` does; this test builds in a temporary folder.
    const [, file, line] = /(functions\/[\w/.-]+\.ts):(\d+)$/.exec(logged.error.location) ?? [];
    expect(file, logged.error.location).toBeDefined();
    // The line named is the decoder's, which refused the item; its message names the missing list.
    const sourceLine = readFileSync(join(projectRoot, file as string), 'utf8').split('\n')[Number(line) - 1];
    expect(sourceLine).toMatch(/UndecodableItemError/);
    expect(logged.error.message).toMatch(/event_ids/);
    expect(logged.error.stack).toMatch(/\([\w/.-]*functions\/[\w/.-]+\.ts:\d+:\d+\)/);
    expect(logged.error.stack).not.toMatch(/index\.mjs/);
    expect(mapReads('cancel-payment-link')).toEqual([`${bundles.get('cancel-payment-link')}.map`]);
  });
});
