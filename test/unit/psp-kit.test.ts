import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PSP_FACTORIES } from '../../functions/adapters/psp/factories.ts';
import { checkCredentials, credentialFields } from '../../functions/adapters/psp/kit/credentials.ts';
import { PSP_DESCRIPTORS, PSP_IDENTITIES } from '../../functions/adapters/psp/registry.ts';
import type { PspConnection } from '../../functions/domain/connection.ts';
import { INITIAL_HEALTH } from '../../functions/domain/connection-health.ts';
import { PspNotConfiguredError } from '../../functions/domain/errors.ts';
import type { Psp } from '../../functions/ports/psp.ts';
import type { ConnectionState } from '../../functions/ports/psp-connections.ts';
import { CAPABILITIES, type PspDescriptor } from '../../functions/ports/psp-descriptor.ts';
import { PspConnections } from '../../functions/use-cases/psp-connections.ts';
import * as z from '../../functions/zod.ts';
import { BASELINE_SDKS, PSP_SDKS } from '../bench/baseline-sdks.ts';
import { testPspRuntime } from '../support/psp-fakes.ts';
import { storedConnection } from '../support/psp-fixtures.ts';

const root = join(import.meta.dirname, '..', '..');

/** A PSP made up for the kit's own tests, with credentials of two fields, one optional. */
const credentials = z.object({
  api_key: z
    .string()
    .check(z.regex(/^(test|live)_\w+$/, 'Must be test_… or live_….'), z.describe('its API key')),
  region: z.optional(z.string().check(z.describe('its region'))),
});
const acme: PspDescriptor<typeof credentials> = {
  id: 'acme_pay',
  displayName: 'Acme Pay',
  aliases: ['acme'],
  testModeOnly: false,
  credentials: () => credentials,
  credentialsProblem: ({ api_key }, mode) =>
    api_key.startsWith(`${mode}_`) ? undefined : `A ${mode}-mode Acme Pay connection needs a ${mode}_ key.`,
  amounts: { psp: 'Acme Pay', wholeHundredths: ['KWD'] },
  pageAsks: { email: 'always' },
  methods: { card: 'card' },
  capabilities: ['refunds'],
  sessionLimits: { minMs: 60_000, maxMs: 3_600_000, preferredMs: 3_600_000 },
  notificationAddress: 'configured',
};
const testOnly: PspDescriptor = {
  ...acme,
  id: 'test_only',
  testModeOnly: true,
  credentials: null,
  aliases: [],
};

describe('credentials as a descriptor states them', () => {
  it('give each field a flag of the PSP, `_` as `-`, with its description and whether it is optional', () => {
    expect(credentialFields(acme)).toEqual([
      { field: 'api_key', flag: 'acme-pay-api-key', description: 'its API key', optional: false },
      { field: 'region', flag: 'acme-pay-region', description: 'its region', optional: true },
    ]);
    expect(credentialFields(testOnly)).toEqual([]);
  });

  it('are checked for shape, naming each field wrong and what it should be, then against the mode', () => {
    expect(checkCredentials(acme, { api_key: 'test_1', extra: 'x' }, 'test')).toEqual({
      ok: true,
      credentials: { api_key: 'test_1' },
    });
    expect(checkCredentials(acme, {}, 'test')).toEqual({
      ok: false,
      problem: 'A Acme Pay connection needs api_key: its API key (Required.)',
    });
    expect(checkCredentials(acme, { api_key: 'x', region: 4 }, 'test')).toMatchObject({
      problem: expect.stringMatching(
        /api_key: its API key \(Must be test_… or live_…\.\); region: its region/,
      ),
    });
    expect(checkCredentials(acme, { api_key: 'live_1' }, 'test')).toEqual({
      ok: false,
      problem: 'A test-mode Acme Pay connection needs a test_ key.',
    });
    expect(checkCredentials(acme, '{"api_key":"test_1"}', 'test')).toMatchObject({ ok: false });
  });

  it('refuse a test-mode-only PSP in live mode, and any credentials given to a PSP that has none', () => {
    expect(checkCredentials(testOnly, undefined, 'test')).toEqual({ ok: true, credentials: {} });
    expect(checkCredentials(testOnly, undefined, 'live')).toEqual({
      ok: false,
      problem: 'Acme Pay serves test mode only.',
    });
    expect(checkCredentials(testOnly, { api_key: 'test_1' }, 'test')).toMatchObject({ ok: false });
  });
});

describe('the registry', () => {
  it('has ids of lower case, unique with their aliases, each with its adapter module', () => {
    const names = PSP_DESCRIPTORS.flatMap((descriptor) => [descriptor.id, ...(descriptor.aliases ?? [])]);
    expect(new Set(names).size).toBe(names.length);
    for (const descriptor of PSP_DESCRIPTORS) {
      expect(descriptor.id).toMatch(/^[a-z][a-z0-9_]*$/);
      expect(Object.keys(PSP_FACTORIES)).toContain(descriptor.id);
      expect(descriptor.capabilities.every((capability) => CAPABILITIES.includes(capability))).toBe(true);
      // Partial refunds are refunds.
      if (descriptor.capabilities.includes('partial_refunds'))
        expect(descriptor.capabilities).toContain('refunds');
    }
  });

  it('gives the bundle baselines each PSP’s SDK from its folder, a package the service depends on', () => {
    const { dependencies } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    const withSdk = PSP_DESCRIPTORS.filter((descriptor) =>
      existsSync(
        join(root, 'functions/adapters/psp', descriptor.id.replaceAll('_', '-'), 'test/sdk-baseline.ts'),
      ),
    );
    expect(withSdk.length).toBeGreaterThan(0);
    expect(PSP_SDKS).toHaveLength(withSdk.length);
    for (const name of PSP_SDKS) expect(Object.keys(dependencies)).toContain(BASELINE_SDKS[name]?.package);
  });

  it('lists each PSP’s identity beside its descriptor, in the same order', () => {
    const identityOf = ({ id, aliases }: PspDescriptor) => (aliases ? { id, aliases } : { id });
    expect(PSP_IDENTITIES).toEqual(PSP_DESCRIPTORS.map(identityOf));
  });
});

/** PspConnections over one stored connection of `acme`, whose factory is counted when built. */
function connectionsWith(stored: PspConnection) {
  const loads: string[] = [];
  const adapter = { provider: 'acme_pay' } as Psp;
  const factory = { create: async () => adapter };
  const state: ConnectionState = { connection: stored, health: INITIAL_HEALTH };
  const psps = new PspConnections({
    repository: {
      get: async (id: string) => (id === stored.id ? state : undefined),
      directory: async () => ({ connections: [state], routing: null }),
    } as unknown as ConstructorParameters<typeof PspConnections>[0]['repository'],
    legacyConfigs: { get: async () => undefined, put: async () => undefined },
    descriptors: [acme, testOnly],
    factories: {
      acme_pay: () => {
        loads.push('acme_pay');
        return factory;
      },
      test_only: () => factory,
    },
    runtime: () => testPspRuntime({}),
    secretPrefix: 'psp/',
  });
  return { psps, loads, adapter };
}

describe('PspConnections, built from the descriptors', () => {
  it('finds a PSP by its id or a former id (an alias), as a notification address may name it', () => {
    const { psps } = connectionsWith(storedConnection('acme_pay', 'test', 'pc_acmeAlias0000000000000000'));
    expect(psps.descriptor('acme_pay')?.id).toBe('acme_pay');
    expect(psps.descriptor('acme')?.id).toBe('acme_pay');
    expect(psps.descriptor('nope')).toBeUndefined();
  });

  it('builds a PSP’s factory once, on the first use of one of its connections', async () => {
    const stored = storedConnection('acme_pay', 'test', 'pc_acmeLoads0000000000000000');
    const { psps, loads, adapter } = connectionsWith(stored);
    expect(loads).toEqual([]);
    const [first, second] = await Promise.all([psps.adapter(stored), psps.adapter(stored)]);
    expect([first, second]).toEqual([adapter, adapter]);
    expect(loads).toEqual(['acme_pay']);
  });

  it('refuses a connection no PSP is registered for, and a test-mode-only PSP in live mode', async () => {
    const { psps } = connectionsWith(storedConnection('acme_pay', 'test', 'pc_acmeRefused000000000000000'));
    await expect(psps.adapter(storedConnection('nope', 'test', 'pc_x'))).rejects.toThrow(
      PspNotConfiguredError,
    );
    await expect(psps.adapter(storedConnection('test_only', 'live', 'pc_y'))).rejects.toThrow(
      PspNotConfiguredError,
    );
    await expect(psps.adapter(storedConnection('test_only', 'test', 'pc_z'))).resolves.toBeDefined();
  });

  it('tells what a PSP allows of its refunds from its capabilities, and its rules, even unknown', () => {
    const { psps } = connectionsWith(storedConnection('acme_pay', 'test', 'pc_acmeRules0000000000000000'));
    expect(psps.refundRules('acme_pay')).toEqual({ amounts: acme.amounts, refunds: 'whole' });
    expect(psps.refundRules('nope')).toEqual({ amounts: { psp: 'nope' }, refunds: 'none' });
    expect(psps.rules('acme').pageAsks).toEqual({ email: 'always' });
    expect(psps.rules('nope')).toEqual({ amounts: { psp: 'nope' }, pageAsks: {}, methods: {} });
  });

  it('refuses to load any adapter where it was built without them (the merchant API)', async () => {
    const stored = storedConnection('acme_pay', 'test', 'pc_acmeNoAdapters000000000000');
    const psps = new PspConnections({
      repository: {} as ConstructorParameters<typeof PspConnections>[0]['repository'],
      legacyConfigs: { get: async () => undefined, put: async () => undefined },
      descriptors: [acme],
      secretPrefix: 'psp/',
    });
    await expect(psps.adapter(stored)).rejects.toThrow(PspNotConfiguredError);
  });
});
