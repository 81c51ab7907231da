import type { PspConnection } from '../../functions/domain/connection.ts';
import type { PaymentMethod } from '../../functions/domain/payment-methods.ts';
import type { Mode } from '../../functions/domain/principal.ts';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { addConnection } from './connections.ts';
import { trustFakePspCertificate } from './fake-psp-server.ts';
import { apiUrlSetting, type FakeOf, type PspFakeDefinition } from './psp-fakes.ts';
import { startTestStack, type TestStack } from './test-stack.ts';
import { type Receiver, startReceiver } from './webhooks.ts';

/**
 * The stack shape of the tests that pay through real PSP SDKs: a local stack whose functions reach the fakes a
 * test names (each PSP's `test/fake.ts`, speaking its wire format, `FAKES` below), each PSP's `<ID>_API_URL`
 * pointing its adapter at its fake. One per test file, started in its `beforeAll`:
 *
 *   const FAKES = { acme: ACME_FAKE };
 *   let psps: PspStack<typeof FAKES>;
 *   psps = await startPspStack({ fakes: FAKES });   // psps.acme is the running fake
 */
// biome-ignore lint/suspicious/noExplicitAny: each fake is its own type, kept by `FakeOf`.
type Fakes = Record<string, PspFakeDefinition<any>>;

interface PspStackBase<F extends Fakes> {
  stack: TestStack;
  /**
   * Stores a connection of `account` to that fake, with its credentials (sandbox: one that always works), serving
   * `methods` (`--methods`) when given, else every method.
   */
  connect(
    account: string,
    provider: (keyof F & string) | 'sandbox',
    mode?: Mode,
    methods?: PaymentMethod[],
  ): Promise<PspConnection>;
  stop(): Promise<void>;
}

/** The stack and, under its name, each fake the test named. */
export type PspStack<F extends Fakes> = PspStackBase<F> & { readonly [P in keyof F]: FakeOf<F[P]> };

export async function startPspStack<const F extends Fakes>(options: {
  fakes: F;
  stack?: Parameters<typeof startTestStack>[0];
}): Promise<PspStack<F>> {
  const untrust = trustFakePspCertificate();
  const definitions = Object.entries(options.fakes);
  const started = await Promise.all(definitions.map(([, definition]) => definition.start()));
  const running = Object.fromEntries(definitions.map(([name], index) => [name, started[index]]));
  const stack = await startTestStack({
    ...options.stack,
    // Forked into bundled containers too.
    environment: {
      ...options.stack?.environment,
      ...Object.fromEntries(
        definitions.map(([, definition], index) => [
          apiUrlSetting(definition.provider),
          started[index]?.apiUrl,
        ]),
      ),
    },
  });
  const connect: PspStackBase<F>['connect'] = (account, provider, mode = 'test', methods) =>
    addConnection({
      account,
      mode,
      methods,
      provider: provider === 'sandbox' ? 'sandbox' : (options.fakes[provider]?.provider ?? provider),
      name: provider,
      ...(provider === 'sandbox'
        ? { simulate: 'ok' as const }
        : { credentials: { ...options.fakes[provider]?.credentials } }),
    });
  return {
    ...(running as { [P in keyof F]: FakeOf<F[P]> }),
    stack,
    connect,
    async stop() {
      await stack.stop();
      await Promise.all(started.map((fake) => fake.stop()));
      untrust();
    },
  };
}

/** A merchant paying through one PSP's fake: its stack, API key, connection, and the webhook receiver it signs for. */
export interface PspMerchant<F extends Fakes> {
  psps: PspStack<F>;
  key: IssuedApiKey;
  connection: PspConnection;
  hooks: Receiver;
  /** The secret of the receiver's endpoint, subscribed to `payment_link.paid` and `refund.succeeded`. */
  hookSecret: string;
  stop(): Promise<void>;
}

/**
 * A stack with `fakes`, and `account` with a key, a connection to `provider`'s fake (or to the sandbox, which
 * needs none) and a webhook endpoint.
 */
export async function startPspMerchant<const F extends Fakes>(
  fakes: F,
  account: string,
  provider: (keyof F & string) | 'sandbox',
): Promise<PspMerchant<F>> {
  const psps = await startPspStack({ fakes });
  const key = await psps.stack.issueKey(account, 'test');
  const connection = await psps.connect(account, provider);
  const hooks = await startReceiver();
  const endpoint = await psps.stack.request('POST', '/v1/webhook-endpoints', {
    key: key.api_key,
    body: { url: hooks.url, enabled_events: ['payment_link.paid', 'refund.succeeded'] },
  });
  return {
    psps,
    key,
    connection,
    hooks,
    hookSecret: endpoint.body.secret,
    async stop() {
      await hooks.close();
      await psps.stop();
    },
  };
}
