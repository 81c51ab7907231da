// @module-tag waits: each PSP's hang waits out the 5 s PSP call budget (test/support/sequencer.ts)
import { expect } from 'vitest';
import { PSP_CALL_TIMEOUT_MS } from '../../functions/domain/call-budgets.ts';
import { timeoutFor } from '../support/eventually.ts';
import { forEveryPsp, scenario } from '../support/psp-conformance.ts';
import { failureOf, orderLink, sessionRequest } from '../support/psp-fixtures.ts';

/**
 * The conformance suite, outages (docs/orchestration.md#conformance): a PSP that answers a 5xx, or nothing within
 * the PSP call budget, is unavailable (`PspOutageError`): checkout fails over to the next connection and counts it
 * against the connection's health, never as a refusal of the request. The PSPs' blocks run at once: each hang
 * waits out the call budget, and eleven of them one after another kept a worker idle for a minute.
 */
forEveryPsp(
  (descriptor, run) => {
    for (const kind of ['error', 'hang'] as const) {
      const name =
        kind === 'error'
          ? 'takes its 5xx as an outage'
          : 'takes no answer within the call budget as an outage';
      scenario(
        descriptor,
        name,
        undefined,
        async () => {
          const changes = run().fake.outage(kind);
          try {
            const { psp, connection } = await run().adapter(changes);
            expect(
              await failureOf(
                psp.createSession(sessionRequest(orderLink('10.00', run().currency), connection)),
              ),
            ).toBe('unavailable');
          } finally {
            run().fake.outage('none');
          }
        },
        timeoutFor(PSP_CALL_TIMEOUT_MS),
      );
    }
  },
  { concurrent: true },
);
