import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConformanceFake } from '../../../../../test/support/psp-conformance.ts';
import { factoryOf } from '../../../../../test/support/psp-fakes.ts';
import { orderLink, sessionRequest, storedConnection } from '../../../../../test/support/psp-fixtures.ts';
import { type CashfreePsp, createFactory } from '../adapter.ts';
import { conformance } from './conformance.ts';

/**
 * Cashfree's conformance fixture does what the suite (test/integration/psp-conformance-*.test.ts) asks of it,
 * through the adapter against its fake.
 */
const connection = storedConnection('cashfree', 'test', 'pc_cashfreefixture0000000001');
let fake: ConformanceFake;
let psp: CashfreePsp;

beforeAll(async () => {
  fake = await conformance.start();
  const secrets = new Map([[connection.secret_name as string, JSON.stringify(fake.credentials)]]);
  psp = await factoryOf<CashfreePsp>(createFactory, { secrets, apiUrl: fake.apiUrl }).create(connection);
});
afterAll(() => fake?.stop());

const opened = async (value = '120.00', currency = 'INR') => {
  const request = sessionRequest(orderLink(value, currency), connection);
  return { request, session: await psp.createSession(request) };
};

describe('the Cashfree conformance fixture', () => {
  it('shows the session in our words, pays it, signs its notification as Cashfree does, and reports another amount', async () => {
    const { request, session } = await opened('12.50');
    const view = await fake.session(session);
    expect(view).toMatchObject({ amount: { value: '12.50', currency: 'INR' }, lines: null, locale: null });
    expect(view.references).toEqual(expect.arrayContaining([request.paymentId, request.link.id]));
    await fake.pay(session, {});
    const genuine = await fake.notification(session, 'genuine');
    expect(await psp.verifyNotification(genuine.body, genuine.headers)).toMatchObject([
      { sessionId: session.id },
    ]);
    for (const signing of ['forged', 'other_key'] as const) {
      const refused = await fake.notification(session, signing);
      await expect(psp.verifyNotification(refused.body, refused.headers)).rejects.toMatchObject({
        kind: 'notification_not_authentic',
      });
    }
    fake.reportAmount(session, { value: '0.01', currency: 'USD' });
    expect((await psp.retrieveSession(session.id)).amount).toEqual({ value: '0.01', currency: 'USD' });
  });

  it('declines (the link stays payable), fails as Cashfree failing, and settles a refund', async () => {
    const declined = await opened();
    await fake.decline(declined.session);
    expect((await psp.retrieveSession(declined.session.id)).state).toBe('pending');
    const { request, session } = await opened();
    await fake.pay(session, {});
    const status = await psp.retrieveSession(session.id);
    const refund = await psp.refund({
      refundId: 're_fixture000000000000000001',
      linkId: request.link.id,
      paymentReference: status.paymentReference as string,
      amount: { value: '20.00', currency: 'INR' },
    });
    await fake.settleRefund?.(refund.reference, 'succeeded');
    expect((await psp.retrieveRefund(refund.reference)).state).toBe('succeeded');
    fake.outage('error');
    await expect(psp.retrieveSession(session.id)).rejects.toMatchObject({ kind: 'unavailable' });
    fake.outage('none');
  });
});
