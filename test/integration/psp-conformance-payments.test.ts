import { expect } from 'vitest';
import { chargedAmountMismatch } from '../../functions/domain/charged-amount.ts';
import { canCaptureLater, canVoidAuthorizations } from '../../functions/ports/psp-capabilities.ts';
import { BUYER, forEveryPsp, scenario } from '../support/psp-conformance.ts';
import {
  collectingRequest,
  expectRefused,
  expectSameMoney,
  paidSession,
  settledStatus,
  verified,
} from '../support/psp-conformance-steps.ts';
import { orderLink, sessionRequest } from '../support/psp-fixtures.ts';

/**
 * The conformance suite, payments (docs/orchestration.md#conformance): every registered PSP's buyer pays and is
 * declined; its notifications are verified, forged or wrongly-keyed ones refused; the status says the amount and
 * currency charged, so that another amount never pays the link; buyer details come back; an authorization is
 * voided, a capture made once. A scenario whose capability the PSP does not declare is skipped by name.
 */
forEveryPsp((descriptor, run) => {
  scenario(
    descriptor,
    'is paid: the status says succeeded, at the amount and currency of the session',
    undefined,
    async () => {
      const { psp, connection } = await run().adapter();
      const request = sessionRequest(orderLink('10.00', run().currency), connection);
      const { status } = await paidSession(run(), psp, request);
      expect(status).toMatchObject({
        state: 'succeeded',
        paymentId: request.paymentId,
        linkId: request.link.id,
      });
      expectSameMoney(status.amount, request.amount);
    },
  );

  scenario(descriptor, 'is declined: the status never says succeeded', undefined, async () => {
    const { psp, connection } = await run().adapter();
    const session = await psp.createSession(sessionRequest(orderLink('10.00', run().currency), connection));
    await run().fake.decline(session);
    expect(['pending', 'failed', 'canceled', 'expired']).toContain((await settledStatus(psp, session)).state);
  });

  scenario(
    descriptor,
    'verifies its notification, and refuses a forged one and one signed for another connection',
    undefined,
    async () => {
      const { psp, connection } = await run().adapter();
      const session = await psp.createSession(sessionRequest(orderLink('10.00', run().currency), connection));
      await run().fake.pay(session, BUYER);
      await verified(psp, await run().fake.notification(session, 'genuine'), session);
      await expectRefused(psp, await run().fake.notification(session, 'forged'));
      await expectRefused(psp, await run().fake.notification(session, 'other_key'));
    },
  );

  scenario(
    descriptor,
    'reports another amount charged as it is: a mismatch, which never pays the link',
    undefined,
    async () => {
      const { psp, connection } = await run().adapter();
      const request = sessionRequest(orderLink('10.00', run().currency), connection);
      const session = await psp.createSession(request);
      const other = { value: '9.99', currency: run().currency };
      run().fake.reportAmount(session, other);
      await run().fake.pay(session, BUYER);
      // Read before any capture: a success at another amount is answered as a failure before it is captured.
      const status = await psp.retrieveSession(session.id);
      expectSameMoney(status.amount, other);
      expect(chargedAmountMismatch(request.amount, status.amount)).toBeDefined();
    },
  );

  scenario(
    descriptor,
    'reads back the details the buyer gave on its page',
    'reads_buyer_details',
    async () => {
      const { psp, connection } = await run().adapter();
      const request = collectingRequest(run(), connection);
      const { status } = await paidSession(run(), psp, request);
      expect(status.buyer).toBeDefined();
      if (request.pageAsks.includes('email')) expect(status.buyer?.email).toBe(BUYER.email);
    },
  );

  scenario(
    descriptor,
    'captures an approved session once, however often it is asked',
    'captures_later',
    async () => {
      const { psp, connection } = await run().adapter();
      if (!canCaptureLater(psp)) throw new Error('it declares captures_later without CapturesLater');
      const session = await psp.createSession(sessionRequest(orderLink('10.00', run().currency), connection));
      await run().fake.pay(session, BUYER);
      expect((await psp.retrieveSession(session.id)).deferredCapture).toBe('approved');
      const first = await psp.captureSession({ id: session.id, paymentId: session.payment_id });
      const again = await psp.captureSession({ id: session.id, paymentId: session.payment_id });
      expect(first.state).toBe('succeeded');
      expect(again).toMatchObject({ state: 'succeeded', paymentReference: first.paymentReference });
    },
  );

  scenario(descriptor, 'voids an authorization it is not to capture', 'voids_authorizations', async () => {
    const { psp, connection } = await run().adapter();
    if (!canVoidAuthorizations(psp))
      throw new Error('it declares voids_authorizations without VoidsAuthorizations');
    const session = await psp.createSession(sessionRequest(orderLink('10.00', run().currency), connection));
    await run().fake.pay(session, BUYER);
    await psp.voidAuthorization({ id: session.id, paymentId: session.payment_id });
    expect(['failed', 'canceled', 'expired']).toContain((await psp.retrieveSession(session.id)).state);
  });
});
