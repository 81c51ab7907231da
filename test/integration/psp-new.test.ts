import { execFile } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, posix } from 'node:path';
import { promisify, stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { timeoutForSteps } from '../support/eventually.ts';

/**
 * `npm run psp:new` (bin/psp-new.ts, docs/orchestration.md#adding-a-psp) on a copy of the repository: the new
 * PSP's folder compiles and passes Biome, nothing but the registry and generated files names it (the name rule,
 * run there), and the conformance suite fails for it until its TODOs are done.
 */
const root = join(import.meta.dirname, '..', '..');
const run = promisify(execFile);
let copy: string;
let files: string[];

/** A tool of the project (`node_modules/.bin`) run in the copy; rejects with its output when it fails. */
const tool = (name: string, args: string[]) =>
  run(join(copy, 'node_modules', '.bin', name), args, { cwd: copy, maxBuffer: 64 * 1024 * 1024 });
const pspNew = (args: string[]) =>
  run(process.execPath, [join(copy, 'bin', 'psp-new.ts'), ...args], { cwd: copy });

beforeAll(async () => {
  copy = mkdtempSync(join(tmpdir(), 'psp-new-'));
  const listed = await run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: root,
    maxBuffer: 16 * 1024 * 1024,
  });
  files = listed.stdout.split('\0').filter((file) => file && existsSync(join(root, file)));
  for (const file of files) {
    mkdirSync(dirname(join(copy, file)), { recursive: true });
    cpSync(join(root, file), join(copy, file));
  }
  symlinkSync(realpathSync(join(root, 'node_modules')), join(copy, 'node_modules'));
});
afterAll(() => rmSync(copy, { recursive: true, force: true }));

/** The copy's files that differ from the repository's, or that it has and the repository does not. */
function changedInCopy(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(join(copy, dir), { withFileTypes: true }).flatMap((entry) => {
      const path = dir ? `${dir}/${entry.name}` : entry.name;
      if (entry.name === 'node_modules') return [];
      return entry.isDirectory() ? walk(path) : [path];
    });
  return walk('').filter(
    (file) => !files.includes(file) || !readFileSync(join(copy, file)).equals(readFileSync(join(root, file))),
  );
}

/** The relative imports of a TypeScript source (`from './x.ts'`, `import('./x.ts')`), as paths of the repository. */
function relativeImports(file: string, text: string): string[] {
  return [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.\.?\/[^']+\.ts)'/g)].map((match) =>
    posix.join(posix.dirname(file), match[1] as string),
  );
}

/**
 * What the typecheck of the copy reads: the TypeScript files `psp:new` wrote or changed, every file of the project
 * that imports one of them (where a new registry entry could break a use: an exhaustive map of PSP ids, a switch),
 * and the ambient declarations (`*.d.ts`) a whole-project check reads; tsc checks what each imports too. The rest
 * of the project compiled before (`npm test` checks it) and imports none of what changed: checking it again cost
 * 7.9 CPU-s against 3.3 (docs/testing.md#cpu-per-file).
 */
function typecheckedAfterChange(changed: string[]): string[] {
  const written = new Set(changed.filter((file) => file.endsWith('.ts')));
  const importers = files.filter(
    (file) =>
      file.endsWith('.ts') &&
      existsSync(join(copy, file)) &&
      relativeImports(file, readFileSync(join(copy, file), 'utf8')).some((target) => written.has(target)),
  );
  const declarations = files.filter((file) => file.endsWith('.d.ts'));
  return [...new Set([...written, ...importers, ...declarations])].sort();
}

describe('npm run psp:new', () => {
  it('refuses an id that is none, and a registered PSP’s id or former id', async () => {
    for (const id of ['Quokka-Pay', '9pay', 'stripe', 'checkout']) {
      await expect(pspNew([id]), id).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining(id) });
    }
    expect(changedInCopy()).toEqual([]);
  });

  it('writes a folder that compiles, named nowhere else, that fails the conformance suite until filled', {
    timeout: timeoutForSteps(6),
  }, async () => {
    await pspNew(['quokka_pay', '--name', 'Quokka Pay']);
    const folder = 'functions/adapters/psp/quokka-pay/';
    const outside = changedInCopy().filter((file) => !file.startsWith(folder));
    expect(outside.sort()).toEqual(
      [
        'docs/api.md',
        'docs/openapi.json',
        'docs/orchestration.md',
        'functions/adapters/psp/factories.ts',
        'functions/adapters/psp/registry.ts',
        'functions/http/api/openapi-document.ts',
        'lib/merchant-sdk/api-types.ts',
      ].sort(),
    );
    expect(changedInCopy().filter((file) => file.startsWith(folder))).toEqual(
      expect.arrayContaining([
        `${folder}descriptor.ts`,
        `${folder}adapter.ts`,
        `${folder}test/conformance.ts`,
      ]),
    );
    const checked = typecheckedAfterChange(changedInCopy());
    expect(checked).toEqual(
      expect.arrayContaining([`${folder}adapter.ts`, 'functions/adapters/psp/registry.ts', 'bin/psp.ts']),
    );
    writeFileSync(
      join(copy, 'tsconfig.psp-new.json'),
      JSON.stringify({ extends: './tsconfig.json', include: [], files: checked }),
    );
    await tool('tsc', ['-p', 'tsconfig.psp-new.json']);
    await tool('biome', [
      'check',
      folder,
      'functions/adapters/psp/registry.ts',
      'functions/adapters/psp/factories.ts',
    ]);
    await tool('vitest', [
      'run',
      'test/unit/psp-names.test.ts',
      'test/unit/psp-capability-table.test.ts',
      'test/unit/psp-kit.test.ts',
    ]);
    const failed = await tool('vitest', [
      'run',
      'test/integration/psp-conformance-sessions.test.ts',
      '-t',
      '^quokka_pay',
    ]).then(
      () => undefined,
      (error: { stdout: string; stderr: string }) =>
        stripVTControlCharacters(`${error.stdout}${error.stderr}`),
    );
    expect(failed, 'the conformance suite passed for a PSP with TODOs').toBeDefined();
    expect(failed).toMatch(/× quokka_pay: opens a session for a fixed amount/);
    expect(failed).toMatch(/TODO \(quokka_pay\): open a session/);
  });
});
