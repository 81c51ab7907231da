import type { PspConnection } from '../../functions/domain/connection.ts';
import type { Mode } from '../../functions/domain/principal.ts';
import { FAKE_CHECKOUT_CREDENTIALS } from './checkout-adapter.ts';
import { addConnection } from './connections.ts';
import { type FakeAdyen, startFakeAdyen } from './fake-adyen.ts';
import { type FakeCheckout, startFakeCheckout } from './fake-checkout.ts';
import { type FakeMollie, startFakeMollie } from './fake-mollie.ts';
import { type FakePaypal, startFakePaypal } from './fake-paypal.ts';
import { trustFakePspCertificate } from './fake-psp-server.ts';
import { type FakeStripe, startFakeStripe } from './fake-stripe.ts';
import { startTestStack, type TestStack } from './test-stack.ts';

/**
 * The stack shape of the tests that pay through real PSP SDKs: a local stack whose functions reach a fake of
 * each PSP's wire format (test/support/fake-*.ts) over TLS. One per test file, started in its `beforeAll`.
 */

export type FakeProvider = 'stripe' | 'mollie' | 'adyen';
/** PayPal's and Checkout.com's fakes are started only when asked for (`providers`): the tests of the three others
 * never need them. */
export type StartableProvider = FakeProvider | 'paypal' | 'checkout';

/** Credentials the fakes accept, in each PSP's own format (what `npm run psp -- add` stores for a connection). */
export const FAKE_PSP_CREDENTIALS = {
  stripe: { secret_key: 'sk_test_fakepsp_123', webhook_secret: 'whsec_fakepsp_456' },
  mollie: { api_key: 'test_fakepspMollie7LxsDOtmnkVtjNVWXL' },
  adyen: {
    api_key: 'AQE-fakepsp-adyen-test-key',
    merchant_account: 'AdyenFakePspECOM',
    hmac_key: '44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056',
    environment: 'test',
  },
  paypal: {
    client_id: 'AfakepspPaypalClient_0123456789',
    client_secret: 'EfakepspPaypalSecret_0123456789',
    webhook_id: '4JH86294D6297924G',
    environment: 'sandbox',
  },
  checkout: FAKE_CHECKOUT_CREDENTIALS,
} as const;

export interface PspStack {
  stack: TestStack;
  /** The fakes started (those named in `providers`). */
  stripe: FakeStripe;
  mollie: FakeMollie;
  adyen: FakeAdyen;
  paypal: FakePaypal;
  checkout: FakeCheckout;
  /** Stores a connection of `account` to that fake, with its credentials (sandbox: one that always works). */
  connect(account: string, provider: StartableProvider | 'sandbox', mode?: Mode): Promise<PspConnection>;
  stop(): Promise<void>;
}

export async function startPspStack(
  options: { providers?: readonly StartableProvider[]; stack?: Parameters<typeof startTestStack>[0] } = {},
): Promise<PspStack> {
  const providers = new Set<StartableProvider>(options.providers ?? ['stripe', 'mollie', 'adyen']);
  const untrust = trustFakePspCertificate();
  const credentials = FAKE_PSP_CREDENTIALS;
  const [stripe, mollie, adyen, paypal, checkout] = await Promise.all([
    providers.has('stripe') ? startFakeStripe({ secretKey: credentials.stripe.secret_key }) : undefined,
    providers.has('mollie') ? startFakeMollie({ apiKeys: [credentials.mollie.api_key] }) : undefined,
    providers.has('adyen')
      ? startFakeAdyen({
          apiKeys: [credentials.adyen.api_key],
          merchantAccount: credentials.adyen.merchant_account,
        })
      : undefined,
    providers.has('paypal')
      ? startFakePaypal({
          clientId: credentials.paypal.client_id,
          clientSecret: credentials.paypal.client_secret,
          webhookId: credentials.paypal.webhook_id,
        })
      : undefined,
    providers.has('checkout')
      ? startFakeCheckout({
          secretKeys: [credentials.checkout.secret_key],
          processingChannelId: credentials.checkout.processing_channel_id,
          signatureKey: credentials.checkout.signature_key,
        })
      : undefined,
  ]);
  const stack = await startTestStack({
    ...options.stack,
    // Forked into bundled containers too.
    environment: {
      ...options.stack?.environment,
      ...(stripe && { STRIPE_API_URL: stripe.url }),
      ...(mollie && { MOLLIE_API_URL: mollie.apiEndpoint }),
      ...(adyen && { ADYEN_API_URL: adyen.url }),
      ...(paypal && { PAYPAL_API_URL: paypal.url }),
      ...(checkout && { CHECKOUT_API_URL: checkout.url }),
    },
  });
  const started = <T>(fake: T | undefined, provider: StartableProvider): T => {
    if (!fake) throw new Error(`startPspStack was not asked for a fake ${provider}`);
    return fake;
  };
  return {
    stack,
    get stripe() {
      return started(stripe, 'stripe');
    },
    get mollie() {
      return started(mollie, 'mollie');
    },
    get adyen() {
      return started(adyen, 'adyen');
    },
    get paypal() {
      return started(paypal, 'paypal');
    },
    get checkout() {
      return started(checkout, 'checkout');
    },
    connect: (account, provider, mode = 'test') =>
      addConnection({
        account,
        mode,
        provider,
        name: provider,
        ...(provider === 'sandbox'
          ? { simulate: 'ok' as const }
          : { credentials: { ...credentials[provider] } }),
      }),
    async stop() {
      await stack.stop();
      await Promise.all([stripe?.stop(), mollie?.stop(), adyen?.stop(), paypal?.stop(), checkout?.stop()]);
      untrust();
    },
  };
}
