import { describe, expect, it } from 'vitest';
import { requestRefund } from '../../functions/domain/refund.ts';
import type { Psp, PspFactory, PspRefundRequest } from '../../functions/ports/psp.ts';
import type { PspConnectionRepository } from '../../functions/ports/psp-connections.ts';
import { PspConnections } from '../../functions/use-cases/psp-connections.ts';
import { now, paidLink } from '../support/paid-links.ts';

/** A refund's reason (docs/webhooks.md#refunds): on the refund, and handed to the PSP's adapter with it. */
function recordingConnections() {
  const asked: PspRefundRequest[] = [];
  const psp = {
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
  } as unknown as Psp;
  const connections = new PspConnections({
    repository: {
      get: async () => ({
        connection: { id: 'pc_sandbox', provider: 'sandbox', mode: 'test', account: 'acme' },
      }),
    } as unknown as PspConnectionRepository,
    legacyConfigs: {} as never,
    factories: [
      { provider: 'sandbox', testModeOnly: true, create: async () => psp } as unknown as PspFactory,
    ],
    legacySecretName: () => '',
  });
  return { asked, connections };
}

describe('a refund reason', () => {
  it('is stored on the refund with its words, and handed to the PSP adapter', async () => {
    const { asked, connections } = recordingConnections();
    const link = paidLink('10.00');
    const refund = requestRefund(link, undefined, 're_1', now, undefined, {
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
    const refund = requestRefund(link, undefined, 're_2', now);

    await connections.refund(link, refund);

    expect('reason' in refund).toBe(false);
    expect(asked[0] && 'reason' in asked[0]).toBe(false);
  });
});
