import { expect } from 'vitest';
import { newPaymentId } from '../../functions/domain/payment.ts';
import { canEndSessions } from '../../functions/ports/psp-capabilities.ts';
import { forEveryPsp, scenario } from '../support/psp-conformance.ts';
import { expectSameMoney, rangeLink } from '../support/psp-conformance-steps.ts';
import { declaredInterfaces, interfaceCapabilities } from '../support/psp-fakes.ts';
import { basketLink, orderLink, sessionRequest } from '../support/psp-fixtures.ts';

/**
 * The conformance suite, sessions (docs/orchestration.md#conformance): every registered PSP, through its adapter
 * and official SDK against its fake, opens a session for a fixed amount, for the amount a buyer chose, with the
 * link's lines and in the buyer's language, with our ids on the PSP's object and its amount read back; ends one
 * early. A scenario whose capability the PSP does not declare is skipped by name.
 */
forEveryPsp((descriptor, run) => {
  scenario(descriptor, 'has the capabilities its descriptor declares, and no other', undefined, async () => {
    const { psp } = await run().adapter();
    expect(interfaceCapabilities(psp)).toEqual(declaredInterfaces(descriptor));
    expect(psp.provider).toBe(descriptor.id);
  });

  scenario(
    descriptor,
    'opens a session for a fixed amount, with our ids on it, and reads it back',
    undefined,
    async () => {
      const { psp, connection } = await run().adapter();
      const link = orderLink('10.00', run().currency);
      const request = sessionRequest(link, connection, newPaymentId(new Date()));
      const session = await psp.createSession(request);
      expect(session).toMatchObject({
        provider: descriptor.id,
        connection_id: connection.id,
        payment_id: request.paymentId,
      });
      expect(new URL(session.url).protocol).toMatch(/^https?:$/);
      const held = await run().fake.session(session);
      expectSameMoney(held.amount, request.amount);
      expect(held.references).toEqual(expect.arrayContaining([request.paymentId, link.id]));
      const status = await psp.retrieveSession(session.id);
      expect(status).toMatchObject({
        id: session.id,
        paymentId: request.paymentId,
        linkId: link.id,
        state: 'pending',
        livemode: false,
      });
      expectSameMoney(status.amount, request.amount);
    },
  );

  scenario(descriptor, 'opens a session for the amount the buyer chose', undefined, async () => {
    const { psp, connection } = await run().adapter();
    const request = {
      ...sessionRequest(rangeLink(run().currency), connection),
      amount: { value: '12.34', currency: run().currency },
    };
    const session = await psp.createSession(request);
    expectSameMoney((await run().fake.session(session)).amount, request.amount);
    expectSameMoney((await psp.retrieveSession(session.id)).amount, request.amount);
  });

  scenario(descriptor, 'sends the link’s lines', 'line_items', async () => {
    const { psp, connection } = await run().adapter();
    const session = await psp.createSession(sessionRequest(basketLink('test', run().currency), connection));
    const held = await run().fake.session(session);
    expect(held.lines).toEqual([
      { name: 'Beans', quantity: 2 },
      { name: 'Gift wrap', quantity: 1 },
    ]);
    expectSameMoney(held.amount, { value: '50.40', currency: run().currency });
  });

  scenario(descriptor, 'tells its page the buyer’s language', 'locale', async () => {
    const { psp, connection } = await run().adapter();
    const session = await psp.createSession(
      sessionRequest(orderLink('10.00', run().currency), connection, undefined, 'nl'),
    );
    expect((await run().fake.session(session)).locale).toMatch(/^nl/i);
  });

  scenario(descriptor, 'ends a session early, after which it cannot be paid', 'ends_sessions', async () => {
    const { psp, connection } = await run().adapter();
    if (!canEndSessions(psp)) throw new Error('it declares ends_sessions without EndsSessions');
    const session = await psp.createSession(sessionRequest(orderLink('10.00', run().currency), connection));
    expect(await psp.expireSession(session)).toBe('ended');
    expect(['canceled', 'expired', 'failed']).toContain((await psp.retrieveSession(session.id)).state);
  });
});
