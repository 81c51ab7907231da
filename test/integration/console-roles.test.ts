import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConsoleClient, signInToConsole } from '../support/console.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';

/** Only what the role can do is shown (docs/console.md#roles); what is sent anyway is refused, as before. */
let stack: TestStack;
let admin: ConsoleClient;
let finance: ConsoleClient;
let viewer: ConsoleClient;

beforeAll(async () => {
  stack = await startTestStack();
  await stack.issueKey('acme', 'test');
  [admin, finance, viewer] = await Promise.all([
    signInToConsole(stack.baseUrl, 'acme', 'admin'),
    signInToConsole(stack.baseUrl, 'acme', 'finance'),
    signInToConsole(stack.baseUrl, 'acme', 'viewer'),
  ]);
});
afterAll(async () => {
  await stack?.stop();
});

/** The navigation's entries, by their path. */
const navOf = async (client: ConsoleClient) => {
  const page = await client.get('/console/payments');
  const nav = /<nav[^>]*>(.*?)<\/nav>/s.exec(page.text)?.[1] ?? '';
  return [...nav.matchAll(/<a href="\/console\/([\w/]+)"/g)].map((entry) => entry[1]);
};

describe('console controls by role', () => {
  it('shows each role only the pages it may use', async () => {
    const all = [
      'overview',
      'links',
      'links/new',
      'payments',
      'refunds',
      'subscriptions',
      'settlements',
      'webhooks',
      'psps',
      'settings',
    ];

    expect(await navOf(admin)).toEqual([...all, 'keys', 'exports', 'audit']);
    expect(await navOf(finance)).toEqual([...all.filter((page) => page !== 'links/new'), 'exports']);
    expect(await navOf(viewer)).toEqual(all.filter((page) => page !== 'links/new'));
  });

  it('refuses the create form to a role that may not create, and shows the settings as text to one that may not save', async () => {
    const [form, settings, adminSettings] = await Promise.all([
      viewer.get('/console/links/new'),
      finance.get('/console/settings'),
      admin.get('/console/settings'),
    ]);

    expect(form.status).toBe(403);
    expect(settings.status).toBe(200);
    // The page's own content: the navigation's search box is an input every role has.
    const main = /<main>(.*)<\/main>/s.exec(settings.text)?.[1] ?? '';
    expect(main).not.toMatch(/<input(?! type="hidden")|<form method="post" action="\/console\/settings"/);
    expect(settings.text).toMatch(/<dt>Display name<\/dt><dd>/);
    expect(adminSettings.text).toContain('<form method="post" action="/console/settings"');
    expect(adminSettings.text).toContain('<input id="display_name"');
  });
});
