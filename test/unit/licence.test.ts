import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');
const packageOf = (path: string) => JSON.parse(read(path)) as { license?: string; version?: string };

/** SHA-256 of https://www.apache.org/licenses/LICENSE-2.0.txt (11,358 bytes), the text every copy must be. */
const APACHE_2_0_SHA256 = 'cfc7749b96f63bd31c3c42b5c471bf756814053e847c10f3eb003417bc523d30';

/** semver.org's own pattern for a version (2.0.0), without build metadata. */
const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?$/;

describe('the licence (Apache-2.0)', () => {
  it('is the unmodified Apache License 2.0 at the root and in the merchant SDK, which packs its copy', () => {
    for (const file of ['LICENSE', 'lib/merchant-sdk/LICENSE']) {
      expect(createHash('sha256').update(read(file)).digest('hex'), file).toBe(APACHE_2_0_SHA256);
    }
    expect(packageOf('lib/merchant-sdk/package.json')).toMatchObject({
      files: expect.arrayContaining(['LICENSE']),
    });
  });

  it('is declared by the project and the merchant SDK, and named in both READMEs', () => {
    expect(packageOf('package.json').license).toBe('Apache-2.0');
    expect(packageOf('lib/merchant-sdk/package.json').license).toBe('Apache-2.0');
    expect(read('README.md')).toMatch(/^## Licence\n\nApache-2\.0: \[LICENSE\]\(LICENSE\)/m);
    expect(read('lib/merchant-sdk/README.md')).toMatch(/^## Licence\n\nApache-2\.0/m);
    expect(read('NOTICE')).toMatch(/^Copyright \d{4} /m);
  });

  it('versions the merchant SDK by semver, from 0.1.0', () => {
    const version = packageOf('lib/merchant-sdk/package.json').version ?? '';
    const [, major, minor] = SEMVER.exec(version) ?? [];
    expect(version, 'a semver version').toMatch(SEMVER);
    expect(Number(major) > 0 || Number(minor) >= 1, `${version} is 0.1.0 or later`).toBe(true);
  });
});
