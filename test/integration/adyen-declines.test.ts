import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADYEN_FAKE, type NotificationItem } from '../../functions/adapters/psp/adyen/test/fake.ts';
import { notifyAdyen } from '../../functions/adapters/psp/adyen/test/notify.ts';
import { paymentRepository } from '../../functions/dependencies.ts';
import { FIRST_CHECK_AFTER_MS } from '../../functions/domain/payment.ts';
import { navigate } from '../support/navigate.ts';
import { type PspStack, startPspStack } from '../support/psp-stack.ts';
import { OUTCOMES_AT_ONCE, openedSession } from '../support/session-outcomes.ts';
import { sweepPendingPayments } from '../support/sweepers.ts';

/**
 * What a try Adyen refused on a payment link becomes (docs/orchestration.md#decline-codes, #observed-outcomes):
 * Adyen keeps the link payable and tells the refusal only in its AUTHORISATION notification, so the pending payment
 * keeps it; when the link then expires (Adyen sends nothing: the status sweeper finds it) the payment fails with the
 * mapped decline, its event is sent, and the connection's outcomes count a decline as `failed`, the issuer failing
 * as `outage`; a link paid after a refusal is paid, and one that expired with no refused try is `left`.
 */

const FAKES = { adyen: ADYEN_FAKE };
let psps: PspStack<typeof FAKES>;

beforeAll(async () => {
  psps = await startPspStack({ fakes: FAKES, stack: { schedules: false, environment: OUTCOMES_AT_ONCE } });
});
afterAll(() => psps?.stop());

/** A shop's Adyen link (`openedSession`), and `notify`, which brings it Adyen's notification of `item`. */
async function openedLink(shop: string) {
  const opened = await openedSession(psps, shop, 'adyen');
  const notify = (item: NotificationItem) => notifyAdyen(psps.stack, psps.adyen, opened.connection.id, item);
  return { ...opened, notify };
}

/** The status sweeper's run once the payment's first check is due (`at`: later, when given). */
const sweepWhenDue = (at = new Date(Date.now() + FIRST_CHECK_AFTER_MS + 1_000)) => sweepPendingPayments(at);

describe('an Adyen link that expired after Adyen refused a try on it', () => {
  it('fails with the mapped decline once the sweeper finds it expired, tells the merchant, and counts a decline', async () => {
    const { link, session, notify, outcome } = await openedLink('adyendeclined');
    await notify(psps.adyen.refuse(session.id, { reason: 'Not enough balance', code: '12' }));
    const pending = await paymentRepository().get(link.id, 'test', session.payment_id);
    expect(pending).toMatchObject({
      status: 'pending',
      declined_attempt: { code: 'insufficient_funds', class: 'soft' },
    });

    psps.adyen.expire(session.id);
    await sweepWhenDue();
    const { payment, events, counts } = await outcome();
    expect(payment).toMatchObject({
      status: 'failed',
      failure: { code: 'insufficient_funds', class: 'soft' },
    });
    expect(payment.failure.message).toContain('(Adyen code 12)');
    expect(events).toEqual(['payment_link.payment_failed']);
    expect(counts).toEqual({ opened: 1, paid: 0, failed: 1, left: 0, outage: 0 });
  });

  it('fails as an outage when the issuer was unavailable (its reason alone), and counts one, not a decline', async () => {
    const { session, notify, outcome } = await openedLink('adyenissuerdown');
    await notify(psps.adyen.refuse(session.id, { reason: 'Issuer Unavailable' }));
    psps.adyen.expire(session.id);
    await sweepWhenDue();
    const { payment, events, counts } = await outcome();
    expect(payment).toMatchObject({
      status: 'failed',
      failure: { code: 'psp_unavailable', class: 'outage' },
    });
    expect(events).toEqual(['payment_link.payment_failed']);
    expect(counts).toEqual({ opened: 1, paid: 0, failed: 0, left: 0, outage: 1 });
  });

  it('fails with the decline too when Adyen still calls the link active past its end', async () => {
    const { session, notify, outcome } = await openedLink('adyenlate');
    await notify(psps.adyen.refuse(session.id, { reason: 'Expired Card', code: '6' }));
    await sweepWhenDue(new Date(Date.parse(session.expires_at) + 60_001));
    const { payment, events, counts } = await outcome();
    expect(payment).toMatchObject({ status: 'failed', failure: { code: 'expired_card', class: 'hard' } });
    expect(events).toEqual(['payment_link.payment_failed']);
    expect(counts).toEqual({ opened: 1, paid: 0, failed: 1, left: 0, outage: 0 });
  });

  it('is paid when the buyer pays after the refusal: the refusal changes nothing', async () => {
    const { session, notify, outcome } = await openedLink('adyenpaidafter');
    await notify(psps.adyen.refuse(session.id, { reason: 'CVC Declined', code: '24' }));
    await notify(psps.adyen.pay(session.id));
    const { payment, events, counts } = await outcome();
    expect(payment).toMatchObject({ status: 'succeeded', failure: null });
    expect(events).toEqual(['payment_link.paid']);
    expect(counts).toEqual({ opened: 1, paid: 1, failed: 0, left: 0, outage: 0 });
  });

  it('stays pending past the end while a slower method is under way after the refusal, then is paid, and only paid', async () => {
    const { link, session, notify, outcome } = await openedLink('adyenpendingpaid');
    await notify(psps.adyen.refuse(session.id, { reason: 'Not enough balance', code: '12' }));
    // The buyer tries again with an asynchronous method: Adyen reads the link `paymentPending` (a payment under
    // way), still so when the sweeper asks after the session's end, and again hours later.
    const adyenLink = psps.adyen.paymentLinks.get(session.id);
    if (!adyenLink) throw new Error('no Adyen link');
    adyenLink.status = 'paymentPending';
    const pastItsEnd = Date.parse(session.expires_at) + 60_001;
    await sweepWhenDue(new Date(pastItsEnd));
    await sweepWhenDue(new Date(pastItsEnd + 24 * 3_600_000));
    const underWay = await paymentRepository().get(link.id, 'test', session.payment_id);
    expect(underWay).toMatchObject({ status: 'pending', failure: null, money_under_way: true });
    expect(underWay).not.toHaveProperty('declined_attempt');
    expect((await outcome()).events).toEqual([]);

    await notify(psps.adyen.pay(session.id));
    const { payment, events, counts } = await outcome();
    expect(payment).toMatchObject({ status: 'succeeded', failure: null });
    expect(events).toEqual(['payment_link.paid']);
    expect(counts).toEqual({ opened: 1, paid: 1, failed: 0, left: 0, outage: 0 });
  });

  it('tells the merchant once, with the decline, however many learn of the expiry at once', async () => {
    const { key, link, session, notify, outcome } = await openedLink('adyenrace');
    const refused = psps.adyen.refuse(session.id, { reason: 'Not enough balance', code: '12' });
    await notify(refused);
    psps.adyen.expire(session.id);
    // A change the checkout ends the session for: the buyer coming back reads it from Adyen too.
    const patched = await psps.stack.request('PATCH', `/v1/payment-links/${link.id}`, {
      key,
      body: { description: 'Changed while the buyer was away' },
    });
    expect(patched.status).toBe(200);
    // Adyen sends the refusal again (it retries until answered), while the sweeper and the buyer find the expiry.
    await Promise.all([
      ...Array.from({ length: 6 }, () => notify(refused)),
      sweepWhenDue(),
      sweepWhenDue(new Date(Date.parse(session.expires_at) + 60_001)),
      navigate(`${link.checkout_url}?canceled=1`),
      navigate(`${link.checkout_url}?canceled=1`),
    ]);
    const { payment, events } = await outcome();
    expect(payment).toMatchObject({
      status: 'failed',
      failure: { code: 'insufficient_funds', class: 'soft' },
    });
    expect(events.filter((type: string) => type === 'payment_link.payment_failed')).toHaveLength(1);
  });

  it('stays expired without a refused try, and counts as a buyer who left', async () => {
    const { session, outcome } = await openedLink('adyenleft');
    psps.adyen.expire(session.id);
    await sweepWhenDue();
    const { payment, events, counts } = await outcome();
    expect(payment).toMatchObject({ status: 'expired', failure: { code: 'expired', class: 'soft' } });
    expect(events).toEqual([]);
    expect(counts).toEqual({ opened: 1, paid: 0, failed: 0, left: 1, outage: 0 });
  });
});
