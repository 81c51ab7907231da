import { afterAll, beforeAll, describe, it, type TestContext } from 'vitest';
import { PSP_FACTORIES } from '../../functions/adapters/psp/factories.ts';
import { PSP_DESCRIPTORS, type PspId } from '../../functions/adapters/psp/registry.ts';
import type { BuyerDetails, NeededDetail } from '../../functions/domain/buyer.ts';
import { newConnectionId, type PspConnection } from '../../functions/domain/connection.ts';
import type { MandateRef } from '../../functions/domain/mandates.ts';
import type { Amount } from '../../functions/domain/money.ts';
import type { PspSession } from '../../functions/domain/payment-link.ts';
import type { Psp, SessionRequest } from '../../functions/ports/psp.ts';
import type { Capability, PspDescriptor, PspRuntime } from '../../functions/ports/psp-descriptor.ts';
import { trustFakePspCertificate } from './fake-psp-server.ts';
import { testPspRuntime } from './psp-fakes.ts';
import { storedConnection } from './psp-fixtures.ts';

/**
 * What the conformance suite (test/integration/psp-conformance-*.test.ts, docs/orchestration.md#conformance)
 * needs of one PSP to run its scenarios through the PSP's adapter and official SDK against its fake. Each PSP's
 * folder exports one as `conformance` from `test/conformance.ts`; the suite finds it by the registry's ids, so a
 * registered PSP without one fails the suite. The suite does everything else itself: it builds the adapter with
 * the registry's factory (the credentials checked by the descriptor, as the service does), opens the sessions,
 * and skips, by name, a scenario whose capability the descriptor does not declare.
 */
export interface ConformanceFixture {
  /** Its PSP's id (the registry's). */
  readonly provider: string;
  /** The currency its scenarios charge: EUR unless its PSP takes none (its descriptor's amount rules). */
  readonly currency?: string;
  /** Starts its fake (a server, or whatever stands for the PSP); the suite stops it after its scenarios. */
  start(): Promise<ConformanceFake>;
}

/** A running fake, and what a test does at the PSP (as its buyer, as the PSP itself) in the PSP's own format. */
export interface ConformanceFake {
  /** What its `<ID>_API_URL` is set to, so that its adapter calls the fake; undefined: it needs none. */
  readonly apiUrl: string | undefined;
  /** Credentials of a test-mode connection the fake accepts, as `npm run psp -- add` stores them; null: none. */
  readonly credentials: Readonly<Record<string, string>> | null;
  /** Fields of the connection beyond the suite's own (test mode, a fresh id, `secret_name`), if it needs any. */
  readonly connection?: Partial<PspConnection>;
  /** What its factory is handed beyond the secrets, `apiUrl` and a clock (the sandbox's own store). */
  readonly runtime?: Partial<Pick<PspRuntime, 'sandbox' | 'baseUrl'>>;

  /** What the PSP holds of a session the adapter opened, in our words (how the scenarios check what was sent). */
  session(session: PspSession): Promise<ConformanceSessionView>;
  /**
   * The buyer pays on the PSP's page and gives `buyer` where it asks. A PSP that takes the money only when we
   * capture (`captures_later`) is left approved or authorized, for the suite to capture or void. On a session
   * opened with `opensMandate`, the buyer agrees to later charges: the mandate is set up at the PSP (without a
   * charge on a trial's session, `withoutCharge`), as `mandateOf` then reads it.
   */
  pay(session: PspSession, buyer: BuyerDetails): Promise<void>;
  /** The buyer's payment on the session is declined (by the issuer, or the PSP's risk checks). */
  decline(session: PspSession): Promise<void>;
  /**
   * A notification as the PSP sends it about the session, once `pay` made one due: the raw body and headers.
   * `genuine`: as the PSP signs it for this connection; `forged`: its body changed after signing (or, for a PSP
   * whose notifications carry only an id to look up, an id it does not know); `other_key`: signed for another
   * connection (another key, or an id of another account).
   */
  notification(session: PspSession, signing: 'genuine' | 'forged' | 'other_key'): Promise<RawNotification>;
  /** From now on, the PSP reports `amount` as what the session charges (its page charged another amount). */
  reportAmount(session: PspSession, amount: Amount): void;
  /**
   * Makes every call the adapter makes fail as `kind` says (`error`: a 5xx; `hang`: no answer at all), or
   * answer again (`none`). A PSP whose outages its connection simulates (the sandbox) answers with the fields of
   * a connection that simulates it, which the suite builds its adapter from.
   */
  outage(kind: 'none' | 'error' | 'hang'): Partial<PspConnection> | undefined;
  /**
   * Settles a refund the PSP answered `pending` (declared `refunds` only; absent: its refunds settle at once).
   * A PSP that tells a refund's outcome only by notification (no API to read a refund back) answers that
   * notification, which the suite has the adapter verify before it reads the refund back.
   */
  settleRefund?(reference: string, outcome: 'succeeded' | 'failed'): Promise<RawNotification | undefined>;
  /** Its mandates (test/integration/psp-conformance-mandates.test.ts): required of a PSP that declares `holds_mandates`. */
  mandates?: ConformanceMandates;
  stop(): Promise<void>;
}

/**
 * How the fake answers the next charge on a mandate: declined softly (insufficient funds), hard (a closed account,
 * a lost card), asking for the buyer (authentication); `pending` (a bank debit, settled by `settleCharge`);
 * `revoked`: its mandate is withdrawn at the PSP first (by the buyer, at their bank) and stays so.
 */
export type ConformanceChargeOutcome =
  | 'soft_decline'
  | 'hard_decline'
  | 'authentication_required'
  | 'pending'
  | 'revoked';

/** What a PSP's fake holds of its mandates and how it is told to answer their charges (`holds_mandates`). */
export interface ConformanceMandates {
  /**
   * The charges the PSP took up on the mandate so far, oldest first, in our words: the session's own payment is
   * not one, nor is a request repeated under its idempotency key (the PSP answers it again, charging nothing);
   * a declined one is `failed`. A request the PSP refused before charging (a revoked mandate) may be absent.
   */
  charges(mandate: MandateRef): Promise<{ amount: Amount; state: 'succeeded' | 'pending' | 'failed' }[]>;
  /**
   * The next charge on any mandate of this fake is answered so (once: the charges after it succeed again, on a
   * mandate still usable). Without it, a charge succeeds at once. `pending` only where `settleCharge` is given.
   */
  nextCharge(outcome: ConformanceChargeOutcome): void;
  /** Settles a charge answered `pending`; absent: the PSP answers every charge at once. */
  settleCharge?(reference: string, outcome: 'succeeded' | 'failed'): Promise<void>;
}

/** What a PSP holds of a session, in our words. */
export interface ConformanceSessionView {
  /** What its page will charge. */
  amount: Amount;
  /** The lines its page shows (name and quantity); null when the PSP was sent none (one line at the amount). */
  lines: { name: string; quantity: number }[] | null;
  /** The language its page speaks (`nl`, `nl-BE`), as the PSP spells it; null when it was told none. */
  locale: string | null;
  /**
   * Every value of ours the PSP's object carries (metadata, references, description), flattened: our payment and
   * link ids must be among them, so that its notifications and statuses name them.
   */
  references: string[];
}

export interface RawNotification {
  body: string;
  headers: Record<string, string>;
}

/** Where the suite finds a PSP's fixture: `<its folder>/test/conformance.ts`, exporting `conformance`. */
export const conformanceModuleOf = (descriptor: Pick<PspDescriptor, 'id'>): URL =>
  new URL(
    `../../functions/adapters/psp/${descriptor.id.replaceAll('_', '-')}/test/conformance.ts`,
    import.meta.url,
  );

/** A PSP under the suite: its fake, and adapters of test-mode connections to it, built as the service builds them. */
export interface ConformanceRun {
  readonly descriptor: PspDescriptor;
  readonly fake: ConformanceFake;
  /** The currency of its scenarios' amounts (`ConformanceFixture.currency`). */
  readonly currency: string;
  /** An adapter of a new connection (with `changes`), from the registry's factory of its PSP. */
  adapter(changes?: Partial<PspConnection>): Promise<{ psp: Psp; connection: PspConnection }>;
}

/**
 * Starts `descriptor`'s fixture before a file's scenarios and stops it after them: read `run()` inside the tests.
 * The fakes that speak HTTPS are trusted for the file's worker.
 */
export function useConformance(descriptor: PspDescriptor): () => ConformanceRun {
  let run: ConformanceRun | undefined;
  let untrust = () => {};
  beforeAll(async () => {
    untrust = trustFakePspCertificate();
    const { conformance } = (await import(conformanceModuleOf(descriptor).href)) as {
      conformance: ConformanceFixture;
    };
    if (conformance.provider !== descriptor.id)
      throw new Error(`${descriptor.id}: its fixture is another PSP's`);
    const fake = await conformance.start();
    run = {
      descriptor,
      fake,
      currency: conformance.currency ?? 'EUR',
      adapter: (changes) => adapterAt(descriptor, fake, changes),
    };
  });
  afterAll(async () => {
    await run?.fake.stop();
    untrust();
  });
  return () => {
    if (!run) throw new Error(`${descriptor.id}: its fixture has not started`);
    return run;
  };
}

/**
 * A suite file's scenarios for every registered PSP, each PSP in a block named by its id with its fixture started
 * (`useConformance`): read `run()` inside the tests.
 */
export function forEveryPsp(
  scenarios: (descriptor: PspDescriptor, run: () => ConformanceRun) => void,
  options: { concurrent?: boolean } = {},
): void {
  const cases = PSP_DESCRIPTORS.map((descriptor) => [descriptor.id, descriptor] as const);
  if (!options.concurrent) {
    describe.each(cases)('%s', (_, descriptor) => scenarios(descriptor, useConformance(descriptor)));
    return;
  }
  // The PSPs' blocks at once, each block's scenarios one after another (they share its fake): for a file whose
  // scenarios wait rather than work, so that the waits overlap.
  describe.concurrent.each(cases)('%s', (_, descriptor) => {
    describe('one after another', { concurrent: false }, () =>
      scenarios(descriptor, useConformance(descriptor)),
    );
  });
}

/** A fresh connection's adapter: its credentials in an in-memory secret store, its calls sent to the fake. */
/** A buyer who gives every detail a PSP's page may ask. */
export const BUYER: Required<Omit<BuyerDetails, 'shipping_address'>> &
  Pick<BuyerDetails, 'shipping_address'> = {
  email: 'buyer@example.com',
  name: 'Jane Buyer',
  phone: '+31612345678',
  billing_address: { line1: 'Keizersgracht 1', city: 'Amsterdam', postal_code: '1015 CJ', country: 'NL' },
  shipping_address: { line1: 'Damrak 1', city: 'Amsterdam', postal_code: '1012 LG', country: 'NL' },
};

/**
 * Our page asks what a PSP needs before any session (docs/checkout.md#details-a-psp-needs), so the sessions the
 * suite opens carry the buyer's answers to those, as the checkout's do.
 */
function withNeededDetails(psp: Psp, needs: readonly NeededDetail[]): Psp {
  const buyer = Object.fromEntries(needs.map((detail) => [detail, BUYER[detail]])) as BuyerDetails;
  return new Proxy(psp, {
    get(target, key) {
      if (key === 'createSession')
        return (request: SessionRequest) =>
          target.createSession({ ...request, buyer: request.buyer ?? buyer });
      const value = Reflect.get(target, key);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

async function adapterAt(
  descriptor: PspDescriptor,
  fake: ConformanceFake,
  changes: Partial<PspConnection> = {},
) {
  const connection: PspConnection = {
    ...storedConnection(descriptor.id, 'test', newConnectionId()),
    ...(fake.credentials ? {} : { secret_name: null }),
    ...fake.connection,
    ...changes,
  };
  const secrets = new Map(
    connection.secret_name && fake.credentials
      ? [[connection.secret_name, JSON.stringify(fake.credentials)]]
      : [],
  );
  const runtime = { ...testPspRuntime({ secrets, apiUrl: fake.apiUrl }), ...fake.runtime };
  const built = await PSP_FACTORIES[descriptor.id as PspId](runtime).create(connection);
  const psp = descriptor.needs?.length ? withNeededDetails(built, descriptor.needs) : built;
  return { psp, connection };
}

/**
 * A scenario of the suite: run when the PSP's descriptor declares `capability` (or it is the core), and must then
 * pass; otherwise skipped by name ("sandbox: line items: not declared").
 */
export function scenario(
  descriptor: PspDescriptor,
  name: string,
  capability: Capability | undefined,
  test: (context: TestContext) => Promise<void>,
  timeout?: number,
): void {
  if (capability && !descriptor.capabilities.includes(capability)) {
    it.skip(`${descriptor.id}: ${capability.replaceAll('_', ' ')}: not declared`, test);
  } else {
    it(`${descriptor.id}: ${name}`, { timeout }, test);
  }
}
