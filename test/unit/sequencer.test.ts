import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LONGEST_FILES, spreadEvenly, WAITS_TAG } from '../support/sequencer.ts';

const root = join(import.meta.dirname, '..', '..');

describe('the test sequencer (test/support/sequencer.ts)', () => {
  it('spreads the waiting files at even intervals of the other files’ summed time', () => {
    const others = ['a', 'b', 'c', 'd', 'e', 'f'];
    const seconds: Record<string, number> = { a: 30, b: 10, c: 10, d: 5, e: 3, f: 2 };
    // 60 s in all: the first wait after 20 s of the others (a), the second after 40 s (a, b).
    expect(spreadEvenly(['W1', 'W2'], others, (item) => seconds[item] ?? 0)).toEqual([
      'a',
      'W1',
      'b',
      'W2',
      'c',
      'd',
      'e',
      'f',
    ]);
    expect(spreadEvenly([], others, () => 1)).toEqual(others);
    expect(spreadEvenly(['W'], [], () => 1)).toEqual(['W']);
  });

  it('knows a waiting file by the tag vitest reads, and not by the word alone', () => {
    const tagged = readFileSync(join(root, 'test/integration/psp-conformance-outages.test.ts'), 'utf8');
    expect(WAITS_TAG.test(tagged)).toBe(true);
    // Spelled in two parts: vitest reads this file's own tags too, and refuses one it was not told of.
    const tagLine = (tag: string) => `// @module-${'tag'} ${tag}\n`;
    expect(WAITS_TAG.test(tagLine('waits'))).toBe(true);
    expect(WAITS_TAG.test(tagLine('waitsless'))).toBe(false);
    expect(WAITS_TAG.test('const waits = 1;\n')).toBe(false);
  });

  it('names files that exist in LONGEST_FILES', () => {
    expect(LONGEST_FILES.filter((file) => !existsSync(join(root, file)))).toEqual([]);
  });
});
