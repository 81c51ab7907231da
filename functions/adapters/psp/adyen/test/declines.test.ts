import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { orderLink, sessionRequest } from '../../../../../test/support/psp-fixtures.ts';
import { classified } from '../../../../domain/payment-failure.ts';
import type { Psp } from '../../../../ports/psp.ts';
import { ADYEN_DECLINES, ADYEN_REFUSAL_REASONS, adyenDecline } from '../declines.ts';
import { hmacKey, testConnection, useFakeAdyen } from './adapter-setup.ts';
import type { FakeAdyen, NotificationItem } from './fake.ts';

const fake = useFakeAdyen();
let adyen: FakeAdyen;
let psp: Psp;
beforeAll(async () => {
  adyen = fake.adyen;
  psp = await fake.factory.create(testConnection);
});

/** Adyen's documented refusal reasons, online and in person (./contract/SOURCE.md). */
const DOCUMENTED = JSON.parse(
  readFileSync(new URL('./contract/refusal-reasons.json', import.meta.url), 'utf8'),
) as Record<'online' | 'in_person', Record<string, string>>;

const verified = (items: NotificationItem[]) =>
  psp.verifyNotification(adyen.notification(items, { hmacKey }), {});

/** A link whose buyer's try Adyen refused with `refusal`, as the adapter reads it right after the notification. */
async function refusedOn(refusal: { reason: string; code?: string; advice?: string; raw?: string }) {
  const session = await psp.createSession(sessionRequest(orderLink('5.00'), testConnection));
  await verified([adyen.refuse(session.id, refusal)]);
  return { session, status: await psp.retrieveSession(session.id) };
}

describe("Adyen's refused tries on a payment link (docs/orchestration.md#decline-codes)", () => {
  it('maps every online refusal reason Adyen documents, with its text, and no other', () => {
    expect(ADYEN_REFUSAL_REASONS).toEqual(DOCUMENTED.online);
    expect(Object.keys(ADYEN_DECLINES).sort()).toEqual(Object.keys(DOCUMENTED.online).sort());
  });

  it("reads each refused try as pending with our code, by Adyen's code or else its reason's text", async () => {
    for (const [code, ours] of Object.entries(ADYEN_DECLINES)) {
      const reason = ADYEN_REFUSAL_REASONS[code] as string;
      const expected = {
        code: ours,
        message: `Adyen refused the buyer's payment: ${reason}. (Adyen code ${code})`,
      };
      const byCode = await refusedOn({ reason, code });
      expect(byCode.status, code).toMatchObject({ state: 'pending', failure: null });
      if (ours === 'canceled') {
        // A cancelled try is no decline: the link that then expires is a buyer who left.
        expect(byCode.status.declinedAttempt, code).toBeUndefined();
        continue;
      }
      expect(byCode.status.declinedAttempt, code).toEqual(expected);
      expect((await refusedOn({ reason })).status.declinedAttempt, reason).toEqual(expected);
    }
    expect(adyen.violations).toEqual([]);
  });

  it('reads a code the table lacks as processing_error, and a text of no code as declined', async () => {
    const unlisted = await refusedOn({ reason: 'Something new', code: '99' });
    expect(unlisted.status.declinedAttempt?.code).toBe('processing_error');
    const unknown = await refusedOn({ reason: 'Something new' });
    expect(unknown.status.declinedAttempt?.code).toBe('declined');
  });

  it('classes the issuer, the acquirer or the network failing as an outage, a card no PSP can charge as hard', async () => {
    const classOf = async (code: string) => {
      const { declinedAttempt } = (await refusedOn({ reason: ADYEN_REFUSAL_REASONS[code] as string, code }))
        .status;
      return declinedAttempt && classified(declinedAttempt).class;
    };
    expect(await classOf('9')).toBe('outage');
    expect(await classOf('4')).toBe('outage');
    expect(await classOf('39')).toBe('outage');
    expect(await classOf('12')).toBe('soft');
    expect(await classOf('5')).toBe('hard');
    expect(await classOf('6')).toBe('hard');
  });

  it("follows Mastercard's advice over Adyen's code: never try the card again, or the card was replaced", async () => {
    const advised = async (advice: string) =>
      (await refusedOn({ reason: 'Refused', code: '2', advice })).status.declinedAttempt;
    const never = await advised('03: Do not try again');
    expect(never && classified(never)).toMatchObject({ code: 'do_not_retry', class: 'hard' });
    expect(never?.message).toContain('merchant advice 03');
    expect((await advised('21 : Payment cancellation'))?.code).toBe('do_not_retry');
    expect((await advised('01: New account information available'))?.code).toBe('expired_card');
    // Advice that allows a retry leaves Adyen's code as it is.
    expect((await advised('02: Cannot approve at this time, try again later'))?.code).toBe('do_not_honor');
  });

  it("reads the issuer's raw answer of a card lost, stolen, expired or restricted as hard under Adyen's generic code", async () => {
    // Adyen has no refusal code for a lost or stolen card: it sends a generic one, and the issuer's raw answer beside
    // it when the merchant has Adyen send it. Recovery must not take such a card to another PSP.
    const raw = async (answer: string) =>
      (await refusedOn({ reason: 'Refused', code: '2', raw: answer })).status.declinedAttempt;
    const lost = await raw('41 : Lost card');
    expect(lost && classified(lost)).toMatchObject({ code: 'lost_or_stolen_card', class: 'hard' });
    expect(lost?.message).toContain('(Adyen code 2, raw 41 : Lost card)');
    expect((await raw('43 : Stolen card, pick up'))?.code).toBe('lost_or_stolen_card');
    expect((await raw('54: Expired card'))?.code).toBe('expired_card');
    expect((await raw('62 : Restricted card'))?.code).toBe('lost_or_stolen_card');
    // A raw answer that allows another try leaves Adyen's code as it is.
    expect((await raw('51 : Insufficient funds/over credit limit'))?.code).toBe('do_not_honor');
  });

  it('keeps the refusal off a link that was then paid, or that the refused item does not name with its reference', async () => {
    const { session } = await refusedOn({ reason: 'Not enough balance', code: '12' });
    await verified([adyen.pay(session.id)]);
    const paid = await psp.retrieveSession(session.id);
    expect(paid).toMatchObject({ state: 'succeeded', failure: null });
    expect(paid.declinedAttempt).toBeUndefined();

    // `paymentLinkId` is outside Adyen's signature: an item of another payment naming this link is not its try.
    const other = await psp.createSession(sessionRequest(orderLink('5.00'), testConnection));
    const target = await psp.createSession(sessionRequest(orderLink('5.00'), testConnection));
    const item = adyen.refuse(other.id, { reason: 'Not enough balance', code: '12' });
    await verified([{ ...item, additionalData: { ...item.additionalData, paymentLinkId: target.id } }]);
    expect((await psp.retrieveSession(target.id)).declinedAttempt).toBeUndefined();
  });

  it('says a later try is under way on a link Adyen reads paymentPending after a refusal, and on no other', async () => {
    const { session, status } = await refusedOn({ reason: 'Not enough balance', code: '12' });
    expect(status.paymentUnderWay).toBeUndefined();
    const link = adyen.paymentLinks.get(session.id);
    if (!link) throw new Error('no Adyen link');
    link.status = 'paymentPending';
    expect(await psp.retrieveSession(session.id)).toMatchObject({ state: 'pending', paymentUnderWay: true });
  });

  it('reads an expired link after a refusal with the refusal beside its expiry, and one without none', async () => {
    const { session } = await refusedOn({ reason: 'Issuer Unavailable', code: '9' });
    adyen.expire(session.id);
    expect(await psp.retrieveSession(session.id)).toMatchObject({
      state: 'expired',
      failure: { code: 'expired' },
      declinedAttempt: { code: 'psp_unavailable' },
    });
    const left = await psp.createSession(sessionRequest(orderLink('5.00'), testConnection));
    adyen.expire(left.id);
    expect((await psp.retrieveSession(left.id)).declinedAttempt).toBeUndefined();
  });

  it('keeps the renewal class of every refusal as it was (docs/subscriptions.md#adyen)', () => {
    const renewal = (code: string) => adyenDecline({ code, reason: ADYEN_REFUSAL_REASONS[code] }).class;
    expect(['2', '4', '9', '12', '27', '28', '29'].map(renewal)).toEqual(Array(7).fill('soft'));
    expect(['3', '5', '6', '7', '8', '10', '14', '20', '24', '25', '26', '31', '46'].map(renewal)).toEqual(
      Array(13).fill('hard'),
    );
    expect(['11', '38', '42'].map(renewal)).toEqual(Array(3).fill('authentication_required'));
  });

  it('documents its table, code by code', () => {
    const docs = readFileSync('docs/orchestration.md', 'utf8');
    const section = docs.slice(docs.indexOf('### Decline codes'), docs.indexOf('### A success before'));
    for (const [theirs, ours] of Object.entries(ADYEN_DECLINES)) {
      expect(section, theirs).toContain(`\`${theirs}\` ${ADYEN_REFUSAL_REASONS[theirs]} → \`${ours}\``);
    }
  });
});
