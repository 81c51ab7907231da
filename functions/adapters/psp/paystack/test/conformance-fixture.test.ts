import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConformanceFake } from '../../../../../test/support/psp-conformance.ts';
import { factoryOf } from '../../../../../test/support/psp-fakes.ts';
import { orderLink, sessionRequest, storedConnection } from '../../../../../test/support/psp-fixtures.ts';
import { createFactory, type PaystackPsp } from '../adapter.ts';
import { conformance } from './conformance.ts';

/**
 * Paystack's conformance fixture does what the suite asks of it, through the adapter against its fake, until the
 * suite (test/integration/psp-conformance-*.test.ts) runs it with every PSP.
 */
const connection = storedConnection('paystack', 'test', 'pc_paystackfixture0000000001');
let fake: ConformanceFake;
let psp: PaystackPsp;

beforeAll(async () => {
  fake = await conformance.start();
  const secrets = new Map([[connection.secret_name as string, JSON.stringify(fake.credentials)]]);
  psp = await factoryOf<PaystackPsp>(createFactory, { secrets, apiUrl: fake.apiUrl }).create(connection);
});
afterAll(() => fake?.stop());

const opened = () => {
  const request = {
    ...sessionRequest(orderLink('120.00', 'NGN'), connection),
    buyer: { email: 'a@example.com' },
  };
  return psp.createSession(request).then((session) => ({ request, session }));
};

describe('the Paystack conformance fixture', () => {
  it('shows the session in our words, pays it, signs its notification as Paystack does, and reports another amount', async () => {
    const { request, session } = await opened();
    const view = await fake.session(session);
    expect(view).toMatchObject({ amount: { value: '120.00', currency: 'NGN' }, lines: null, locale: null });
    expect(view.references).toEqual(expect.arrayContaining([request.paymentId, request.link.id]));
    await fake.pay(session, { email: 'a@example.com' });
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

  it('declines, fails as Paystack failing, and settles a refund', async () => {
    const declined = await opened();
    await fake.decline(declined.session);
    expect((await psp.retrieveSession(declined.session.id)).state).toBe('failed');
    const { request, session } = await opened();
    await fake.pay(session, {});
    const refund = await psp.refund({
      refundId: 're_fixture000000000000000001',
      linkId: request.link.id,
      paymentReference: session.id,
      amount: { value: '20.00', currency: 'NGN' },
    });
    await fake.settleRefund?.(refund.reference, 'succeeded');
    expect((await psp.retrieveRefund(refund.reference)).state).toBe('succeeded');
    fake.outage('error');
    await expect(psp.retrieveSession(session.id)).rejects.toMatchObject({ kind: 'unavailable' });
    fake.outage('none');
  });
});
