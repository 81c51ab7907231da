import { describe, expect, it } from 'vitest';
import { fillTemplate } from '../../lib/openapi/reference.ts';

describe('the API reference template', () => {
  it('fills every {{slot}} with its value', () => {
    expect(fillTemplate('at most {{max}} KiB, {{max}} again; {{name}}.', { max: '32', name: 'x' })).toBe(
      'at most 32 KiB, 32 again; x.',
    );
  });

  it('refuses a slot without a value, so a renamed value cannot leave {{braces}} in docs/api.md', () => {
    expect(() => fillTemplate('at most {{max_kib}} KiB', { max: '32' })).toThrow('no value for {{max_kib}}');
  });

  it('refuses a value no slot uses, so a renamed slot cannot drop a number from docs/api.md', () => {
    expect(() => fillTemplate('{{a}}', { a: '1', b: '2' })).toThrow('lacks {{b}}');
  });
});
