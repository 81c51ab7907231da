import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CASHFREE_FAKE } from '../../functions/adapters/psp/cashfree/test/fake.ts';
import { MERCADOPAGO_FAKE } from '../../functions/adapters/psp/mercadopago/test/fake.ts';
import { STRIPE_FAKE } from '../../functions/adapters/psp/stripe/test/fake.ts';
import { XENDIT_FAKE } from '../../functions/adapters/psp/xendit/test/fake.ts';
import type { PaymentMethod } from '../../functions/domain/payment-methods.ts';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { verifyWebhook } from '../../lib/merchant-sdk/index.ts';
import { createLink, storedLink } from '../support/checkout-helpers.ts';
import { navigate } from '../support/navigate.ts';
import { type PspStack, startPspStack } from '../support/psp-stack.ts';
import { shellBlocks } from '../support/readme-blocks.ts';
import { eventually, type Receiver, startReceiver } from '../support/webhooks.ts';

/**
 * The world walk-through of docs/orchestration.md, as its commands say, against the PSPs' fakes: one merchant with
 * Stripe, Cashfree, Mercado Pago and Xendit connections (each serving the `--methods` the docs give it), the docs'
 * routing document (INR, BRL and IDR each to its local PSP, Stripe behind it, the rest to Stripe), the docs' links;
 * each checkout opens a session at the fake of the PSP its currency is routed to, a link asking for `pix` is
 * routed only to the connection that serves it, and that link, paid at Mercado Pago, is paid and signed to the
 * merchant.
 */
const FAKES = {
  stripe: STRIPE_FAKE,
  cashfree: CASHFREE_FAKE,
  mercadopago: MERCADOPAGO_FAKE,
  xendit: XENDIT_FAKE,
};
type Provider = keyof typeof FAKES;
const ACCOUNT = 'worldshop';

/** The walk-through's shell blocks, continuation lines joined. */
const BLOCKS = shellBlocks('docs/orchestration.md', 'A world walk-through').map((block) =>
  block.text.replace(/\\\n\s*/g, ''),
);
const blockWith = (text: string) => {
  const block = BLOCKS.find((each) => each.includes(text));
  if (!block) throw new Error(`the walk-through has no block with ${text}`);
  return block;
};

/** Each `VARIABLE=$(npm run -s psp -- add ...)` of the docs: the connection it adds. */
const CONNECTIONS = [...blockWith('psp -- add').matchAll(/^(\w+)=\$\(npm run -s psp -- add (.*)\)$/gm)].map(
  ([, variable, flags]) => ({
    variable: variable as string,
    provider: /--provider (\S+)/.exec(flags ?? '')?.[1] as Provider,
    methods: /--methods (\S+)/.exec(flags ?? '')?.[1]?.split(',') as PaymentMethod[],
  }),
);

/** The JSON bodies the docs send with `-d '...'` in a block. */
const bodiesOf = (block: string) =>
  [...block.matchAll(/'(\{.*?\})'/g)].map(
    ([, json]) => JSON.parse(json as string) as Record<string, unknown>,
  );

let psps: PspStack<typeof FAKES>;
let key: IssuedApiKey;
const ids: Record<string, string> = {};
let hooks: Receiver;
let hookSecret: string;

beforeAll(async () => {
  psps = await startPspStack({ fakes: FAKES, stack: { schedules: false } });
  key = await psps.stack.issueKey(ACCOUNT, 'test');
  for (const { variable, provider, methods } of CONNECTIONS) {
    ids[variable] = (await psps.connect(ACCOUNT, provider, 'test', methods)).id;
  }
  hooks = await startReceiver();
  const [endpoint] = bodiesOf(blockWith('/v1/webhook-endpoints'));
  const created = await psps.stack.request('POST', '/v1/webhook-endpoints', {
    key: key.api_key,
    body: { ...endpoint, url: hooks.url },
  });
  hookSecret = created.body.secret;
  const routing = await psps.stack.request('PUT', '/v1/routing', {
    key: key.api_key,
    body: routingDocument(),
  });
  if (routing.status !== 200)
    throw new Error(`the routing document was refused: ${JSON.stringify(routing.body)}`);
});
afterAll(async () => {
  await hooks?.close();
  await psps?.stop();
});

/** The docs' routing document, its `$VARIABLE`s the connections' ids. */
function routingDocument(): unknown {
  const heredoc = /<<EOF\n([\s\S]*?)\nEOF/.exec(blockWith('/v1/routing'))?.[1] ?? '';
  return JSON.parse(
    heredoc.replace(/\$(\w+)/g, (_, variable: string) => ids[variable] ?? `unknown ${variable}`),
  );
}

/** The docs' links, created and opened as a buyer would: each link and the PSP session its checkout opened. */
async function openedLinks() {
  const opened = [];
  for (const body of bodiesOf(blockWith('/v1/payment-links'))) {
    const link = await createLink(psps.stack, key.api_key, body);
    await navigate(link.checkout_url);
    const session = (await storedLink(link.id)).psp_session;
    if (!session) throw new Error(`no session for the ${JSON.stringify(body)} link`);
    opened.push({ link, session });
  }
  return opened;
}

/** The routing decision of the link's only payment: the connections it could go to, in order. */
async function candidatesOf(linkId: string): Promise<string[]> {
  const payments = await psps.stack.request('GET', `/v1/payment-links/${linkId}/payments`, {
    key: key.api_key,
  });
  expect(payments.body.data).toHaveLength(1);
  return payments.body.data[0].routing.candidates.map((each: { connection: string }) => each.connection);
}

describe('the world walk-through of docs/orchestration.md', () => {
  it('adds the four connections the docs name', () => {
    expect(CONNECTIONS.map(({ variable, provider }) => [variable, provider])).toEqual([
      ['STRIPE', 'stripe'],
      ['CASHFREE', 'cashfree'],
      ['MERCADOPAGO', 'mercadopago'],
      ['XENDIT', 'xendit'],
    ]);
  });

  it('sends INR, BRL and IDR each to its local PSP and the rest to Stripe, and a Pix link only to Mercado Pago, paid there', async () => {
    const [inr, brl, idr, eur, pix] = await openedLinks();
    const wentTo = (opened: typeof inr) => [opened?.session.provider, opened?.session.connection_id];
    expect([inr, brl, idr, eur, pix].map(wentTo)).toEqual([
      ['cashfree', ids.CASHFREE],
      ['mercadopago', ids.MERCADOPAGO],
      ['xendit', ids.XENDIT],
      ['stripe', ids.STRIPE],
      ['mercadopago', ids.MERCADOPAGO],
    ]);
    // Each PSP's fake holds the session, at the link's amount in its own terms.
    expect(psps.cashfree.links.get(inr?.session.id ?? '')).toMatchObject({
      link_amount: 499,
      link_currency: 'INR',
    });
    expect(psps.mercadopago.preferences.get(brl?.session.id ?? '')).toMatchObject({
      items: [{ currency_id: 'BRL', unit_price: 150 }],
    });
    expect(psps.xendit.sessions.get(idr?.session.id ?? '')).toMatchObject({
      amount: 250000,
      currency: 'IDR',
    });
    expect(psps.stripe.sessions.get(eur?.session.id ?? '')).toMatchObject({
      currency: 'eur',
      amount_total: 2500,
    });

    // The BRL rule names Stripe behind Mercado Pago; a link that asks for Pix has Mercado Pago alone.
    expect(await candidatesOf(brl?.link.id)).toEqual([ids.MERCADOPAGO, ids.STRIPE]);
    expect(await candidatesOf(pix?.link.id)).toEqual([ids.MERCADOPAGO]);
    expect(psps.mercadopago.preferences.get(pix?.session.id ?? '')).toMatchObject({
      payment_methods: {
        excluded_payment_types: expect.arrayContaining([{ id: 'credit_card' }, { id: 'ticket' }]),
      },
    });

    const paid = psps.mercadopago.pay(pix?.session.id ?? '', 'approved', 'pix');
    const notified = psps.mercadopago.notification(paid, MERCADOPAGO_FAKE.credentials.webhook_secret);
    const response = await psps.stack.request('POST', `/psp/mercadopago/notifications/${ids.MERCADOPAGO}`, {
      rawBody: notified.body,
      headers: notified.headers,
    });
    expect(response.status).toBe(200);
    const read = await psps.stack.request('GET', `/v1/payment-links/${pix?.link.id}`, { key: key.api_key });
    expect(read.body).toMatchObject({
      status: 'paid',
      payment: { id: pix?.session.payment_id, provider: 'mercadopago', connection_id: ids.MERCADOPAGO },
    });
    const event = await eventually(() =>
      hooks.received
        .map((webhook) => verifyWebhook(webhook.body, webhook.headers as Record<string, string>, hookSecret))
        .find((each) => each.type === 'payment_link.paid' && each.data.id === pix?.link.id),
    );
    expect(event).toMatchObject({ data: { id: pix?.link.id, status: 'paid' } });
    for (const fake of [psps.stripe, psps.cashfree, psps.mercadopago, psps.xendit]) {
      expect(fake.violations).toEqual([]);
    }
  });
});
