import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { capabilityTable, withCapabilityTable } from '../../lib/docs/psp-capabilities.ts';

const page = join(import.meta.dirname, '..', '..', 'docs', 'orchestration.md');

describe('the capability table of docs/orchestration.md', () => {
  it('is the one the descriptors give (npm run openapi writes it)', () => {
    const markdown = readFileSync(page, 'utf8');
    expect(markdown).toBe(withCapabilityTable(markdown));
  });

  it('lists every registered PSP, each capability a column', () => {
    const rows = capabilityTable().split('\n');
    expect(rows[0]).toMatch(/^\| PSP \| id \| ends sessions \| captures later \|/);
    expect(rows.some((row) => row.includes('`sandbox`'))).toBe(true);
  });
});
