import { afterAll, beforeAll } from 'vitest';
import { ADYEN_FAKE } from '../../functions/adapters/psp/adyen/test/fake.ts';
import { MOLLIE_FAKE } from '../../functions/adapters/psp/mollie/test/fake.ts';
import { STRIPE_FAKE } from '../../functions/adapters/psp/stripe/test/fake.ts';
import { paymentRepository } from '../../functions/dependencies.ts';
import type { PspConnection } from '../../functions/domain/connection.ts';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { httpRequest, NAVIGATION_HEADERS } from '../support/navigate.ts';
import { type PspStack, startPspStack } from '../support/psp-stack.ts';

const FAKES = { stripe: STRIPE_FAKE, mollie: MOLLIE_FAKE, adyen: ADYEN_FAKE };

export type Provider = 'sandbox' | 'stripe' | 'mollie' | 'adyen';

/** A buyer's browser on the checkout page: it keeps the cookie the page sets, as a browser does. */
export function buyer() {
  let cookie: string | undefined;
  let last: string | undefined;
  return {
    get payment() {
      return cookie?.split('=')[1];
    },
    /** The last `Set-Cookie` the page sent. */
    get setCookie() {
      return last;
    },
    async visit(url: string) {
      const page = await httpRequest(url, {
        headers: { ...NAVIGATION_HEADERS, ...(cookie ? { cookie } : {}) },
      });
      const set = ([] as string[]).concat(page.headers['set-cookie'] ?? [])[0];
      if (set) {
        last = set;
        cookie = set.split(';')[0];
      }
      return page;
    },
  };
}

/** The buyer's own session, as recorded with their payment. */
export async function sessionOf(linkId: string, paymentId: string | undefined) {
  const payment = await paymentRepository().get(linkId, 'test', paymentId ?? '');
  if (!payment?.session_id) throw new Error(`no session for ${paymentId}`);
  return { id: payment.session_id, url: payment.session_url, paymentId: payment.id };
}

export const pointers = (body: { errors?: { pointer: string }[] }) =>
  body.errors?.map((error) => error.pointer);

/**
 * A stack behind the fake Stripe, Mollie and Adyen with an account of each provider (the sandbox too) and a
 * connection of each PSP, and the calls the reusable-link files make (test/integration/reusable-links.test.ts,
 * reusable-link-cancel-and-expiry.test.ts). Called once at the top of a file: it starts the stack before the
 * file's tests and stops it after them.
 */
export function reusableLinkPsps() {
  let psps: PspStack<typeof FAKES> | undefined;
  const keys = {} as Record<Provider, IssuedApiKey>;
  const connections = {} as Record<Exclude<Provider, 'sandbox'>, PspConnection>;

  beforeAll(async () => {
    psps = await startPspStack({ fakes: FAKES });
    for (const provider of ['sandbox', 'stripe', 'mollie', 'adyen'] as const) {
      keys[provider] = await psps.stack.issueKey(`${provider}reusable`, 'test');
    }
    for (const provider of ['stripe', 'mollie', 'adyen'] as const) {
      connections[provider] = await psps.connect(`${provider}reusable`, provider);
    }
  });
  afterAll(() => psps?.stop());

  const started = (): PspStack<typeof FAKES> => {
    if (!psps) throw new Error('the reusable-link stack has not started');
    return psps;
  };

  /** The buyer pays on their session at the PSP, and the PSP's notification reaches us. */
  async function pay(provider: Provider, sessionId: string) {
    const { stack, stripe, mollie, adyen } = started();
    const notify = (rawBody: string, headers: Record<string, string>) =>
      stack.request('POST', `/psp/${provider}/notifications/${connections[provider as 'stripe'].id}`, {
        rawBody,
        headers,
      });
    if (provider === 'sandbox') {
      await httpRequest(`${stack.baseUrl}/sandbox/checkout/${sessionId}/pay`, { method: 'POST' });
      return;
    }
    if (provider === 'stripe') {
      const paid = stripe.completeSession(sessionId);
      const event = stripe.signedEvent(
        'checkout.session.completed',
        paid,
        STRIPE_FAKE.credentials.webhook_secret,
      );
      await notify(event.body, { 'content-type': 'application/json', 'stripe-signature': event.signature });
    } else if (provider === 'mollie') {
      mollie.setStatus(sessionId, 'paid');
      await notify(mollie.webhookBody(sessionId), { 'content-type': 'application/x-www-form-urlencoded' });
    } else {
      await notify(adyen.notification([adyen.pay(sessionId)], { hmacKey: ADYEN_FAKE.credentials.hmac_key }), {
        'content-type': 'application/json',
      });
    }
  }

  const api = (provider: Provider, method: string, path: string, body?: unknown) =>
    started().stack.request(method, path, { key: keys[provider].api_key, body });

  const events = async (provider: Provider, linkId: string) =>
    (await api(provider, 'GET', `/v1/payment-links/${linkId}/events`)).body.data as {
      type: string;
      id: string;
    }[];

  /** Each event's payload as the webhook carries it. */
  async function payloads(provider: Provider, linkId: string) {
    const ids = (await events(provider, linkId)).map((event) => event.id);
    // biome-ignore lint/suspicious/noExplicitAny: the webhook's JSON body, asserted on below
    const read: any[] = [];
    for (const id of ids) read.push((await api(provider, 'GET', `/v1/events/${id}`)).body);
    return read;
  }

  /** Whether the PSP holds a refund of the payment with this PSP reference. */
  function refundedAtPsp(provider: Provider, reference: string): boolean {
    const { stripe, mollie, adyen } = started();
    if (provider === 'stripe')
      return [...stripe.refunds.values()].some((r) => r.payment_intent === reference);
    if (provider === 'mollie') return [...mollie.refunds.values()].some((r) => r.paymentId === reference);
    if (provider === 'adyen')
      return [...adyen.refunds.values()].some((r) => r.paymentPspReference === reference);
    return true; // the sandbox refunds at once and keeps nothing to look at
  }

  return { started, keys, connections, pay, api, events, payloads, refundedAtPsp };
}
