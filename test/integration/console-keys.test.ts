import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleStore, signingSecretStore } from '../../functions/dependencies.ts';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { type ConsoleClient, signInToConsole } from '../support/console.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';

/** The console's API keys page: admins only, a new key shown once, revocation scoped to the account and mode. */
let stack: TestStack;
let globex: IssuedApiKey;
let admin: ConsoleClient;
let finance: ConsoleClient;

beforeAll(async () => {
  stack = await startTestStack();
  globex = await stack.issueKey('globex', 'test');
  [admin, finance] = await Promise.all([
    signInToConsole(stack.baseUrl, 'acme', 'admin'),
    signInToConsole(stack.baseUrl, 'acme', 'finance'),
  ]);
});
afterAll(async () => {
  await stack?.stop();
});

const newKeyOf = (text: string) => /<code id="new-key">([^<]+)<\/code>/.exec(text)?.[1];

describe('the console API keys page', () => {
  it('creates a key that the API takes, shows it once and lists it by id only, audit-logged', async () => {
    const created = await admin.post('/console/keys', {});
    const key = newKeyOf(created.text) ?? '';
    const listed = await admin.get('/console/keys');
    const keyId = /<code>(key_\w+)<\/code>/.exec(listed.text)?.[1];
    const read = await stack.request('GET', '/v1/payment-links', { key });
    const audit = await consoleStore().listAudit('acme', 10);

    expect(created.status).toBe(201);
    expect(key).toMatch(/^svc_test_\w{38}$/);
    expect(created.text).not.toContain('whsec_');
    expect(listed.text).not.toContain(key);
    expect(listed.text).toContain(key.slice(0, 13));
    expect(read.status).toBe(200);
    expect(audit).toContainEqual(
      expect.objectContaining({ action: 'keys.manage', target: keyId, user: 'admin@acme' }),
    );
  });

  it("seals the mode's webhook signing secret with its first key, and leaves an existing one as it is", async () => {
    const before = await signingSecretStore().getWebhookSecret('globex', 'test');
    const globexAdmin = await signInToConsole(stack.baseUrl, 'globex', 'admin');

    await Promise.all([admin.post('/console/keys', {}), globexAdmin.post('/console/keys', {})]);

    expect(await signingSecretStore().getWebhookSecret('acme', 'test')).toMatch(/^whsec_/);
    expect(before).toBe(globex.webhook_secret);
    expect(await signingSecretStore().getWebhookSecret('globex', 'test')).toBe(before);
  });

  it('revokes a key of the account, after which the API refuses it', async () => {
    const key = newKeyOf((await admin.post('/console/keys', {})).text) ?? '';
    const keyId = new RegExp(`<code>(key_\\w+)</code></td><td><code>${key.slice(0, 13)}`).exec(
      (await admin.get('/console/keys')).text,
    )?.[1];

    const revoked = await admin.post(`/console/keys/${keyId}/revoke`, {});
    const listed = await admin.get('/console/keys');
    const read = await stack.request('GET', '/v1/payment-links', { key });

    expect([revoked.status, revoked.headers.location]).toEqual([303, '/console/keys?notice=revoked']);
    expect(listed.text).toMatch(new RegExp(`${keyId}</code>.*\\n.*revoked`));
    expect(read.status).toBe(401);
  });

  it("answers 404 to another account's key and 403 to a role other than admin, changing nothing", async () => {
    const foreign = await admin.post(`/console/keys/${globex.key_id}/revoke`, {});
    const page = await finance.get('/console/keys');
    const create = await finance.post('/console/keys', {});
    const stillWorks = await stack.request('GET', '/v1/payment-links', { key: globex.api_key });

    expect(foreign.status).toBe(404);
    expect([page.status, create.status]).toEqual([403, 403]);
    expect(stillWorks.status).toBe(200);
  });

  it('refuses a form without the CSRF token', async () => {
    const refused = await admin.post('/console/keys', { csrf_token: null });

    expect(refused.status).toBe(403);
    expect(newKeyOf(refused.text)).toBeUndefined();
  });
});
