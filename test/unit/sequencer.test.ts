import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LONGEST_FILES, spreadOut, WAITS_TAG } from '../support/sequencer.ts';

const root = join(import.meta.dirname, '..', '..');

describe('the test sequencer (test/support/sequencer.ts)', () => {
  it("gives each waiting file room: the other workers' share of its time in other files after it", () => {
    const others = ['o1', 'o2', 'o3', 'o4', 'o5', 'o6', 'o7', 'o8', 'o9', 'o10'];
    const seconds: Record<string, number> = { W1: 30, W2: 5 };
    const duration = (item: string) => seconds[item] ?? 10;
    // 100 s of others; W1 needs 60 s after it (two workers beside it), W2 10: 30 s left, 10 s before each and at the
    // end. Spaced by the others' time alone (a third each), W2 would start 30 s after W1, while W1 still waits.
    expect(spreadOut(['W1', 'W2'], others, duration, 2)).toEqual([
      'o1',
      'W1',
      ...['o2', 'o3', 'o4', 'o5', 'o6', 'o7', 'o8'],
      'W2',
      'o9',
      'o10',
    ]);
    // Too few others for the room asked: each wait gets its share of what there is, the first at once.
    expect(spreadOut(['W1', 'W2'], ['o1', 'o2', 'o3'], duration, 2)).toEqual(['W1', 'o1', 'o2', 'o3', 'W2']);
    expect(spreadOut([], others, duration, 2)).toEqual(others);
    expect(spreadOut(['W1'], [], duration, 2)).toEqual(['W1']);
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
