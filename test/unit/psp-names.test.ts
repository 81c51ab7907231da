import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PSP_DESCRIPTORS } from '../../functions/adapters/psp/registry.ts';
import { PAYMENT_METHODS } from '../../functions/domain/payment-methods.ts';
import type { PspDescriptor } from '../../functions/ports/psp-descriptor.ts';

/**
 * A PSP is a folder (docs/orchestration.md#adding-a-psp): no file outside `functions/adapters/psp/<folder>/` names
 * a PSP, in any spelling (its id, its folder, its flags' prefix, its name as merchants know it), except the
 * registry (registry.ts, factories.ts), generated files and docs. The rule holds for everything under functions/, lib/, bin/, test/support/,
 * test/unit/ and test/infra/, for biome.json, vitest.config.ts and package.json's scripts. Integration and
 * browser tests may name the PSPs they exercise together (a test about one PSP lives in its folder); the sandbox
 * is part of the service, and the rule does not apply to its name.
 */
const root = join(import.meta.dirname, '..', '..');

const SCOPE = ['functions', 'lib', 'bin', 'test/support', 'test/unit', 'test/infra'];
const FILES = ['biome.json', 'vitest.config.ts'];
/**
 * Generated: from the registry or the API's schemas, the template of a docs page, and the PSPs' own documents that
 * test/contracts/trim.ts trims (a PSP's document may use another's name as a word: a card read by magnetic stripe).
 */
const GENERATED = /^functions\/adapters\/psp\/[^/]+\/test\/contract\/[^/]+\.trimmed\.json$/;
const EXEMPT = [
  'functions/adapters/psp/registry.ts',
  'functions/adapters/psp/factories.ts',
  'functions/http/api/openapi-document.ts',
  'lib/merchant-sdk/api-types.ts',
  'lib/openapi/api-reference.template.md',
  // This file names the PSPs that wait for their move.
  'test/unit/psp-names.test.ts',
];

const folderOf = (descriptor: PspDescriptor) =>
  `functions/adapters/psp/${descriptor.id.replaceAll('_', '-')}/`;

/** Every spelling of a PSP's name: `acme_pay`, `acme-pay`, `acmepay` (as in `AcmePay`), its display name. */
function spellingsOf(descriptor: PspDescriptor): RegExp {
  const words = [
    descriptor.id,
    descriptor.id.replaceAll('_', '-'),
    descriptor.id.replaceAll('_', ''),
    descriptor.displayName,
  ];
  const escaped = [...new Set(words)].map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(escaped.join('|'), 'i');
}

function filesUnder(dir: string): string[] {
  if (!existsSync(join(root, dir))) return [];
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.name === 'node_modules' || entry.name === 'dist') return [];
    return entry.isDirectory() ? filesUnder(path) : [path];
  });
}

/** The text each file of the scope holds, package.json's scripts as their JSON. */
const texts: [file: string, text: string][] = [
  ...[...SCOPE.flatMap(filesUnder), ...FILES]
    .filter((file) => !EXEMPT.includes(file) && !GENERATED.test(file) && !/\.(png|svg|crt|key)$/.test(file))
    .map((file): [string, string] => [file, readFileSync(join(root, file), 'utf8')]),
  [
    'package.json scripts',
    JSON.stringify(
      (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: object }).scripts,
    ),
  ],
];

/**
 * A PSP whose id is also one of our payment methods' words (functions/domain/payment-methods.ts: the PayPal wallet)
 * is not named by the word used as the method: in that list, and as a key of a descriptor's `methods` (our word →
 * the PSP's, `paypal: '…'`). Anywhere else the word names the PSP.
 */
function asMethod(descriptor: PspDescriptor, file: string, line: string): string {
  if (!(PAYMENT_METHODS as readonly string[]).includes(descriptor.id)) return line;
  if (file === 'functions/domain/payment-methods.ts' && line.trim() === `'${descriptor.id}',`) return '';
  return line.replaceAll(new RegExp(`\\b${descriptor.id}: '[^']*'`, 'g'), '');
}

/** The places `descriptor`'s PSP is named outside its folder, as `file:line`. */
function namedOutside(descriptor: PspDescriptor): string[] {
  const pattern = spellingsOf(descriptor);
  const own = folderOf(descriptor);
  return texts
    .filter(([file]) => !file.startsWith(own))
    .flatMap(([file, text]) =>
      text
        .split('\n')
        .flatMap((line, index) =>
          pattern.test(asMethod(descriptor, file, line)) ? [`${file}:${index + 1}: ${line.trim()}`] : [],
        ),
    );
}

const named = PSP_DESCRIPTORS.filter((descriptor) => descriptor.id !== 'sandbox');

describe('a PSP is named only in its own folder, the registry, generated files and docs', () => {
  it.each(named.map((descriptor) => [descriptor.id, descriptor] as const))('%s', (_, descriptor) => {
    expect(existsSync(join(root, folderOf(descriptor), 'descriptor.ts'))).toBe(true);
    expect(namedOutside(descriptor)).toEqual([]);
  });

  it('finds a PSP named outside its folder, in each spelling', () => {
    const acme = { id: 'acme_pay', displayName: 'Acme.Pay' } as PspDescriptor;
    const pattern = spellingsOf(acme);
    for (const line of ['ACME_PAY_API_URL', '--acme-pay-secret-key', 'AcmePayPsp', 'as Acme.Pay does']) {
      expect(pattern.test(line), line).toBe(true);
    }
    expect(pattern.test('acme pays')).toBe(false);
  });

  it('tells a PSP from the payment method of the same word only where the word is the method', () => {
    const wallet = { id: PAYMENT_METHODS[1], displayName: 'Wallet Co' } as PspDescriptor;
    const word = wallet.id;
    const methods = 'functions/domain/payment-methods.ts';
    expect(asMethod(wallet, methods, `  '${word}',`)).toBe('');
    expect(
      asMethod(wallet, 'functions/adapters/psp/acme/descriptor.ts', `    ${word}: 'wallet',`).trim(),
    ).toBe(',');
    for (const line of [`provider === '${word}'`, `  '${word}',`, `${word}: connection`]) {
      expect(spellingsOf(wallet).test(asMethod(wallet, 'functions/x.ts', line)), line).toBe(true);
    }
  });
});
