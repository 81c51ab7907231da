import {
  BUILT_IN_SANDBOX_ID,
  builtInSandbox,
  migratedConnectionId,
  type PspConnection,
} from '../domain/connection.ts';
import type { ConnectionHealth } from '../domain/connection-health.ts';
import { ConnectionInUseError, PspNotConfiguredError } from '../domain/errors.ts';
import { paidPayment } from '../domain/link-payments.ts';
import type { PaymentLink, PspPayment, PspSession, Refund } from '../domain/payment-link.ts';
import type { Mode } from '../domain/principal.ts';
import type { PspRules } from '../domain/psp-rules.ts';
import type { RefundOutcome, RefundRules } from '../domain/refund.ts';
import type { Routing } from '../domain/routing.ts';
import type { PaymentRepository } from '../ports/payment-repository.ts';
import { type Psp, type PspFactory, pspFailureOf, type SessionEnd } from '../ports/psp.ts';
import { canEndSessions, canRefund, type Refunds } from '../ports/psp-capabilities.ts';
import type { PspConfigRepository } from '../ports/psp-config-repository.ts';
import type { ConnectionDirectory, PspConnectionRepository } from '../ports/psp-connections.ts';
import {
  type CreatePspFactory,
  namesPsp,
  type PspDescriptor,
  type PspRuntime,
} from '../ports/psp-descriptor.ts';
import type { RefundLedger } from '../ports/refund-ledger.ts';
import { type PaymentRefunds, refundOutcomeOf } from './refunds.ts';
import type { PspSessions, SessionEnding } from './session-endings.ts';

export interface PspConnectionsOptions {
  repository: PspConnectionRepository;
  /** Where (account, mode)s configured before connections existed keep their one provider. */
  legacyConfigs: PspConfigRepository;
  /** The registered PSPs (functions/adapters/psp/registry.ts). */
  descriptors: readonly PspDescriptor[];
  /**
   * Each PSP's factory, by id, built on the first use of one of its connections; absent for an instance that
   * talks to no PSP (the merchant API's connection listings), whose `adapter` then refuses.
   */
  factories?: Readonly<Record<string, CreatePspFactory>>;
  /** What each PSP's factory is handed (its own `<ID>_API_URL`). */
  runtime?: (descriptor: PspDescriptor) => PspRuntime;
  /** The prefix of PSP credential secrets (`PSP_SECRET_PREFIX`): a legacy configuration's secret is named on it. */
  secretPrefix: string;
}

/**
 * The PSP connections of every (account, mode), the descriptors of their PSPs and the adapters that serve them.
 * An (account, mode) that chose its one PSP before connections existed (`npm run psp -- set`) is migrated the
 * first time it is read: its configuration becomes a stored connection with a derived id and the same
 * credentials, so it keeps working without anyone doing anything (docs/orchestration.md#migration). A connection
 * stored under a PSP's former id (`aliases`) is read as its PSP's id by the repository's mapper.
 */
export class PspConnections implements PspSessions, PaymentRefunds {
  private readonly options: PspConnectionsOptions;
  private readonly factories = new Map<string, PspFactory>();

  constructor(options: PspConnectionsOptions) {
    this.options = options;
  }

  /** The descriptor of a provider (its id or a former id), or undefined when no PSP of that id is registered. */
  descriptor(provider: string): PspDescriptor | undefined {
    return this.options.descriptors.find((candidate) => namesPsp(candidate, provider));
  }

  /**
   * What a provider's PSP can take and ask (`PspRules`), read at checkout before it is asked; a provider no PSP
   * is registered for has none (its adapter refuses to serve anyway).
   */
  rules(provider: string): PspRules {
    return this.descriptor(provider) ?? { amounts: { psp: provider }, pageAsks: {}, methods: {} };
  }

  /**
   * Whether a provider's PSP holds mandates (its descriptor declares `holds_mandates`), and, `withoutCharge`, sets
   * one up without charging (`mandates_without_charge`): only its connections are routed a link whose payment
   * opens one (`routedFor`, functions/domain/checkout/mandates.ts).
   */
  holdsMandates(provider: string, withoutCharge: boolean): boolean {
    const capabilities = this.descriptor(provider)?.capabilities ?? [];
    return (
      capabilities.includes('holds_mandates') &&
      (!withoutCharge || capabilities.includes('mandates_without_charge'))
    );
  }

  /** What the PSP that took a payment allows of its refunds (`requestRefund`). */
  refundRules(provider: string): RefundRules {
    const descriptor = this.descriptor(provider);
    const has = (capability: PspDescriptor['capabilities'][number]) =>
      descriptor?.capabilities.includes(capability) ?? false;
    return {
      amounts: descriptor?.amounts ?? { psp: provider },
      refunds: !has('refunds') ? 'none' : has('partial_refunds') ? 'partial' : 'whole',
    };
  }

  /** The adapter of a connection; `PspNotConfiguredError` when its provider cannot serve it. */
  async adapter(connection: PspConnection): Promise<Psp> {
    const descriptor = this.descriptor(connection.provider);
    if (!descriptor || (descriptor.testModeOnly && connection.mode !== 'test'))
      throw new PspNotConfiguredError();
    return this.factory(descriptor).create({ ...connection, provider: descriptor.id });
  }

  /** A PSP's factory, built once per container (each keeps its connections' adapters). */
  private factory(descriptor: PspDescriptor): PspFactory {
    const { factories, runtime } = this.options;
    const create = factories?.[descriptor.id];
    if (!create || !runtime) throw new PspNotConfiguredError('This function talks to no PSP.');
    let factory = this.factories.get(descriptor.id);
    if (!factory) {
      factory = create(runtime(descriptor));
      this.factories.set(descriptor.id, factory);
    }
    return factory;
  }

  /** The (account, mode)'s connections, oldest first, and its routing; a legacy configuration migrated. */
  async directory(account: string, mode: Mode): Promise<ConnectionDirectory> {
    const [directory, legacy] = await Promise.all([
      this.options.repository.directory(account, mode),
      this.options.legacyConfigs.get(account, mode),
    ]);
    if (directory.connections.length > 0 || !this.descriptor(legacy?.provider ?? '')?.legacy)
      return directory;
    await migrateLegacyConfig(this.options, account, mode);
    return this.options.repository.directory(account, mode);
  }

  /**
   * The connection a notification route names: a stored one, or the built-in sandbox (which serves every
   * account, so its `account` is not known here: the caller checks tenancy on what the PSP returns).
   */
  async connection(id: string): Promise<PspConnection | undefined> {
    if (id === BUILT_IN_SANDBOX_ID) return builtInSandbox('', 'test');
    return (await this.options.repository.get(id))?.connection;
  }

  /** The connection that created a session stored on a link (sessions from before connections name none). */
  async sessionConnection(account: string, mode: Mode, session: PspSession): Promise<PspConnection> {
    const id =
      session.connection_id ??
      (session.provider === 'sandbox' ? BUILT_IN_SANDBOX_ID : migratedConnectionId(account, mode));
    if (id === BUILT_IN_SANDBOX_ID) return builtInSandbox(account, mode);
    const found = await this.connection(id);
    if (found) return found;
    throw new PspNotConfiguredError(`Connection ${id} no longer exists.`);
  }

  /** Applies a health transition to a stored connection (the built-in sandbox keeps no health). */
  async updateHealth(
    connection: Pick<PspConnection, 'id' | 'account' | 'mode'>,
    change: (health: ConnectionHealth) => ConnectionHealth | undefined,
    known?: ConnectionHealth,
  ): Promise<ConnectionHealth | undefined> {
    if (connection.id === BUILT_IN_SANDBOX_ID) return undefined;
    return this.options.repository.updateHealth(connection, change, known);
  }

  putRouting(account: string, mode: Mode, routing: Routing): Promise<void> {
    return this.options.repository.putRouting(account, mode, routing);
  }

  /** Refunds through the connection that took the link's payment, whatever routing says today. */
  async refund(link: PaymentLink, refund: Refund): Promise<RefundOutcome> {
    const { psp, payment } = await this.paymentAdapter(link, refund);
    return askForRefund(psp, payment, link, refund);
  }

  async refundAgain(link: PaymentLink, refund: Refund, now: Date): Promise<RefundOutcome | undefined> {
    const { psp, payment } = await this.paymentAdapter(link, refund);
    if (now.getTime() - Date.parse(refund.created_at) > psp.idempotencyWindowMs) return undefined;
    return askForRefund(psp, payment, link, refund);
  }

  async refundStatus(link: PaymentLink, refund: Refund): Promise<RefundOutcome> {
    if (!refund.provider_reference) throw new Error(`Refund ${refund.id} has no PSP reference yet.`);
    const { psp } = await this.paymentAdapter(link, refund);
    return refundOutcomeOf(await psp.retrieveRefund(refund.provider_reference));
  }

  /**
   * The adapter of the connection that took the refund's payment (a reusable link's may each differ). Its PSP
   * refunds: a refund is requested only of a PSP whose descriptor says so (`refundRules`).
   */
  private async paymentAdapter(
    link: PaymentLink,
    refund: Refund,
  ): Promise<{ psp: Psp & Refunds; payment: PspPayment }> {
    const payment = paidPayment(link, refund.payment_id);
    if (!payment) throw new Error(`Payment link ${link.id} has no payment ${refund.payment_id} to refund.`);
    const connection =
      payment.connection_id === BUILT_IN_SANDBOX_ID
        ? builtInSandbox(link.account, link.mode)
        : await this.connection(payment.connection_id);
    if (!connection) throw new PspNotConfiguredError(`Connection ${payment.connection_id} no longer exists.`);
    const psp = await this.adapter(connection);
    if (!canRefund(psp))
      throw new Error(`${connection.provider} takes no refunds: refund ${refund.id} was not asked.`);
    return { psp, payment };
  }

  /**
   * Asks to end a session at the connection that created it, whatever the answer; a PSP that cannot end a
   * session early is not asked (its session ends at its expiry, or is released: docs/orchestration.md#capabilities).
   */
  async expireSession(account: string, mode: Mode, session: PspSession): Promise<SessionEnd> {
    const connection = await this.sessionConnection(account, mode, session);
    const psp = await this.adapter(connection);
    return canEndSessions(psp) ? psp.expireSession(session) : 'refused';
  }

  /**
   * Ends a session at the connection that created it; a refusal is answered with what its PSP says of it, and so
   * is a session its PSP cannot end early (without a call to end it).
   */
  async endSession(account: string, mode: Mode, session: PspSession): Promise<SessionEnding> {
    const connection = await this.sessionConnection(account, mode, session);
    const psp = await this.adapter(connection);
    if (canEndSessions(psp) && (await psp.expireSession(session)) === 'ended') return { ended: true };
    return { ended: false, connection, status: await psp.retrieveSession(session.id) };
  }
}

/**
 * What the PSP says of a refund request. A PSP that definitely made no refund (it refused the request, or our
 * credentials) fails it; one that failed to answer leaves its outcome open (docs/webhooks.md#refunds).
 */
async function askForRefund(
  psp: Refunds,
  payment: PspPayment,
  link: PaymentLink,
  refund: Refund,
): Promise<RefundOutcome> {
  // `requestRefund` refuses a payment without its reference; a refund stored before that rule has none to send.
  if (payment.reference === null) throw new Error(`Payment ${payment.id} has no PSP reference yet.`);
  try {
    const status = await psp.refund({
      refundId: refund.id,
      linkId: link.id,
      paymentReference: payment.reference,
      amount: refund.amount,
      description: link.description ?? null,
      ...(refund.reason && { reason: refund.reason }),
    });
    return refundOutcomeOf(status);
  } catch (error) {
    const failure = pspFailureOf(error);
    switch (failure?.kind) {
      case 'refused':
      case 'credentials_rejected':
        return { status: 'failed', providerReference: null, failureMessage: failure.message };
      default:
        throw error;
    }
  }
}

/**
 * `npm run psp -- remove <id>`: deletes a connection, unless a payment is still pending through it (a session a
 * buyer may still pay, which only its connection can end or be asked about) or a refund is (which only it can
 * settle): then `ConnectionInUseError`, naming them, and nothing changes (docs/orchestration.md#removing-a-connection).
 * Returns the removed connection, or undefined when there is none with that id.
 */
export async function removeConnection(
  deps: {
    repository: PspConnectionRepository;
    payments: Pick<PaymentRepository, 'pendingOfConnection'>;
    refunds: Pick<RefundLedger, 'pendingOfConnection'>;
  },
  id: string,
): Promise<PspConnection | undefined> {
  if (!(await deps.repository.get(id))) return undefined;
  const [payments, refunds] = await Promise.all([
    deps.payments.pendingOfConnection(id),
    deps.refunds.pendingOfConnection(id),
  ]);
  if (payments.length > 0 || refunds.length > 0) throw new ConnectionInUseError(id, { payments, refunds });
  return deps.repository.remove(id);
}

/**
 * Turns the one PSP an (account, mode) chose before connections existed into a stored connection, unless it has
 * connections already: its PSP's descriptor names the secret that configuration kept its credentials in
 * (`legacy`). Idempotent, and safe under races: the id is derived, so every caller writes the same connection and
 * only the first write lands. Returns the migrated connection, or undefined when none was due.
 */
export async function migrateLegacyConfig(
  options: Pick<PspConnectionsOptions, 'repository' | 'legacyConfigs' | 'descriptors' | 'secretPrefix'>,
  account: string,
  mode: Mode,
): Promise<PspConnection | undefined> {
  const legacy = await options.legacyConfigs.get(account, mode);
  const descriptor = options.descriptors.find((candidate) => candidate.id === legacy?.provider);
  if (!legacy || !descriptor?.legacy) return undefined;
  const id = migratedConnectionId(account, mode);
  const { connections } = await options.repository.directory(account, mode);
  if (connections.some(({ connection }) => connection.id !== id)) return undefined;
  const connection: PspConnection = {
    id,
    account,
    mode,
    provider: descriptor.id,
    name: descriptor.displayName,
    enabled: true,
    simulate: null,
    secret_name: descriptor.legacy.secretName(options.secretPrefix, account, mode),
    created_at: legacy.updated_at,
  };
  await options.repository.create(connection);
  return connection;
}
