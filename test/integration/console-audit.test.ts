import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { documentClient } from '../../functions/clients/dynamodb.ts';
import { consoleStore } from '../../functions/dependencies.ts';
import { type AuditEntry, NO_ACCOUNT } from '../../functions/domain/console-access.ts';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { consoleSignInLink, expiredSignInToken, signInToConsole } from '../support/console.ts';
import { httpRequest } from '../support/navigate.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';

/**
 * The console's audit log records what happens (docs/console.md#audit-log): sign-ins, sign-outs and refused
 * attempts, and each change with its outcome, written before the change, so that neither a failed change nor a
 * failed audit write leaves a change unrecorded. Refusals that name no account are told apart by the address
 * each test sends them from.
 */
let stack: TestStack;
let key: IssuedApiKey;

beforeAll(async () => {
  stack = await startTestStack({ schedules: false });
  key = await stack.issueKey('audited', 'test');
});
afterEach(() => {
  documentClient().middlewareStack.remove(REFUSING);
});
afterAll(() => stack?.stop());

const REFUSING = 'refuse-console-writes';
const text = (value: unknown) => (value as { S?: string } | undefined)?.S ?? value;

/** The table refuses the functions' writes (put, update, delete) of items whose `pk` starts with `prefix`. */
function refuseWrites(prefix: string, only: (input: Record<string, unknown>) => boolean = () => true) {
  documentClient().middlewareStack.add(
    (next, context) => (args) => {
      const input = args.input as { Key?: Record<string, unknown>; Item?: Record<string, unknown> };
      const written = input.Key ?? input.Item;
      const write = /^(Put|Update|Delete)/.test(String(context.commandName));
      if (
        write &&
        String(text(written?.pk)).startsWith(prefix) &&
        only(args.input as Record<string, unknown>)
      ) {
        throw new Error('The table refused the write.');
      }
      return next(args);
    },
    { step: 'initialize', name: REFUSING },
  );
}

const audit = (account: string): Promise<AuditEntry[]> => consoleStore().listAudit(account, 100);
const fromAddress = (entries: AuditEntry[], address: string) =>
  entries.filter((entry) => entry.source_ip === address);
const summary = (entries: AuditEntry[]) =>
  entries.map(({ user, action, target, outcome, reason }) => ({ user, action, target, outcome, reason }));

const tokenOf = async (account: string, role: 'admin' | 'viewer' = 'admin') =>
  new URL(await consoleSignInLink(stack.baseUrl, account, role)).searchParams.get('token') ?? '';

const postSignIn = (
  token: string,
  options: { headers?: Record<string, string>; localAddress?: string } = {},
) =>
  httpRequest(`${stack.baseUrl}/console/sign-in`, {
    method: 'POST',
    localAddress: options.localAddress,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...options.headers },
    body: new URLSearchParams({ token }).toString(),
  });

const linksOf = async () =>
  (await stack.request('GET', '/v1/payment-links?limit=100', { key: key.api_key })).body.data as {
    description?: string;
  }[];

describe('signing in to the console from another site', () => {
  it('is refused before the link is looked at, leaving it usable from the console itself', async () => {
    const token = await tokenOf('login-csrf');

    const crossSite = await postSignIn(token, {
      headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
      localAddress: '127.0.0.21',
    });
    // A browser without Fetch Metadata still names the other site in `Origin`.
    const otherOrigin = await postSignIn(token, {
      headers: { origin: 'https://evil.example' },
      localAddress: '127.0.0.21',
    });
    const ours = await postSignIn(token, { headers: { origin: 'null', 'sec-fetch-site': 'same-origin' } });

    expect([crossSite.status, otherOrigin.status]).toEqual([403, 403]);
    expect([crossSite.headers['set-cookie'], otherOrigin.headers['set-cookie']]).toEqual([
      undefined,
      undefined,
    ]);
    expect(ours.status).toBe(303);
    expect(String(ours.headers['set-cookie'])).toMatch(/^console_session=/);
    expect(summary(fromAddress(await audit(NO_ACCOUNT), '127.0.0.21'))).toEqual(
      Array(2).fill({
        user: null,
        action: 'session.sign-in',
        target: null,
        outcome: 'refused',
        reason: 'cross-site',
      }),
    );
  });
});

describe('the console audit log', () => {
  it('records a sign-in, refused sign-ins and a sign-out, each with its outcome', async () => {
    const token = await tokenOf('signing');

    const signedIn = await postSignIn(token, { localAddress: '127.0.0.22' });
    await postSignIn(token, { localAddress: '127.0.0.22' });
    await postSignIn('not-a-token', { localAddress: '127.0.0.22' });
    await postSignIn(await expiredSignInToken('signing', 'viewer'), { localAddress: '127.0.0.22' });
    const cookie = String(signedIn.headers['set-cookie']).split(';')[0] ?? '';
    const page = await httpRequest(`${stack.baseUrl}/console/links`, { headers: { cookie } });
    const csrf = /name="csrf_token" value="([^"]+)"/.exec(page.text)?.[1] ?? '';
    const signedOut = await httpRequest(`${stack.baseUrl}/console/sign-out`, {
      method: 'POST',
      localAddress: '127.0.0.22',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf_token: csrf }).toString(),
    });

    expect([signedIn.status, signedOut.status]).toEqual([303, 303]);
    expect(summary(await audit('signing'))).toEqual([
      { user: 'admin@signing', action: 'session.sign-out', target: null, outcome: 'succeeded', reason: null },
      {
        user: 'viewer@signing',
        action: 'session.sign-in',
        target: null,
        outcome: 'refused',
        reason: 'link-expired',
      },
      { user: 'admin@signing', action: 'session.sign-in', target: null, outcome: 'succeeded', reason: null },
    ]);
    expect((await audit('signing')).map((entry) => entry.source_ip)).toEqual(Array(3).fill('127.0.0.22'));
    // The used link and the malformed token name no account.
    expect(summary(fromAddress(await audit(NO_ACCOUNT), '127.0.0.22'))).toEqual(
      Array(2).fill({
        user: null,
        action: 'session.sign-in',
        target: null,
        outcome: 'refused',
        reason: 'link-unknown',
      }),
    );
  });

  it('records one sign-in of a link used many times at once, and what became of the others', async () => {
    const token = await tokenOf('racing');

    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, index) => postSignIn(token, { localAddress: `127.0.1.${index + 1}` })),
    );

    expect(answers.filter((answer) => answer.status === 303)).toHaveLength(1);
    const entries = await audit('racing');
    expect(entries.filter((entry) => entry.outcome === 'succeeded')).toHaveLength(1);
    // A request that read the link before another used it failed to use it; one that came later did not find it.
    const failed = entries.filter((entry) => entry.outcome !== 'succeeded');
    const unknown = (await audit(NO_ACCOUNT)).filter((entry) => entry.source_ip.startsWith('127.0.1.'));
    expect(failed.every((entry) => entry.outcome === 'failed' && entry.reason === 'link-used')).toBe(true);
    expect(failed.length + unknown.length).toBe(7);
  });

  it("records forms refused (403) for their token, role or site, and pages a role may not read, in the session's account", async () => {
    const [admin, viewer] = await Promise.all([
      signInToConsole(stack.baseUrl, 'refusing', 'admin'),
      signInToConsole(stack.baseUrl, 'refusing', 'viewer'),
    ]);

    const answers = [
      await admin.post('/console/links', { amount: '5.00', currency: 'EUR', csrf_token: null }),
      await viewer.post('/console/links/pl_x/cancel', {}),
      await viewer.get('/console/audit'),
      await httpRequest(`${stack.baseUrl}/console/mode`, {
        method: 'POST',
        headers: {
          cookie: admin.cookie,
          'content-type': 'application/x-www-form-urlencoded',
          'sec-fetch-site': 'same-site',
        },
        body: new URLSearchParams({ csrf_token: admin.csrf, mode: 'live' }).toString(),
      }),
    ];

    expect(answers.map((answer) => answer.status)).toEqual([403, 403, 403, 403]);
    const refusals = (await audit('refusing')).filter((entry) => entry.action !== 'session.sign-in');
    expect(summary(refusals)).toEqual([
      {
        user: 'admin@refusing',
        action: 'mode.switch',
        target: null,
        outcome: 'refused',
        reason: 'cross-site',
      },
      { user: 'viewer@refusing', action: 'audit.read', target: null, outcome: 'refused', reason: 'role' },
      { user: 'viewer@refusing', action: 'link.cancel', target: 'pl_x', outcome: 'refused', reason: 'role' },
      { user: 'admin@refusing', action: 'link.create', target: null, outcome: 'refused', reason: 'csrf' },
    ]);
  });

  it('records a change as attempted before it is made, then what became of it', async () => {
    const admin = await signInToConsole(stack.baseUrl, 'audited', 'admin');

    const created = await admin.post('/console/links', { amount: '7.00', currency: 'EUR' });
    const invalid = await admin.post('/console/links', { amount: 'seven', currency: 'EUR' });
    const preview = await admin.post('/console/settings', { display_name: 'Shop', action: 'preview' });

    const id = /\/console\/links\/(pl_\w+)/.exec(String(created.headers.location))?.[1];
    expect([created.status, invalid.status, preview.status]).toEqual([303, 422, 200]);
    expect(summary((await audit('audited')).slice(0, 3))).toEqual([
      { user: 'admin@audited', action: 'settings.edit', target: null, outcome: 'unchanged', reason: null },
      { user: 'admin@audited', action: 'link.create', target: null, outcome: 'failed', reason: '422' },
      { user: 'admin@audited', action: 'link.create', target: id, outcome: 'succeeded', reason: null },
    ]);
  });

  it('records a change whose own write failed as failed', async () => {
    const admin = await signInToConsole(stack.baseUrl, 'audited', 'admin');
    const before = (await linksOf()).length;

    refuseWrites('LINK#');
    const created = await admin.post('/console/links', { amount: '8.00', currency: 'EUR' });

    expect(created.status).toBe(500);
    expect((await linksOf()).length).toBe(before);
    expect(summary((await audit('audited')).slice(0, 1))).toEqual([
      {
        user: 'admin@audited',
        action: 'link.create',
        target: null,
        outcome: 'failed',
        reason: 'internal_error',
      },
    ]);
  });

  it('makes no change whose audit entry cannot be written, and starts no session', async () => {
    const admin = await signInToConsole(stack.baseUrl, 'audited', 'admin');
    const token = await tokenOf('audited');
    const before = (await linksOf()).length;
    const entries = (await audit('audited')).length;

    refuseWrites('CONSOLE_AUDIT#');
    const created = await admin.post('/console/links', { amount: '9.00', currency: 'EUR' });
    const signedIn = await postSignIn(token);
    documentClient().middlewareStack.remove(REFUSING);

    expect([created.status, signedIn.status]).toEqual([500, 500]);
    expect(signedIn.headers['set-cookie']).toBeUndefined();
    expect((await linksOf()).length).toBe(before);
    expect((await audit('audited')).length).toBe(entries);
    // The link was not used up: nothing happened.
    expect((await postSignIn(token)).status).toBe(303);
  });

  it('records a sign-in whose session could not be saved as failed', async () => {
    const token = await tokenOf('unsaved');

    refuseWrites('CONSOLE_SESSION#');
    const signedIn = await postSignIn(token);

    expect(signedIn.status).toBe(500);
    expect(summary(await audit('unsaved'))).toEqual([
      {
        user: 'admin@unsaved',
        action: 'session.sign-in',
        target: null,
        outcome: 'failed',
        reason: 'internal_error',
      },
    ]);
  });

  it('leaves a change attempted when its outcome cannot be written, the change made', async () => {
    const admin = await signInToConsole(stack.baseUrl, 'audited', 'admin');
    const before = (await linksOf()).length;

    refuseWrites('CONSOLE_AUDIT#', (input) => input.ConditionExpression === 'outcome = :attempted');
    const created = await admin.post('/console/links', { amount: '10.00', currency: 'EUR' });

    expect(created.status).toBe(303);
    expect((await linksOf()).length).toBe(before + 1);
    expect(summary((await audit('audited')).slice(0, 1))).toEqual([
      { user: 'admin@audited', action: 'link.create', target: null, outcome: 'attempted', reason: null },
    ]);
  });
});
