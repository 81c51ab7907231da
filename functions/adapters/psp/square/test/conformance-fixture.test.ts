import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { trustFakePspCertificate } from '../../../../../test/support/fake-psp-server.ts';
import type { ConformanceFake } from '../../../../../test/support/psp-conformance.ts';
import { testPspRuntime } from '../../../../../test/support/psp-fakes.ts';
import { orderLink, sessionRequest, storedConnection } from '../../../../../test/support/psp-fixtures.ts';
import { InvalidNotificationError } from '../../../../domain/errors.ts';
import { createFactory, type SquarePsp } from '../adapter.ts';
import { conformance } from './conformance.ts';

/**
 * Square's conformance fixture does at its fake what the suite asks (test/support/psp-conformance.ts), and the
 * adapter built as the suite builds it sees it so: until the suite runs it, this keeps the fixture honest.
 */
const connection = storedConnection('square', 'test', 'pc_squareconformance000000000');
let fake: ConformanceFake;
let psp: SquarePsp;
let untrust: () => void;

beforeAll(async () => {
  untrust = trustFakePspCertificate();
  fake = await conformance.start();
  const secrets = new Map([[connection.secret_name as string, JSON.stringify(fake.credentials)]]);
  const runtime = { ...testPspRuntime({ secrets, apiUrl: fake.apiUrl }), ...fake.runtime };
  psp = (await createFactory(runtime).create(connection)) as SquarePsp;
});
afterAll(async () => {
  await fake.stop();
  untrust();
});

describe("Square's conformance fixture", () => {
  it('shows the session as Square holds it, pays it, and signs its notification genuine, forged or with another key', async () => {
    const request = sessionRequest(orderLink('10.00'), connection);
    const session = await psp.createSession(request);
    expect(await fake.session(session)).toEqual({
      amount: { value: '10.00', currency: 'EUR' },
      lines: [{ name: 'Order 1001', quantity: 1 }],
      locale: null,
      references: expect.arrayContaining([request.paymentId, request.link.id]),
    });
    await fake.pay(session, {});
    expect(await psp.retrieveSession(session.id)).toMatchObject({ state: 'succeeded' });
    const genuine = await fake.notification(session, 'genuine');
    expect(await psp.verifyNotification(genuine.body, genuine.headers)).toMatchObject([
      { sessionId: session.id.split(':')[1] },
    ]);
    for (const signing of ['forged', 'other_key'] as const) {
      const refused = await fake.notification(session, signing);
      await expect(psp.verifyNotification(refused.body, refused.headers)).rejects.toThrow(
        InvalidNotificationError,
      );
    }
  });

  it('reports another amount, declines, fails and settles refunds as the suite asks', async () => {
    const mismatched = await psp.createSession(sessionRequest(orderLink('10.00'), connection));
    fake.reportAmount(mismatched, { value: '0.01', currency: 'USD' });
    await fake.pay(mismatched, {});
    expect((await psp.retrieveSession(mismatched.id)).amount).toEqual({ value: '0.01', currency: 'USD' });

    const declined = await psp.createSession(sessionRequest(orderLink('10.00'), connection));
    await fake.decline(declined);
    expect((await psp.retrieveSession(declined.id)).state).toBe('pending');

    const paid = await psp.createSession(sessionRequest(orderLink('10.00'), connection));
    await fake.pay(paid, {});
    const { paymentReference } = await psp.retrieveSession(paid.id);
    const refund = await psp.refund({
      refundId: 're_conformancefixture00000001',
      linkId: 'pl_conformancefixture0000001',
      paymentReference: paymentReference as string,
      amount: { value: '4.00', currency: 'EUR' },
    });
    await fake.settleRefund?.(refund.reference, 'failed');
    expect((await psp.retrieveRefund(refund.reference)).state).toBe('failed');

    fake.outage('error');
    try {
      await expect(psp.retrieveSession(paid.id)).rejects.toMatchObject({ kind: 'unavailable' });
    } finally {
      fake.outage('none');
    }
  });
});
