import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paymentRepository, pspConnectionRepository, refundLedger } from '../../functions/dependencies.ts';
import { ConnectionInUseError } from '../../functions/domain/errors.ts';
import { toMinorUnits } from '../../functions/domain/money.ts';
import { firstRefundCheckAt, MAX_REFUNDS_PER_LINK, requestRefund } from '../../functions/domain/refund.ts';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { removeConnection } from '../../functions/use-cases/psp-connections.ts';
import { createLink, storedLink } from '../support/checkout-helpers.ts';
import { addConnection } from '../support/connections.ts';
import { httpRequest, navigate } from '../support/navigate.ts';
import { anyRefunds } from '../support/psp-fixtures.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';
import { eventually } from '../support/webhooks.ts';

let stack: TestStack;
let acme: IssuedApiKey;

beforeAll(async () => {
  stack = await startTestStack();
  acme = await stack.issueKey('removing', 'test');
});
afterAll(() => stack.stop());

const deps = () => ({
  repository: pspConnectionRepository(),
  payments: paymentRepository(),
  refunds: refundLedger(),
});

const sandbox = (name: string) =>
  addConnection({ account: 'removing', mode: 'test', provider: 'sandbox', name });

/** A link whose checkout page opened a session at `connectionId`: a payment pending through it. */
async function pendingThrough(connectionId: string) {
  const link = await createLink(stack, acme.api_key, { connections: [connectionId] });
  await navigate(link.checkout_url);
  return storedLink(link.id);
}

describe('removing a PSP connection (npm run psp -- remove)', () => {
  it('is refused while a payment is pending through it, naming the payment, and then changes nothing', async () => {
    const connection = await sandbox('Pending payment');
    const link = await pendingThrough(connection.id);

    const refused = await removeConnection(deps(), connection.id).catch((error: unknown) => error);

    expect(refused).toBeInstanceOf(ConnectionInUseError);
    expect((refused as ConnectionInUseError).payments).toEqual([
      { link_id: link.id, mode: 'test', id: link.psp_session?.payment_id },
    ]);
    expect((refused as ConnectionInUseError).refunds).toEqual([]);
    expect((refused as Error).message).toMatch(/still has 1 pending payment/);
    expect(await pspConnectionRepository().get(connection.id)).toBeDefined();
  });

  it('is refused while a refund is pending through the connection that took the payment', async () => {
    const connection = await sandbox('Pending refund');
    const opened = await pendingThrough(connection.id);
    await httpRequest(`${stack.baseUrl}/sandbox/checkout/${opened.psp_session?.id}/pay`, { method: 'POST' });
    const paid = await eventually(async () => {
      const link = await storedLink(opened.id);
      return link.status === 'paid' && link;
    });
    // A refund the PSP has not decided yet, as Stripe or Adyen leave one (the sandbox decides at once).
    const refund = requestRefund(paid, undefined, 're_PendingAtThePsp000000000', new Date(), anyRefunds);
    await refundLedger().reserve(paid, refund, {
      paidMinor: toMinorUnits(paid.amount!),
      refundMinor: toMinorUnits(refund.amount),
      maxRefunds: MAX_REFUNDS_PER_LINK,
      checkAt: firstRefundCheckAt(new Date()),
    });

    const refused = await removeConnection(deps(), connection.id).catch((error: unknown) => error);

    expect(refused).toBeInstanceOf(ConnectionInUseError);
    expect((refused as ConnectionInUseError).payments).toEqual([]);
    expect((refused as ConnectionInUseError).refunds).toEqual([{ link_id: paid.id, id: refund.id }]);
    expect(await pspConnectionRepository().get(connection.id)).toBeDefined();
  });

  it('removes a connection nothing is pending through, however busy the others are', async () => {
    const busy = await sandbox('Busy');
    const idle = await sandbox('Idle');
    await pendingThrough(busy.id);

    const removed = await removeConnection(deps(), idle.id);

    expect(removed?.id).toBe(idle.id);
    expect(await pspConnectionRepository().get(idle.id)).toBeUndefined();
    expect(await removeConnection(deps(), idle.id)).toBeUndefined();
  });
});
