import type { ConformanceFixture, ConformanceMandates } from '../../../../../test/support/psp-conformance.ts';
import type { BuyerDetails, PostalAddress } from '../../../../domain/buyer.ts';
import type { MandateRef } from '../../../../domain/mandates.ts';
import type { PspSession } from '../../../../domain/payment-link.ts';
import { fromPspMinorUnits, pspMinorUnits } from '../../../../domain/psp-rules.ts';
import { adyen } from '../descriptor.ts';
import { ADYEN_FAKE, type FakeAdyen, type FakeShopper, type NotificationItem } from './fake.ts';

/** An address in Adyen's shape: the street and the house number apart, as its page asks them. */
function adyenAddress(address: PostalAddress): Record<string, string> {
  const [, street = address.line1, house = ''] = /^(.*?)\s+(\S+)$/.exec(address.line1) ?? [];
  return {
    street,
    houseNumberOrName: house,
    postalCode: address.postal_code ?? '',
    city: address.city,
    country: address.country,
  };
}

/** What a shopper types in the fields a payment link requires, from the details of our buyer. */
function shopperOf(buyer: BuyerDetails): FakeShopper {
  const [firstName = '', ...rest] = (buyer.name ?? '').split(' ');
  return {
    ...(buyer.email ? { shopperEmail: buyer.email } : {}),
    ...(buyer.phone ? { telephoneNumber: buyer.phone } : {}),
    ...(buyer.name ? { shopperName: { firstName, lastName: rest.join(' ') } } : {}),
    ...(buyer.billing_address ? { billingAddress: adyenAddress(buyer.billing_address) } : {}),
    ...(buyer.shipping_address ? { deliveryAddress: adyenAddress(buyer.shipping_address) } : {}),
  };
}

/** A payment's `resultCode` in our words: Adyen's final word on a `Received` one comes by notification. */
const stateOfResult = (resultCode: string): 'succeeded' | 'pending' | 'failed' => {
  if (resultCode === 'Authorised') return 'succeeded';
  return resultCode === 'Received' || resultCode === 'Pending' ? 'pending' : 'failed';
};

/**
 * The fake's tokens and the payments made with them, for the mandate scenarios. No `settleCharge`: Adyen settles a
 * pending renewal only by its AUTHORISATION notification (its mandates are cards only, answered at once); no trials.
 */
function mandatesAt(fake: FakeAdyen): ConformanceMandates {
  return {
    async charges(mandate: MandateRef) {
      return fake.mandates.renewals
        .filter((renewal) => renewal.tokenId === mandate.reference)
        .map((renewal) => ({
          amount: fromPspMinorUnits(adyen.amounts, renewal.amount.value, renewal.amount.currency),
          state: stateOfResult(renewal.resultCode),
        }));
    },
    nextCharge: (outcome) => fake.mandates.nextCharge(outcome),
  };
}

/**
 * Adyen under the conformance suite: its fake's payment links as the shopper and Adyen leave them, and the
 * notifications Adyen posts, each item signed with the connection's HMAC key (a refund's outcome comes only so:
 * Adyen has no API to read a refund back).
 */
export const conformance: ConformanceFixture = {
  provider: 'adyen',
  async start() {
    const { credentials } = ADYEN_FAKE;
    const fake = await ADYEN_FAKE.start();
    /** The AUTHORISATION each paid link's notification carries. */
    const authorisations = new Map<string, NotificationItem>();
    const stored = (session: PspSession) => {
      const found = fake.paymentLinks.get(session.id);
      if (!found) throw new Error(`no Adyen payment link ${session.id}`);
      return found;
    };
    const signed = (items: NotificationItem[], hmacKey: string = credentials.hmac_key) => ({
      body: fake.notification(items, { hmacKey }),
      headers: { 'content-type': 'application/json' },
    });
    return {
      apiUrl: fake.apiUrl,
      credentials,
      async session(session) {
        const link = stored(session);
        const lines = link.lineItems as { description: string; quantity: number }[] | undefined;
        return {
          amount: fromPspMinorUnits(adyen.amounts, link.amount.value, link.amount.currency),
          lines: lines?.map((line) => ({ name: line.description, quantity: line.quantity })) ?? null,
          locale: (link.shopperLocale as string | undefined) ?? null,
          references: [link.reference, ...Object.values((link.metadata ?? {}) as Record<string, string>)],
        };
      },
      async pay(session, buyer) {
        authorisations.set(session.id, fake.pay(session.id, shopperOf(buyer)));
      },
      async decline() {
        // A refused card leaves Adyen's payment link active, for the shopper to try again.
      },
      async notification(session, signing) {
        const item = authorisations.get(session.id);
        if (!item) throw new Error(`no payment on ${session.id}`);
        if (signing === 'other_key') return signed([item], 'A1'.repeat(32));
        const genuine = signed([item]);
        if (signing === 'genuine') return genuine;
        // The same signature over another amount.
        const body = JSON.parse(genuine.body) as {
          notificationItems: { NotificationRequestItem: NotificationItem }[];
        };
        for (const { NotificationRequestItem: forged } of body.notificationItems) forged.amount.value += 1;
        return { ...genuine, body: JSON.stringify(body) };
      },
      reportAmount(session, amount) {
        stored(session).amount = {
          value: Number(pspMinorUnits(adyen.amounts, amount)),
          currency: amount.currency,
        };
      },
      outage(kind) {
        fake.outage = kind;
        return undefined;
      },
      async settleRefund(reference, outcome) {
        return signed([fake.refundItem(reference, outcome === 'succeeded' ? 'succeeded' : 'failed')]);
      },
      mandates: mandatesAt(fake),
      stop: () => fake.stop(),
    };
  },
};
