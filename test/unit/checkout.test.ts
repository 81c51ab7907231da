import { describe, expect, it } from 'vitest';
import { isPreviewRequest } from '../../functions/domain/checkout/preview.ts';
import {
  reusableSession,
  SESSION_REUSE_MARGIN_MS,
  sessionExpiry,
  withSession,
} from '../../functions/domain/checkout/sessions.ts';
import { markPaid } from '../../functions/domain/link-events.ts';
import { PAGE_LANGUAGES, resolveLocale } from '../../functions/domain/locale.ts';
import { newPaymentLink, type PaymentLink } from '../../functions/domain/payment-link.ts';
import { messagesFor } from '../../functions/http/checkout/messages.ts';
import { escapeHtml, formatAmount as formatAmountIntl, formatDate, html } from '../../functions/http/html.ts';

const now = new Date('2026-01-01T10:00:00Z');
const link = (expiresAt?: string): PaymentLink =>
  newPaymentLink(
    { account: 'acme', mode: 'test' },
    { amount: { value: '10', currency: 'EUR' }, expires_at: expiresAt },
    now,
  );
const session = (expiresAt: Date, connection = 'pc_a') => ({
  provider: 'sandbox' as const,
  connection_id: connection,
  payment_id: 'pay_1',
  id: 'sbcs_1',
  url: 'https://pay.example/s/1',
  expires_at: expiresAt.toISOString(),
  amount: { value: '10', currency: 'EUR' },
});
const limits = { minMs: 30 * 60_000, maxMs: 24 * 3_600_000, preferredMs: 24 * 3_600_000 };

describe('reusing a PSP session', () => {
  it('reuses a session of a connection that may serve the link while the buyer has time left on it', () => {
    const fresh = withSession(link(), session(new Date(now.getTime() + 3_600_000)));
    expect(reusableSession(fresh, ['pc_b', 'pc_a'], now)).toEqual(fresh.psp_session);
  });

  it('does not reuse a session that lapsed, is about to, or comes from a connection not serving the link', () => {
    const lapsed = withSession(link(), session(new Date(now.getTime() - 1)));
    const closing = withSession(link(), session(new Date(now.getTime() + SESSION_REUSE_MARGIN_MS - 1)));
    const other = withSession(link(), session(new Date(now.getTime() + 3_600_000), 'pc_b'));
    expect(reusableSession(lapsed, ['pc_a'], now)).toBeUndefined();
    expect(reusableSession(closing, ['pc_a'], now)).toBeUndefined();
    expect(reusableSession(other, ['pc_a'], now)).toBeUndefined();
    expect(reusableSession(link(), ['pc_a'], now)).toBeUndefined();
  });

  it('stores a session one version later, and a payment clears it', () => {
    const withOne = withSession(link(), session(new Date(now.getTime() + 3_600_000)));
    expect(withOne.version).toBe(2);
    const paid = markPaid(
      withOne,
      { id: 'pay_1', connection_id: 'pc_a', provider: 'sandbox', reference: 'p', amount: withOne.amount! },
      now,
    );
    expect(paid?.after.psp_session).toBeNull();
    expect(paid?.after.version).toBe(3);
  });
});

describe('the expiry of a new PSP session', () => {
  it('is the PSP maximum when the link never expires', () => {
    expect(sessionExpiry(link(), now, limits)).toEqual(new Date(now.getTime() + 24 * 3_600_000));
  });

  it('is capped by the link expiry', () => {
    const expiresAt = new Date(now.getTime() + 2 * 3_600_000).toISOString();
    expect(sessionExpiry(link(expiresAt), now, limits).toISOString()).toBe(expiresAt);
  });

  it('is never shorter than the PSP minimum, even for a link about to expire', () => {
    const soon = new Date(now.getTime() + 60_000).toISOString();
    expect(sessionExpiry(link(soon), now, limits)).toEqual(new Date(now.getTime() + limits.minMs));
  });
});

describe('telling previews from buyers', () => {
  const browser = {
    'sec-fetch-mode': 'navigate',
    'sec-fetch-dest': 'document',
    'user-agent':
      'Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148 Safari/604.1',
  };

  it('treats a top-level navigation of a browser, or a request without Fetch Metadata, as a buyer', () => {
    expect(isPreviewRequest('GET', browser)).toBe(false);
    expect(isPreviewRequest('GET', { 'user-agent': 'Mozilla/5.0 (Windows NT 10.0) Firefox/140.0' })).toBe(
      false,
    );
    expect(isPreviewRequest('GET', {})).toBe(false);
  });

  it('treats HEAD, prefetch and prerender, and non-navigation fetches as previews', () => {
    expect(isPreviewRequest('HEAD', browser)).toBe(true);
    expect(isPreviewRequest('GET', { ...browser, 'sec-purpose': 'prefetch;prerender' })).toBe(true);
    expect(isPreviewRequest('GET', { ...browser, purpose: 'prefetch' })).toBe(true);
    expect(isPreviewRequest('GET', { ...browser, 'x-moz': 'prefetch' })).toBe(true);
    expect(isPreviewRequest('GET', { ...browser, 'sec-fetch-mode': 'cors' })).toBe(true);
    expect(isPreviewRequest('GET', { ...browser, 'sec-fetch-dest': 'iframe' })).toBe(true);
  });

  it.each([
    'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)',
    'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)',
    'Twitterbot/1.0',
    'WhatsApp/2.23.20.0',
    'TelegramBot (like TwitterBot)',
    'Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)',
    'LinkedInBot/1.0',
    'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
    'Mozilla/5.0 (Macintosh) AppleWebKit/605.1.15 (KHTML, like Gecko) SkypeUriPreview Preview/0.5',
  ])('treats the link unfurler %s as a preview', (userAgent) => {
    expect(isPreviewRequest('GET', { 'user-agent': userAgent })).toBe(true);
  });
});

describe('HTML rendering', () => {
  it('escapes markup and quotes in interpolated text', () => {
    expect(escapeHtml(`<a href="x" onclick='y'>&</a>`)).toBe(
      '&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;&lt;/a&gt;',
    );
    expect(html`<p>${'<script>'}</p>`.value).toBe('<p>&lt;script&gt;</p>');
  });

  it('formats amounts exactly with the currency minor units', () => {
    // Intl separates symbol and number with a no-break space.
    const formatAmount = (...args: Parameters<typeof formatAmountIntl>) =>
      formatAmountIntl(...args).replaceAll('\u00a0', ' ');
    expect(formatAmount({ value: '10.5', currency: 'EUR' })).toBe('€10.50');
    expect(formatAmount({ value: '500', currency: 'JPY' })).toBe('¥500');
    expect(formatAmount({ value: '1.5', currency: 'KWD' })).toBe('KWD 1.500');
    expect(formatAmount({ value: '999999999999.99', currency: 'USD' })).toBe('$999,999,999,999.99');
    expect(formatAmount({ value: '10.5', currency: 'EUR' }, 'de-DE')).toBe('10,50 €');
  });

  it("speaks the link's locale, else the buyer's best-weighted language we speak, else English", () => {
    expect(resolveLocale(null, 'de-DE,de;q=0.9,en;q=0.8')).toBe('de-DE');
    expect(resolveLocale(null, 'ja,en;q=0.5,nl;q=0.9')).toBe('nl');
    expect(resolveLocale(null, 'fr-be;q=0.8, es;q=0.7')).toBe('fr-BE');
    expect(resolveLocale('nl', 'de-DE')).toBe('nl');
    expect(resolveLocale(null, 'nl;q=0, es')).toBe('es');
    expect(resolveLocale(undefined, undefined)).toBe('en');
    expect(resolveLocale(undefined, '*')).toBe('en');
    expect(resolveLocale(undefined, 'not a tag!!')).toBe('en');
  });

  it("formats dates in the buyer's locale, in UTC", () => {
    expect(formatDate('2026-11-25T17:05:00Z', 'nl').replaceAll('\u00a0', ' ')).toBe('25 nov 2026, 17:05 UTC');
    expect(formatDate('2026-11-25T17:05:00Z', 'en')).toMatch(/^Nov 25, 2026, 05:05\sPM UTC$/);
  });

  it('formats a Dutch amount as Dutch buyers write it', () => {
    expect(formatAmountIntl({ value: '10', currency: 'EUR' }, 'nl').replaceAll('\u00a0', ' ')).toBe(
      '€ 10,00',
    );
  });

  it('has every text in every page language', async () => {
    const english = await messagesFor('en');
    for (const language of PAGE_LANGUAGES) {
      const t = await messagesFor(language);
      expect(Object.keys(t).sort()).toEqual(Object.keys(english).sort());
      if (language !== 'en') expect(t.continueToPayment).not.toBe(english.continueToPayment);
    }
  });
});
