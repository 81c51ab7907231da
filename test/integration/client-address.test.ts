import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleStore } from '../../functions/dependencies.ts';
import { MAX_REUSABLE_CLIENT_SESSIONS_PER_WINDOW } from '../../functions/domain/session-budgets.ts';
import { EDGE_SECRET_HEADER } from '../../functions/http/client-address.ts';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { createLink } from '../support/checkout-helpers.ts';
import { consoleSignInLink } from '../support/console.ts';
import { httpRequest, NAVIGATION_HEADERS } from '../support/navigate.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';

/**
 * Behind the CloudFront front every request reaches API Gateway from CloudFront's addresses: the client is the
 * viewer CloudFront names (docs/security.md#the-client-behind-cloudfront), believed only on a request that carries
 * the front's secret. The front is played by requests from one address (127.0.0.30) with the secret and each
 * viewer's `CloudFront-Viewer-Address`; a client calling API Gateway directly from its own address sends what it
 * likes.
 */
const SECRET = 'f'.repeat(64);
const FRONT = '127.0.0.30';
let stack: TestStack;
let key: IssuedApiKey;

beforeAll(async () => {
  stack = await startTestStack({ environment: { EDGE_ORIGIN_SECRET: SECRET } });
  key = await stack.issueKey('behind-front', 'test');
});
afterAll(() => stack?.stop());

const throughFront = (viewer: string) => ({
  [EDGE_SECRET_HEADER]: SECRET,
  'cloudfront-viewer-address': viewer,
});

/** Visits without cookies: each visit of a reusable link opens a session, counted against its client. */
async function visits(url: string, count: number, from: string, headers: () => Record<string, string>) {
  const statuses: number[] = [];
  for (let visit = 0; visit < count; visit++) {
    const page = await httpRequest(url, {
      localAddress: from,
      headers: { ...NAVIGATION_HEADERS, ...headers() },
    });
    statuses.push(page.status);
  }
  return statuses;
}

describe('a client behind the CloudFront front', () => {
  it('has a session budget of its own, apart from the other viewers CloudFront passes on', async () => {
    const link = await createLink(stack, key.api_key, { reusable: true });
    const budget = MAX_REUSABLE_CLIENT_SESSIONS_PER_WINDOW;

    const first = await visits(link.checkout_url, budget + 1, FRONT, () =>
      throughFront('198.51.100.7:50001'),
    );
    const second = await visits(link.checkout_url, 1, FRONT, () => throughFront('[2001:db8::7]:50002'));

    expect(first).toEqual([...Array(budget).fill(200), 429]);
    expect(second).toEqual([200]);
  });

  it('cannot take another budget by naming another viewer without the front’s secret', async () => {
    const link = await createLink(stack, key.api_key, { reusable: true });
    const budget = MAX_REUSABLE_CLIENT_SESSIONS_PER_WINDOW;
    let port = 40000;
    const spoofed = () => ({ 'cloudfront-viewer-address': `203.0.113.${port++ % 250}:${port}` });
    const guessed = () => ({ ...spoofed(), [EDGE_SECRET_HEADER]: 'g'.repeat(64) });

    const direct = await visits(link.checkout_url, budget + 1, '127.0.0.31', spoofed);
    const wrongSecret = await visits(link.checkout_url, 1, '127.0.0.31', guessed);

    expect(direct).toEqual([...Array(budget).fill(200), 429]);
    expect(wrongSecret).toEqual([429]);
  });

  it('is the address the console’s audit log records, and only through the front', async () => {
    const signIn = async (headers: Record<string, string>, from: string) => {
      const token = new URL(await consoleSignInLink(stack.baseUrl, 'behind-front', 'admin')).searchParams.get(
        'token',
      );
      return httpRequest(`${stack.baseUrl}/console/sign-in`, {
        method: 'POST',
        localAddress: from,
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body: new URLSearchParams({ token: token ?? '' }).toString(),
      });
    };

    const through = await signIn(throughFront('198.51.100.8:443'), FRONT);
    const direct = await signIn({ 'cloudfront-viewer-address': '198.51.100.9:443' }, '127.0.0.32');

    expect([through.status, direct.status]).toEqual([303, 303]);
    const entries = await consoleStore().listAudit('behind-front', 10);
    expect(entries.map((entry) => entry.source_ip)).toEqual(['127.0.0.32', '198.51.100.8']);
  });
});
