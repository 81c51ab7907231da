import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConformanceFake } from '../../../../../test/support/psp-conformance.ts';
import { factoryOf } from '../../../../../test/support/psp-fakes.ts';
import { orderLink, sessionRequest, storedConnection } from '../../../../../test/support/psp-fixtures.ts';
import { createFactory, type XenditPsp } from '../adapter.ts';
import { conformance } from './conformance.ts';

/**
 * Xendit's conformance fixture does what the suite asks of it, through the adapter against its fake, until the
 * suite (test/integration/psp-conformance-*.test.ts) runs it with every PSP.
 */
const connection = storedConnection('xendit', 'test', 'pc_xenditfixture000000000001');
let fake: ConformanceFake;
let psp: XenditPsp;

beforeAll(async () => {
  fake = await conformance.start();
  const secrets = new Map([[connection.secret_name as string, JSON.stringify(fake.credentials)]]);
  psp = await factoryOf<XenditPsp>(createFactory, { secrets, apiUrl: fake.apiUrl }).create(connection);
});
afterAll(() => fake?.stop());

const opened = (value = '120.00', currency = 'PHP', locale = 'en') => {
  const request = sessionRequest(orderLink(value, currency), connection, undefined, locale);
  return psp.createSession(request).then((session) => ({ request, session }));
};

describe('the Xendit conformance fixture', () => {
  it('shows the session in our words, pays it, sends its notification as Xendit does, and reports another amount', async () => {
    const { request, session } = await opened('120.00', 'PHP', 'th-TH');
    const view = await fake.session(session);
    expect(view).toMatchObject({ amount: { value: '120.00', currency: 'PHP' }, lines: null, locale: 'th' });
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
    fake.reportAmount(session, { value: '0.01', currency: 'PHP' });
    expect((await psp.retrieveSession(session.id)).amount).toEqual({ value: '0.01', currency: 'PHP' });
  });

  it('declines (the session stays payable), ends a session, fails as Xendit failing, and settles a refund', async () => {
    const declined = await opened();
    await fake.decline(declined.session);
    expect((await psp.retrieveSession(declined.session.id)).state).toBe('pending');
    expect(await psp.expireSession(declined.session)).toBe('ended');
    const { request, session } = await opened('50000', 'IDR');
    await fake.pay(session, {});
    const status = await psp.retrieveSession(session.id);
    const refund = await psp.refund({
      refundId: 're_fixture000000000000000001',
      linkId: request.link.id,
      paymentReference: status.paymentReference as string,
      amount: { value: '20000.00', currency: 'IDR' },
    });
    await fake.settleRefund?.(refund.reference, 'succeeded');
    expect((await psp.retrieveRefund(refund.reference)).state).toBe('succeeded');
    fake.outage('error');
    await expect(psp.retrieveSession(session.id)).rejects.toMatchObject({ kind: 'unavailable' });
    fake.outage('none');
  });
});
