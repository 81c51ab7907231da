import { PSP_CALL_TIMEOUT_MS } from '../../../domain/call-budgets.ts';
import { BUILT_IN_SANDBOX_ID, type PspConnection } from '../../../domain/connection.ts';
import { InvalidNotificationError } from '../../../domain/errors.ts';
import type { PspSession } from '../../../domain/payment-link.ts';
import { randomBase62 } from '../../../domain/random.ts';
import {
  type Psp,
  type PspFactory,
  type PspNotification,
  PspOutageError,
  type PspRefundRequest,
  type PspRefundStatus,
  type PspSessionStatus,
  type SessionEnd,
  type SessionRequest,
} from '../../../ports/psp.ts';
import type { EndsSessions, Refunds } from '../../../ports/psp-capabilities.ts';
import type { PspRuntime } from '../../../ports/psp-descriptor.ts';
import type { SandboxSession, SandboxSessionStore } from '../../../ports/sandbox-sessions.ts';
import { ConnectedPsp } from '../kit/connected-psp.ts';
import { declineOf } from '../kit/declines.ts';
import type { sandbox } from './descriptor.ts';
import { openedMandate, SandboxMandates, withSandboxMandates } from './mandates.ts';
import {
  parseSandboxNotification,
  SANDBOX_SIGNATURE_HEADER,
  verifySandboxSignature,
} from './notifications.ts';

/** How long a payment Pay starts on a `--simulate processing` connection is under way before it succeeds. */
export const SANDBOX_PROCESSING_MS = 30_000;

export interface SandboxPspOptions {
  sessions: SandboxSessionStore;
  signingSecret: () => Promise<string>;
  /** Public base of the service: the sandbox's hosted pages are served under it. */
  baseUrl: string;
  /** The per-try bound of a PSP call: how long a `timeout` connection hangs before its call fails. */
  callTimeoutMs: number;
  now: () => Date;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class SandboxPsp extends ConnectedPsp<typeof sandbox> implements Psp, EndsSessions, Refunds {
  readonly checkoutOrigin: string;
  /** Its refunds are answered at once and derived from our id: asking again is always safe. */
  readonly idempotencyWindowMs = Number.POSITIVE_INFINITY;
  private readonly options: SandboxPspOptions;

  constructor(descriptor: typeof sandbox, options: SandboxPspOptions, connection: PspConnection) {
    super(descriptor, connection);
    this.options = options;
    this.checkoutOrigin = new URL(options.baseUrl).origin;
  }

  async createSession(checkout: SessionRequest): Promise<PspSession> {
    const { link } = checkout;
    if (this.connection.simulate === 'fail') {
      throw new PspOutageError('Sandbox connection simulates a PSP failure (HTTP 503).');
    }
    if (this.connection.simulate === 'timeout') {
      await sleep(this.options.callTimeoutMs);
      throw new PspOutageError(`Sandbox connection gave no answer within ${this.options.callTimeoutMs} ms.`);
    }
    const id = `sbcs_${randomBase62(24)}`;
    const expiresAt = checkout.expiresAt.toISOString();
    await this.options.sessions.create({
      id,
      connection_id: this.connection.id,
      payment_id: checkout.paymentId,
      link_id: link.id,
      account: link.account,
      mode: link.mode,
      amount: checkout.amount,
      description: link.description,
      success_url: checkout.successUrl,
      cancel_url: checkout.cancelUrl,
      status: 'open',
      payment_reference: null,
      declined_attempts: 0,
      created_at: this.options.now().toISOString(),
      expires_at: expiresAt,
      locale: checkout.locale,
      ...(this.connection.simulate === 'processing' ? { processing_ms: SANDBOX_PROCESSING_MS } : {}),
      ...(typeof this.connection.success_rate === 'number' && this.connection.success_rate < 1
        ? { success_rate: this.connection.success_rate }
        : {}),
      ...(SIMULATED_DECLINES[this.connection.simulate ?? '']
        ? { decline_code: SIMULATED_DECLINES[this.connection.simulate ?? ''] }
        : {}),
      ...(checkout.opensMandate ? { opens_mandate: openedMandate(checkout.opensMandate) } : {}),
    });
    return {
      provider: this.provider,
      connection_id: this.connection.id,
      payment_id: checkout.paymentId,
      id,
      url: `${this.options.baseUrl}/sandbox/checkout/${id}`,
      expires_at: expiresAt,
    };
  }

  async verifyNotification(
    rawBody: string,
    headers: Record<string, string | undefined>,
  ): Promise<PspNotification[]> {
    const secret = await this.options.signingSecret();
    if (!verifySandboxSignature(secret, rawBody, headers[SANDBOX_SIGNATURE_HEADER], this.options.now())) {
      throw new InvalidNotificationError('The Sandbox-Signature header does not verify.');
    }
    const body = parseSandboxNotification(rawBody);
    if (!body) throw new InvalidNotificationError('Not a sandbox notification.');
    return [{ type: body.type, sessionId: body.session_id, refundReference: null, livemode: false }];
  }

  async retrieveSession(sessionId: string): Promise<PspSessionStatus> {
    const session = await this.options.sessions.get(sessionId);
    // A connection knows only its own sessions: another connection's is as unknown as a missing one.
    if (!session || (session.connection_id ?? BUILT_IN_SANDBOX_ID) !== this.connection.id) {
      throw new InvalidNotificationError(`No sandbox session ${sessionId}.`);
    }
    return {
      id: session.id,
      paymentId: session.payment_id ?? null,
      linkId: session.link_id,
      ...sessionOutcome(this.descriptor, session, this.options.now().getTime()),
      amount: session.amount,
      livemode: false,
    };
  }

  /**
   * Only an open session can be expired; one already paid, being paid (`processing`), declined or expired is
   * `refused`.
   */
  async expireSession(session: PspSession): Promise<SessionEnd> {
    return (await this.options.sessions.expire(session.id)) ? 'ended' : 'refused';
  }

  /** The sandbox moves no money, so a refund succeeds at once; its reference is derived from ours. */
  async refund(request: PspRefundRequest): Promise<PspRefundStatus> {
    return {
      reference: sandboxRefundReference(request.refundId),
      refundId: request.refundId,
      linkId: request.linkId,
      state: 'succeeded',
      failureMessage: null,
    };
  }

  /** Every sandbox refund succeeded when it was asked for; the sandbox keeps no record of which link it was. */
  async retrieveRefund(reference: string): Promise<PspRefundStatus> {
    return { reference, refundId: null, linkId: null, state: 'succeeded', failureMessage: null };
  }
}

/** The sandbox's own decline code a `--simulate decline_*` connection gives every decline on it. */
const SIMULATED_DECLINES: Readonly<Record<string, string>> = {
  decline_soft: 'insufficient_funds',
  decline_hard: 'expired_card',
};

/** Where a session stands at `now` (epoch ms): its state, why it failed, and the payment made in it. */
function sessionOutcome(
  descriptor: typeof sandbox,
  session: SandboxSession,
  now: number,
): Pick<PspSessionStatus, 'state' | 'failure' | 'paymentReference'> {
  // The payment under way has succeeded once its time came, whether or not its page was seen since.
  const succeeded =
    session.status === 'complete' ||
    (session.status === 'processing' && Date.parse(session.settles_at ?? '') <= now);
  if (succeeded) return { state: 'succeeded', failure: null, paymentReference: session.payment_reference };
  if (session.status === 'failed') {
    return {
      state: 'failed',
      failure: declineOf(descriptor, session.decline_code, 'The buyer declined on the sandbox page.'),
      paymentReference: null,
    };
  }
  const expired =
    session.status === 'expired' || (session.status === 'open' && Date.parse(session.expires_at) <= now);
  if (expired) {
    return {
      state: 'expired',
      failure: { code: 'expired', message: 'The sandbox session expired.' },
      paymentReference: null,
    };
  }
  return { state: 'pending', failure: null, paymentReference: null };
}

const sandboxRefundReference = (refundId: string) => `sbre_${refundId.slice(refundId.indexOf('_') + 1)}`;

/**
 * The sandbox's connections: the sandbox has no credentials of its own (its signing secret is the service's), and
 * its sessions and simulated mandates (./mandates.ts) live in our own table. A `timeout` connection hangs for the
 * per-try bound of a PSP call.
 */
export function createFactory(runtime: PspRuntime, descriptor: typeof sandbox): PspFactory {
  return {
    create: async (connection) => {
      const options = {
        sessions: runtime.sandbox.sessions(),
        signingSecret: runtime.sandbox.signingSecret,
        baseUrl: runtime.baseUrl,
        callTimeoutMs: PSP_CALL_TIMEOUT_MS,
        now: runtime.now,
      };
      const mandates = new SandboxMandates({ ...options, mandates: runtime.sandbox.mandates() }, connection);
      return withSandboxMandates(new SandboxPsp(descriptor, options, connection), mandates);
    },
  };
}
