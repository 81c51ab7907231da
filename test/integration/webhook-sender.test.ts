import type { LookupFunction } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { HttpWebhookSender } from '../../functions/adapters/http/webhook-sender.ts';
import { type Receiver, startReceiver } from '../support/webhooks.ts';

let target: Receiver;

beforeAll(async () => {
  target = await startReceiver();
});
afterAll(() => target.close());

/** A resolver that answers every name with `addresses` (the first alone if one is asked), as a hostile DNS would. */
function resolvingTo(...addresses: string[]): LookupFunction {
  const answers = addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options.all) callback(null, answers);
    else callback(null, answers[0]?.address, answers[0]?.family);
  }) as unknown as LookupFunction;
}

/** What the sender (and the filtering agent under it) writes with console.warn while `run` runs. */
async function warningsDuring(run: () => Promise<unknown>): Promise<unknown[][]> {
  const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
  try {
    await run();
    return warn.mock.calls;
  } finally {
    warn.mockRestore();
  }
}

const request = (url: string, mode: 'test' | 'live' = 'test') => ({
  mode,
  url,
  headers: { 'content-type': 'application/json' },
  body: '{}',
});

describe('SSRF protection when private targets are not allowed', () => {
  const blocked: [string, string, LookupFunction | undefined][] = [
    ['loopback IPv4', 'http://127.0.0.1:PORT/hooks', undefined],
    ['loopback IPv6', 'http://[::1]:PORT/hooks', undefined],
    ['IPv4-mapped IPv6 loopback', 'http://[::ffff:127.0.0.1]:PORT/hooks', undefined],
    ['a decimal IPv4 literal', 'http://2130706433:PORT/hooks', undefined],
    ['localhost', 'http://localhost:PORT/hooks', undefined],
    ['a DNS name resolving to 127.0.0.1', 'http://hooks.attacker.example:PORT/', resolvingTo('127.0.0.1')],
    [
      'a DNS name resolving to ::ffff:127.0.0.1',
      'http://mapped.attacker.example:PORT/',
      resolvingTo('::ffff:127.0.0.1'),
    ],
    ['private 10/8', 'http://10.0.0.1:PORT/', undefined],
    ['private 172.16/12', 'http://172.16.5.4:PORT/', undefined],
    ['private 192.168/16', 'http://192.168.1.1:PORT/', undefined],
    ['a DNS name resolving to 10.1.2.3', 'http://internal.attacker.example:PORT/', resolvingTo('10.1.2.3')],
    ['link-local', 'http://169.254.10.10:PORT/', undefined],
    ['the AWS metadata address', 'http://169.254.169.254/latest/meta-data/', undefined],
    ['the AWS IPv6 metadata address', 'http://[fd00:ec2::254]/latest/meta-data/', undefined],
    [
      'a DNS name resolving to the metadata address',
      'http://meta.attacker.example/',
      resolvingTo('169.254.169.254'),
    ],
    ['unspecified 0.0.0.0', 'http://0.0.0.0:PORT/', undefined],
    ['IPv6 unique-local', 'http://[fc00::1]:PORT/', undefined],
    ['IPv4-compatible IPv6 loopback', 'http://[::7f00:1]:PORT/', undefined],
    ['a DNS name resolving to ::7f00:1', 'http://compat.attacker.example:PORT/', resolvingTo('::7f00:1')],
    [
      'a DNS name resolving to ::a01:203 (10.1.2.3 in the IPv4-compatible form)',
      'http://compat.attacker.example:PORT/',
      resolvingTo('::a01:203'),
    ],
    [
      'a DNS name resolving to the IPv4-mapped form of a private address',
      'http://mapped.attacker.example:PORT/',
      resolvingTo('::ffff:10.1.2.3'),
    ],
    [
      'a DNS name resolving to a public IPv4 address and an IPv4-compatible loopback one',
      'http://mixed.attacker.example:PORT/',
      resolvingTo('93.184.215.14', '::7f00:1'),
    ],
  ];

  it.each(blocked)('refuses %s without opening a connection', async (_case, template, lookup) => {
    const sender = new HttpWebhookSender({ allowPrivateTargets: false, timeoutMs: 2000, lookup });
    const before = target.connections;
    let result: unknown;
    const warnings = await warningsDuring(async () => {
      result = await sender.send(request(template.replace('PORT', String(target.port))));
    });
    expect(result).toMatchObject({ status_code: null, error: 'The destination address is not allowed.' });
    expect(target.connections).toBe(before);
    expect(target.received).toHaveLength(0);
    expect(warnings).toEqual([]);
  });

  it('checks a public IPv4 answer against the deny rules without logging a warning', async () => {
    // The public answer is checked first and passes; the private one after it refuses the name, so the test
    // opens no connection outside this machine. Before the deny rules were kept per family, checking the
    // public IPv4 answer against the IPv6 range logged "Invalid CIDR" with a stack trace, on every connection.
    const sender = new HttpWebhookSender({
      allowPrivateTargets: false,
      timeoutMs: 2000,
      lookup: resolvingTo('93.184.215.14', '10.1.2.3'),
    });
    let result: unknown;
    const warnings = await warningsDuring(async () => {
      result = await sender.send(request('http://hooks.shop.example/hooks'));
    });
    expect(result).toMatchObject({ status_code: null, error: 'The destination address is not allowed.' });
    expect(warnings).toEqual([]);
  });

  it('connects to the same server when the deployment allows private targets (the local stack)', async () => {
    const sender = new HttpWebhookSender({
      allowPrivateTargets: true,
      lookup: resolvingTo('127.0.0.1'),
    });
    const result = await sender.send(request(`http://hooks.example:${target.port}/hooks`));
    expect(result).toMatchObject({ status_code: 200, error: null });
    expect(target.received).toHaveLength(1);
  });

  it.each([
    ['a loopback literal', 'http://127.0.0.1:PORT/hooks', undefined],
    ['a DNS name resolving to loopback', 'http://hooks.example:PORT/hooks', resolvingTo('127.0.0.1')],
  ])(
    'refuses %s for a live event even where the deployment allows private targets',
    async (_case, template, lookup) => {
      const sender = new HttpWebhookSender({ allowPrivateTargets: true, lookup });
      const before = target.connections;
      const url = template.replace('PORT', String(target.port));
      expect(await sender.send(request(url, 'live'))).toMatchObject({
        status_code: null,
        error: 'The destination address is not allowed.',
      });
      expect(target.connections).toBe(before);
      expect(await sender.send(request(url, 'test'))).toMatchObject({ status_code: 200, error: null });
    },
  );

  it('reports a name that does not resolve as a failed attempt', async () => {
    const sender = new HttpWebhookSender({ allowPrivateTargets: false, timeoutMs: 2000 });
    const result = await sender.send(request('http://does-not-exist.invalid/'));
    expect(result.status_code).toBeNull();
    expect(result.error).toBe('The host name could not be resolved.');
  });
});

describe('connection reuse', () => {
  // The product's attempt timeout: an endpoint that answers must not count as hanging on a busy machine.
  const sender = () => new HttpWebhookSender({ allowPrivateTargets: true });

  it('sends consecutive webhooks to one endpoint over one kept-alive connection', async () => {
    const endpoint = await startReceiver();
    const keptAlive = sender();
    for (let i = 0; i < 3; i++) {
      expect(await keptAlive.send(request(endpoint.url))).toMatchObject({ status_code: 200, error: null });
    }
    expect(endpoint.connections).toBe(1);
    await endpoint.close();
  });

  it('keeps every connection of a burst of more than one batch for the next burst (the local stack shares one pool)', async () => {
    const endpoint = await startReceiver();
    const keptAlive = sender();
    const burst = () => Promise.all(Array.from({ length: 25 }, () => keptAlive.send(request(endpoint.url))));
    await burst();
    expect(endpoint.connections).toBe(25);
    const again = await burst();
    expect(again.every((result) => result.status_code === 200)).toBe(true);
    expect(endpoint.connections).toBe(25);
    await endpoint.close();
  });

  it('makes the attempt over a new connection when the server reset the kept-alive one', async () => {
    const endpoint = await startReceiver();
    const keptAlive = sender();
    expect(await keptAlive.send(request(endpoint.url))).toMatchObject({ status_code: 200 });
    endpoint.reply('reset');
    expect(await keptAlive.send(request(endpoint.url))).toMatchObject({ status_code: 200, error: null });
    expect(endpoint.connections).toBe(2);
    // This server had read the request before resetting: the merchant saw it twice (at-least-once).
    expect(endpoint.received).toHaveLength(3);
    await endpoint.close();
  });

  it('sends an attempt a second time at most, over a new connection, however many idle ones are pooled', async () => {
    const endpoint = await startReceiver();
    const keptAlive = sender();
    const burst = await Promise.all(Array.from({ length: 5 }, () => keptAlive.send(request(endpoint.url))));
    expect(burst.map((result) => result.status_code)).toEqual([200, 200, 200, 200, 200]);
    expect(endpoint.connections).toBe(5);
    endpoint.reply('reset', 'reset', 'reset', 'reset', 'reset', 'reset');

    expect(await keptAlive.send(request(endpoint.url))).toMatchObject({
      status_code: null,
      error: 'Connection reset.',
    });
    expect(endpoint.received).toHaveLength(5 + 2);
    expect(endpoint.connections).toBe(6);
    await endpoint.close();
  });

  it('counts a reset of a fresh connection as a failed attempt, without trying again', async () => {
    const endpoint = await startReceiver();
    endpoint.reply('reset');
    expect(await sender().send(request(endpoint.url))).toMatchObject({
      status_code: null,
      error: 'Connection reset.',
    });
    expect(endpoint.received).toHaveLength(1);
    expect(endpoint.connections).toBe(1);
    await endpoint.close();
  });
});
