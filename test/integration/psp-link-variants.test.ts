import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdyenPspFactory } from '../../functions/adapters/psp/adyen-psp.ts';
import { MolliePspFactory } from '../../functions/adapters/psp/mollie-psp.ts';
import { StripePsp } from '../../functions/adapters/psp/stripe-psp.ts';
import type { Psp } from '../../functions/ports/psp.ts';
import { type FakeAdyen, startFakeAdyen } from '../support/fake-adyen.ts';
import { type FakeMollie, startFakeMollie } from '../support/fake-mollie.ts';
import { trustFakePspCertificate } from '../support/fake-psp-server.ts';
import { type FakeStripe, startFakeStripe } from '../support/fake-stripe.ts';
import { checkoutReturn, orderLink, storedConnection } from '../support/psp-fixtures.ts';

/**
 * What the link's options become at each PSP (docs/checkout.md#what-each-psp-receives): each adapter, through its
 * official SDK, against a fake that refuses what the real PSP refuses (values outside its OpenAPI enums, sums
 * that do not add up).
 */
const stripeConnection = storedConnection('stripe', 'test', 'pc_stripevariants000000000000');
const mollieConnection = storedConnection('mollie', 'test', 'pc_mollievariants000000000000');
const adyenConnection = storedConnection('adyen', 'test', 'pc_adyenvariants0000000000000');
const mollieKey = 'test_dHar4XY7LxsDOtmnkVtjNVWXLSlXsM';
const adyenCredentials = {
  api_key:
    'AQEyhmfxKonIYxZGw0m/n3Q5qf3VaY9UCJ14XWZE03G/k2NFitRvbe4N1XqH1eHaH2AksaEQwV1bDb7kfNy1WIxIIkxgBw==-test',
  merchant_account: 'AcmeECOM',
  hmac_key: '44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056',
  environment: 'test',
};

let stripe: FakeStripe;
let mollie: FakeMollie;
let adyen: FakeAdyen;
let untrust: () => void;
const psps = {} as Record<'stripe' | 'mollie' | 'adyen', Psp>;

beforeAll(async () => {
  untrust = trustFakePspCertificate();
  stripe = await startFakeStripe({ secretKey: 'sk_test_variants' });
  mollie = await startFakeMollie({ apiKeys: [mollieKey] });
  adyen = await startFakeAdyen({ apiKeys: [adyenCredentials.api_key], merchantAccount: 'AcmeECOM' });
  const secrets = new Map([
    [mollieConnection.secret_name as string, JSON.stringify({ api_key: mollieKey })],
    [adyenConnection.secret_name as string, JSON.stringify(adyenCredentials)],
  ]);
  const secretStore = { get: async (name: string) => secrets.get(name) };
  psps.stripe = new StripePsp(
    Stripe,
    { secret_key: 'sk_test_variants', webhook_secret: 'whsec_x' },
    stripeConnection,
    stripe.endpoint,
  );
  psps.mollie = await new MolliePspFactory({ secrets: secretStore, apiEndpoint: mollie.apiEndpoint }).create(
    mollieConnection,
  );
  psps.adyen = await new AdyenPspFactory({ secrets: secretStore, apiUrl: adyen.url }).create(adyenConnection);
});
afterAll(async () => {
  await Promise.all([stripe.stop(), mollie.stop(), adyen.stop()]);
  untrust();
});

const lastBody = (fake: FakeMollie | FakeAdyen) => JSON.parse(fake.requests.at(-1)?.body ?? '{}');

describe("the buyer's locale at each PSP", () => {
  it.each([
    ['nl', 'nl', 'nl_NL', 'nl-NL'],
    ['nl-BE', 'nl', 'nl_BE', 'nl-BE'],
    ['en-GB', 'en-GB', 'en_GB', 'en-GB'],
    ['de-AT', 'de', 'de_AT', 'de-AT'],
    ['fr', 'fr', 'fr_FR', 'fr-FR'],
    ['es-MX', 'es', 'es_ES', 'es-MX'],
  ])(
    '%s goes to Stripe as %s, to Mollie as %s and to Adyen as %s',
    async (locale, atStripe, atMollie, atAdyen) => {
      await psps.stripe.createSession(
        orderLink('10.00'),
        checkoutReturn(stripeConnection, undefined, locale),
      );
      expect(stripe.requests.at(-1)?.form.locale).toBe(atStripe);
      await psps.mollie.createSession(
        orderLink('10.00'),
        checkoutReturn(mollieConnection, undefined, locale),
      );
      expect(lastBody(mollie).locale).toBe(atMollie);
      await psps.adyen.createSession(orderLink('10.00'), checkoutReturn(adyenConnection, undefined, locale));
      expect(lastBody(adyen).shopperLocale).toBe(atAdyen);
    },
  );
});
