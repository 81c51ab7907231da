import { describe, expect, it } from 'vitest';
import { PSP_DESCRIPTORS } from '../../functions/adapters/psp/registry.ts';
import { INITIAL_HEALTH } from '../../functions/domain/connection-health.ts';
import { requestRefund } from '../../functions/domain/refund.ts';
import type { Psp, PspRefundRequest } from '../../functions/ports/psp.ts';
import { PspConnections } from '../../functions/use-cases/psp-connections.ts';
import { now, paidLink } from '../support/paid-links.ts';
import { testPspRuntime } from '../support/psp-fakes.ts';
import { anyRefunds, storedConnection } from '../support/psp-fixtures.ts';

/** A refund's reason (docs/webhooks.md#refunds): on the refund, and handed to the PSP's adapter with it. */
function recordingConnections() {
  const asked: PspRefundRequest[] = [];
  const psp = {
    provider: 'sandbox',
    idempotencyWindowMs: 86_400_000,
    refund: async (request: PspRefundRequest) => {
      asked.push(request);
      return {
        reference: 're_psp',
        refundId: request.refundId,
        linkId: request.linkId,
        state: 'succeeded',
        failureMessage: null,
      };
    },
    retrieveRefund: async () => {
      throw new Error('not asked here');
    },
  } as unknown as Psp;
  const state = { connection: storedConnection('sandbox', 'test', 'pc_sandbox'), health: INITIAL_HEALTH };
  const connections = new PspConnections({
    repository: { get: async () => state } as unknown as ConstructorParameters<
      typeof PspConnections
    >[0]['repository'],
    legacyConfigs: { get: async () => undefined, put: async () => undefined },
    descriptors: PSP_DESCRIPTORS,
    factories: { sandbox: () => ({ create: async () => psp }) },
    runtime: () => testPspRuntime({}),
    secretPrefix: 'psp/',
  });
  return { asked, connections };
}

describe('a refund reason', () => {
  it('is stored on the refund with its words, and handed to the PSP adapter', async () => {
    const { asked, connections } = recordingConnections();
    const link = paidLink('10.00');
    const refund = requestRefund(link, undefined, 're_1', now, anyRefunds, undefined, {
      reason: 'other',
      reason_detail: 'Damaged in transit',
    });

    await connections.refund(link, refund);

    expect(refund).toMatchObject({ reason: 'other', reason_detail: 'Damaged in transit' });
    expect(asked).toMatchObject([{ refundId: 're_1', reason: 'other' }]);
  });

  it('is absent from a refund made without one, and from what the PSP is asked', async () => {
    const { asked, connections } = recordingConnections();
    const link = paidLink('10.00');
    const refund = requestRefund(link, undefined, 're_2', now, anyRefunds);

    await connections.refund(link, refund);

    expect('reason' in refund).toBe(false);
    expect(asked[0] && 'reason' in asked[0]).toBe(false);
  });
});
