import Stripe from 'stripe';
import { afterAll, beforeAll } from 'vitest';
import { AdyenPspFactory } from '../../functions/adapters/psp/adyen-psp.ts';
import { MolliePspFactory } from '../../functions/adapters/psp/mollie-psp.ts';
import { StripePsp } from '../../functions/adapters/psp/stripe-psp.ts';
import type { PspConnection } from '../../functions/domain/connection.ts';
import type { Psp } from '../../functions/ports/psp.ts';
import { type FakeAdyen, startFakeAdyen } from './fake-adyen.ts';
import { type FakeMollie, startFakeMollie } from './fake-mollie.ts';
import { trustFakePspCertificate } from './fake-psp-server.ts';
import { type FakeStripe, startFakeStripe } from './fake-stripe.ts';
import { storedConnection } from './psp-fixtures.ts';

/**
 * One fixture for tests of the adapters themselves (no stack): each hosted-page PSP's adapter, through its
 * official SDK, against its fake, with one stored test-mode connection each.
 */
type HostedProvider = 'stripe' | 'mollie' | 'adyen';

export const FAKE_ADAPTER_CREDENTIALS = {
  stripe: { secret_key: 'sk_test_adapters', webhook_secret: 'whsec_x' },
  mollie: { api_key: 'test_dHar4XY7LxsDOtmnkVtjNVWXLSlXsM' },
  adyen: {
    api_key:
      'AQEyhmfxKonIYxZGw0m/n3Q5qf3VaY9UCJ14XWZE03G/k2NFitRvbe4N1XqH1eHaH2AksaEQwV1bDb7kfNy1WIxIIkxgBw==-test',
    merchant_account: 'AcmeECOM',
    hmac_key: '44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056',
    environment: 'test',
  },
};

/** The connections a test file's adapters serve, named after the file (`tag`) so that logs tell them apart. */
export function fakePspConnections(tag: string): Record<HostedProvider, PspConnection> {
  const at = (provider: HostedProvider) =>
    storedConnection(provider, 'test', `pc_${provider}${tag}`.padEnd(28, '0'));
  return { stripe: at('stripe'), mollie: at('mollie'), adyen: at('adyen') };
}

export interface PspAdapters {
  fakes: { stripe: FakeStripe; mollie: FakeMollie; adyen: FakeAdyen };
  psps: Record<HostedProvider, Psp>;
  stop(): Promise<void>;
}

/** Starts the three fakes and builds an adapter for each of `connections` (`fakePspConnections`). */
export async function startPspAdapters(
  connections: Record<HostedProvider, PspConnection>,
): Promise<PspAdapters> {
  const untrust = trustFakePspCertificate();
  const {
    stripe: stripeCredentials,
    mollie: mollieCredentials,
    adyen: adyenCredentials,
  } = FAKE_ADAPTER_CREDENTIALS;
  const stripe = await startFakeStripe({ secretKey: stripeCredentials.secret_key });
  const mollie = await startFakeMollie({ apiKeys: [mollieCredentials.api_key] });
  const adyen = await startFakeAdyen({
    apiKeys: [adyenCredentials.api_key],
    merchantAccount: adyenCredentials.merchant_account,
  });
  const secrets = new Map([
    [connections.mollie.secret_name as string, JSON.stringify(mollieCredentials)],
    [connections.adyen.secret_name as string, JSON.stringify(adyenCredentials)],
  ]);
  const secretStore = { get: async (name: string) => secrets.get(name) };
  const psps = {
    stripe: new StripePsp(Stripe, stripeCredentials, connections.stripe, stripe.endpoint),
    mollie: await new MolliePspFactory({ secrets: secretStore, apiEndpoint: mollie.apiEndpoint }).create(
      connections.mollie,
    ),
    adyen: await new AdyenPspFactory({ secrets: secretStore, apiUrl: adyen.url }).create(connections.adyen),
  };
  return {
    fakes: { stripe, mollie, adyen },
    psps,
    stop: async () => {
      await Promise.all([stripe.stop(), mollie.stop(), adyen.stop()]);
      untrust();
    },
  };
}

/**
 * The adapters of one test file: started before its tests and stopped after them. The objects returned are
 * filled in when the file starts, so tests read `fakes.stripe` and `psps.mollie` as they run.
 */
export function usePspAdapters(tag: string) {
  const connections = fakePspConnections(tag);
  const fakes = {} as PspAdapters['fakes'];
  const psps = {} as PspAdapters['psps'];
  let stop = async () => {};
  beforeAll(async () => {
    const started = await startPspAdapters(connections);
    Object.assign(fakes, started.fakes);
    Object.assign(psps, started.psps);
    stop = started.stop;
  });
  afterAll(() => stop());
  return { connections, fakes, psps };
}
