import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { declineOf } from '../../functions/adapters/psp/kit/declines.ts';
import { PSP_DESCRIPTORS } from '../../functions/adapters/psp/registry.ts';
import { classified, FAILURE_CLASS } from '../../functions/domain/payment-failure.ts';

/**
 * One vocabulary of failures across PSPs (docs/orchestration.md#decline-codes): each PSP's own codes mapped through
 * its descriptor's `declines`, each of ours with one class.
 */

describe('decline codes', () => {
  it('gives each code its class, the same whichever PSP reported it', () => {
    expect(classified({ code: 'insufficient_funds', message: 'm' })).toEqual({
      code: 'insufficient_funds',
      class: 'soft',
      message: 'm',
    });
    expect(FAILURE_CLASS.expired_card).toBe('hard');
    expect(FAILURE_CLASS.suspected_fraud).toBe('hard');
    expect(FAILURE_CLASS.amount_mismatch).toBe('hard');
    expect(FAILURE_CLASS.psp_unavailable).toBe('outage');
    expect(FAILURE_CLASS.processing_error).toBe('soft');
  });

  it("maps a PSP's code through its table: unknown is processing_error, none is declined", () => {
    const psp = { displayName: 'Acme', declines: { '51': 'insufficient_funds' as const } };
    expect(declineOf(psp, '51', 'Acme declined.')).toEqual({
      code: 'insufficient_funds',
      message: 'Acme declined. (Acme code 51)',
    });
    expect(declineOf(psp, '99', 'Acme declined.').code).toBe('processing_error');
    // A name every object has is no code of the table.
    expect(declineOf(psp, 'toString', 'Acme declined.').code).toBe('processing_error');
    expect(declineOf(psp, undefined, 'Acme declined.')).toEqual({
      code: 'declined',
      message: 'Acme declined.',
    });
    expect(declineOf({ displayName: 'Plain' }, '51', 'Plain declined.').code).toBe('processing_error');
  });

  it('documents every PSP table, code by code', () => {
    const docs = readFileSync('docs/orchestration.md', 'utf8');
    const section = docs.slice(docs.indexOf('## Decline codes'));
    const tables = PSP_DESCRIPTORS.filter((descriptor) => descriptor.declines);
    expect(tables.length).toBeGreaterThan(0);
    for (const descriptor of tables) {
      for (const [theirs, ours] of Object.entries(descriptor.declines ?? {})) {
        expect(section, `${descriptor.id} ${theirs}`).toContain(`\`${theirs}\` → \`${ours}\``);
      }
    }
  });
});
