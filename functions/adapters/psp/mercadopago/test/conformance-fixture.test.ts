import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConformanceFake } from '../../../../../test/support/psp-conformance.ts';
import { factoryOf } from '../../../../../test/support/psp-fakes.ts';
import { orderLink, sessionRequest, storedConnection } from '../../../../../test/support/psp-fixtures.ts';
import { createFactory, type MercadoPagoPsp } from '../adapter.ts';
import { conformance } from './conformance.ts';

/**
 * Mercado Pago's conformance fixture does what the suite asks of it, through the adapter against its fake, until
 * the suite (test/integration/psp-conformance-*.test.ts) runs it with every PSP.
 */
const connection = storedConnection('mercadopago', 'test', 'pc_mercadopagofixture000000001');
let fake: ConformanceFake;
let psp: MercadoPagoPsp;

beforeAll(async () => {
  fake = await conformance.start();
  const secrets = new Map([[connection.secret_name as string, JSON.stringify(fake.credentials)]]);
  psp = await factoryOf<MercadoPagoPsp>(createFactory, { secrets, apiUrl: fake.apiUrl }).create(connection);
});
afterAll(() => fake?.stop());

const opened = (value = '120.00') => {
  const request = sessionRequest(orderLink(value, 'BRL'), connection);
  return psp.createSession(request).then((session) => ({ request, session }));
};

describe('the Mercado Pago conformance fixture', () => {
  it('shows the session in our words, pays it, signs its notification as Mercado Pago does, and reports another amount', async () => {
    const { request, session } = await opened();
    const view = await fake.session(session);
    expect(view).toMatchObject({
      amount: { value: '120.00', currency: 'BRL' },
      lines: [{ name: 'Order 1001', quantity: 1 }],
      locale: null,
    });
    expect(view.references).toEqual(expect.arrayContaining([request.paymentId, request.link.id]));
    await fake.pay(session, {});
    const genuine = await fake.notification(session, 'genuine');
    const [named] = await psp.verifyNotification(genuine.body, genuine.headers);
    expect(await psp.retrieveSession(named?.sessionId as string)).toMatchObject({
      state: 'succeeded',
      paymentId: request.paymentId,
    });
    for (const signing of ['forged', 'other_key'] as const) {
      const refused = await fake.notification(session, signing);
      await expect(psp.verifyNotification(refused.body, refused.headers)).rejects.toMatchObject({
        kind: 'notification_not_authentic',
      });
    }
    fake.reportAmount(session, { value: '0.01', currency: 'BRL' });
    expect((await psp.retrieveSession(session.id)).amount).toEqual({ value: '0.01', currency: 'BRL' });
  });

  it('declines, fails as Mercado Pago failing, and settles a refund', async () => {
    const declined = await opened();
    await fake.decline(declined.session);
    expect((await psp.retrieveSession(declined.session.id)).state).toBe('failed');
    const { request, session } = await opened();
    await fake.pay(session, {});
    const status = await psp.retrieveSession(session.id);
    const refund = await psp.refund({
      refundId: 're_fixture000000000000000001',
      linkId: request.link.id,
      paymentReference: status.paymentReference as string,
      amount: { value: '20.00', currency: 'BRL' },
    });
    await fake.settleRefund?.(refund.reference, 'succeeded');
    expect((await psp.retrieveRefund(refund.reference)).state).toBe('succeeded');
    fake.outage('error');
    await expect(psp.retrieveSession(session.id)).rejects.toMatchObject({ kind: 'unavailable' });
    fake.outage('none');
  });
});
