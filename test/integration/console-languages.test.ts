import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxSessionStore } from '../../functions/dependencies.ts';
import { BUILT_IN_SANDBOX_ID } from '../../functions/domain/connection.ts';
import { PAGE_LANGUAGES, type PageLanguage } from '../../functions/domain/locale.ts';
import { loadConsoleMessages } from '../../functions/http/console/messages.ts';
import { seedPayment } from '../support/books.ts';
import { createLink, sandboxNotification, storedLink } from '../support/checkout-helpers.ts';
import { type ConsoleClient, signInToConsole } from '../support/console.ts';
import { httpRequest, navigate } from '../support/navigate.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';

/** A link's page, the books and the audit log in each of the console's languages (docs/console.md#languages). */
let stack: TestStack;
let apiKey: string;
let admin: ConsoleClient;
let linkId: string;
let paymentId: string;

beforeAll(async () => {
  stack = await startTestStack();
  const key = await stack.issueKey('acme', 'test');
  apiKey = key.api_key;
  admin = await signInToConsole(stack.baseUrl, 'acme', 'admin');
  const link = await createLink(stack, key.api_key, {
    reusable: true,
    collect: { email: 'required', phone: 'optional', shipping_address: { countries: ['NL', 'BE'] } },
  });
  linkId = link.id;
  const payment = await seedPayment('acme', {
    created_at: new Date().toISOString(),
    link_id: linkId,
    amount: { value: '10.50', currency: 'EUR' },
    buyer: { email: 'ada.languages@example.com', name: 'Ada Languages' },
    quantities: [2],
  });
  paymentId = payment.id;
  // One change, so that the audit log has a row.
  await admin.post('/console/mode', { mode: 'test', back: '/console/audit' });
});
afterAll(async () => {
  await stack?.stop();
});

const get = (path: string, language: PageLanguage) =>
  httpRequest(`${stack.baseUrl}${path}`, { headers: { cookie: admin.cookie, 'accept-language': language } });

const heading = (text: string) => /<h1>([^<]*)<\/h1>/.exec(text)?.[1];

/** Texts of these pages in English that no other language spells the same (long enough not to be part of a word). */
async function englishOnly(): Promise<string[]> {
  const { link, columns, buyer, books, audit } = await loadConsoleMessages('en');
  return [
    link.asks,
    link.noEvents,
    link.refundAmount,
    columns.personalData,
    columns.answers,
    buyer.erase,
    buyer.quantities('2'),
    books.newestFirst,
    books.from,
    books.downloadCsv,
    books.eraseEffect,
    books.eraseNoOthers[1],
    books.eraseUnlinked,
    audit.intro,
  ];
}

describe("the console's link, books and audit pages in the browser's language", () => {
  it.each(PAGE_LANGUAGES)('speak %s, each page wholly', async (language) => {
    const words = await loadConsoleMessages(language);
    const [link, payments, refunds, exports, erase, audit] = await Promise.all([
      get(`/console/links/${linkId}`, language),
      get('/console/payments', language),
      get('/console/refunds', language),
      get('/console/exports', language),
      get(`/console/payments/${paymentId}/erase`, language),
      get('/console/audit', language),
    ]);

    for (const page of [link, payments, refunds, exports, erase, audit]) {
      expect(page.status).toBe(200);
      expect(page.text).toContain(`<html lang="${language}">`);
      if (language !== 'en')
        for (const english of await englishOnly()) expect(page.text).not.toContain(english);
    }
    expect([link, payments, refunds, exports, erase, audit].map((page) => heading(page.text))).toEqual([
      words.link.title(linkId),
      words.books.payments,
      words.books.refunds,
      words.books.exports,
      words.books.eraseTitle,
      words.audit.title,
    ]);
    expect(link.text).toContain(`<dt>${words.link.asks}</dt>`);
    expect(link.text).toContain(
      `${words.link.details.email} (${words.link.requirement.required}); ${words.link.details.phone} (${words.link.requirement.optional}); ${words.link.shippingTo('NL, BE')}`,
    );
    expect(link.text).toContain(words.buyer.quantities('2'));
    expect(link.text).toContain(words.link.reusable(0, null));
    expect(payments.text).toContain(`>${words.buyer.erase}</a>`);
    expect(refunds.text).toContain(words.books.noRefunds);
    expect(exports.text).toContain(words.books.downloadCsv);
    expect(erase.text).toContain(words.books.keep);
    expect(erase.text).toContain(`${linkId}</a> ${words.books.eraseNoOthers[1]}`);
    expect(erase.text).toContain(words.books.eraseUnlinked);
    expect(audit.text).toContain('<td>mode.switch</td>');
  });

  it('refund an amount typed as German writes it', async () => {
    const link = await createLink(stack, apiKey, { amount: { value: '1234.50', currency: 'EUR' } });
    await navigate(link.checkout_url);
    const session = (await storedLink(link.id)).psp_session;
    if (!session) throw new Error('The checkout opened no session');
    await sandboxSessionStore().complete(session.id, `sbpay_languages_${session.id}`, new Date());
    const paid = sandboxNotification({ session_id: session.id, link_id: link.id });
    await stack.request('POST', `/psp/sandbox/notifications/${BUILT_IN_SANDBOX_ID}`, paid);
    const payment = (await stack.request('GET', `/v1/payment-links/${link.id}/payments`, { key: apiKey }))
      .body.data[0];

    const answer = await httpRequest(`${stack.baseUrl}/console/links/${link.id}/refunds`, {
      method: 'POST',
      headers: {
        cookie: admin.cookie,
        'accept-language': 'de',
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({
        csrf_token: admin.csrf,
        payment_id: payment.id,
        amount: '1.002,50',
      }).toString(),
    });

    expect(answer.status).toBe(303);
    const refunds = await stack.request('GET', `/v1/payment-links/${link.id}/refunds`, { key: apiKey });
    expect(refunds.body.data.map((refund: { amount: unknown }) => refund.amount)).toEqual([
      { value: '1002.50', currency: 'EUR' },
    ]);
  });

  it('show the notice a change names, in the language, and none for a name it does not know', async () => {
    const created = await get(`/console/links/${linkId}?notice=created`, 'fr');
    const unknown = await get(`/console/links/${linkId}?notice=toString`, 'fr');

    expect(created.text).toContain(
      `<p class="notice" role="status">${(await loadConsoleMessages('fr')).link.notices.created}</p>`,
    );
    expect(unknown.status).toBe(200);
    expect(unknown.text).not.toContain('class="notice"');
  });
});
