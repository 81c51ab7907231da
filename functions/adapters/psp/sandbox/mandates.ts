import { createHash } from 'node:crypto';
import type { PspConnection } from '../../../domain/connection.ts';
import type { Decline, MandateRef } from '../../../domain/mandates.ts';
import { toMinorUnits } from '../../../domain/money.ts';
import { bytesToBase62 } from '../../../domain/random.ts';
import {
  type HoldsMandates,
  type MandateCharge,
  type MandateChargeResult,
  type OpensMandate,
  type Psp,
  PspOutageError,
} from '../../../ports/psp.ts';
import {
  type RenewalOutcome,
  type SandboxCharge,
  type SandboxMandate,
  type SandboxMandateStore,
  sandboxMandateIdOf,
  suffixOf,
} from '../../../ports/sandbox-mandates.ts';
import type { SandboxMandateRequest } from '../../../ports/sandbox-sessions.ts';

/**
 * The sandbox's mandates (docs/subscriptions.md#the-sandbox): Pay on a session that opens one stores a simulated
 * mandate (`sbm_…`, derived from the session), and its renewals are charged here, once per idempotency key, as a
 * real PSP charges a saved payment method off-session. What a renewal does is the connection's
 * `--simulate renewal_*` when it has one, else what the mandate was given on the sandbox page.
 */

/**
 * A charge's reference, derived from its mandate and idempotency key: the same request always names the same
 * charge, and the reference says which mandate's partition holds it.
 */
export function sandboxChargeReference(mandateId: string, idempotencyKey: string): string {
  const digest = createHash('sha256').update(`${mandateId}\0${idempotencyKey}`).digest();
  return `sbch_${suffixOf(mandateId)}_${bytesToBase62(digest, 16)}`;
}

const mandateOfReference = (reference: string): string =>
  `sbm_${reference.slice(5, reference.lastIndexOf('_'))}`;

/** What each simulated outcome declines with, as the real PSPs' decline tables class them. */
const DECLINES: Record<Exclude<RenewalOutcome, 'succeed'>, Decline> = {
  soft_decline: {
    class: 'soft',
    code: 'sandbox:insufficient_funds',
    message: 'Insufficient funds (simulated by the sandbox).',
  },
  hard_decline: {
    class: 'hard',
    code: 'sandbox:account_closed',
    message: 'The account was closed (simulated by the sandbox).',
  },
  authentication_required: {
    class: 'authentication_required',
    code: 'sandbox:authentication_required',
    message: 'The issuer asks the buyer to authenticate (simulated by the sandbox).',
  },
};

/** A connection's `--simulate renewal_*`, as the outcome it forces on every renewal. */
const FORCED: Partial<Record<string, RenewalOutcome>> = {
  renewal_soft_decline: 'soft_decline',
  renewal_hard_decline: 'hard_decline',
  renewal_authentication: 'authentication_required',
};

export interface SandboxMandateOptions {
  mandates: SandboxMandateStore;
  /** The per-try bound of a PSP call: how long a `timeout` connection hangs before its call fails. */
  callTimeoutMs: number;
  now: () => Date;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function resultOf(charge: SandboxCharge): MandateChargeResult {
  if (charge.state === 'succeeded') {
    return { state: 'succeeded', reference: charge.reference, amount: charge.amount };
  }
  const decline = charge.decline ?? DECLINES.soft_decline;
  return { state: 'failed', reference: charge.reference, decline, mandateUsable: decline.class !== 'hard' };
}

export class SandboxMandates implements HoldsMandates {
  /** Its charges are kept under their key as long as the table: asking again is always safe. */
  readonly chargeIdempotencyWindowMs = Number.POSITIVE_INFINITY;
  private readonly options: SandboxMandateOptions;
  private readonly connection: PspConnection;

  constructor(options: SandboxMandateOptions, connection: PspConnection) {
    this.options = options;
    this.connection = connection;
  }

  async mandateOf(session: { id: string }) {
    const mandate = await this.options.mandates.get(sandboxMandateIdOf(session.id));
    if (!mandate || mandate.connection_id !== this.connection.id) {
      return { state: 'none' as const, reason: 'The sandbox session opened no mandate.' };
    }
    return { state: 'ready' as const, mandate: this.refOf(mandate) };
  }

  private refOf(mandate: SandboxMandate): MandateRef {
    return {
      connection_id: this.connection.id,
      provider: 'sandbox',
      customer: mandate.customer,
      reference: mandate.id,
      method: 'card',
      display: 'Sandbox card •••• 4242',
    };
  }

  async chargeMandate(charge: MandateCharge): Promise<MandateChargeResult> {
    await this.simulateOutage();
    const mandateId = charge.mandate.reference;
    const reference = sandboxChargeReference(mandateId, charge.idempotencyKey);
    const earlier = await this.options.mandates.getCharge(mandateId, reference);
    if (earlier) return this.replay(earlier, charge);
    const mandate = await this.options.mandates.get(mandateId);
    const usable = mandate?.status === 'valid' && mandate.connection_id === this.connection.id;
    const outcome: RenewalOutcome = usable
      ? (FORCED[this.connection.simulate ?? ''] ?? mandate.renewals)
      : 'hard_decline';
    const decline = outcome === 'succeed' ? null : DECLINES[outcome];
    const stored = await this.options.mandates.recordCharge({
      reference,
      mandate_id: mandateId,
      idempotency_key: charge.idempotencyKey,
      payment_id: charge.paymentId,
      subscription_id: charge.subscriptionId,
      period: charge.period,
      amount: charge.amount,
      state: decline ? 'failed' : 'succeeded',
      decline,
      created_at: this.options.now().toISOString(),
    });
    // A closed account closes the mandate, as a PSP's revoked token stays revoked.
    if (mandate && decline?.class === 'hard') {
      await this.options.mandates.update(mandateId, { status: 'revoked' }, this.options.now());
    }
    return this.replay(stored, charge);
  }

  /** The first answer to a key, as every PSP replays it; a key reused for another charge is a bug of ours. */
  private replay(stored: SandboxCharge, charge: MandateCharge): MandateChargeResult {
    const same =
      stored.payment_id === charge.paymentId &&
      stored.amount.currency === charge.amount.currency &&
      toMinorUnits(stored.amount) === toMinorUnits(charge.amount);
    if (!same) {
      throw new Error(`Sandbox charge key ${charge.idempotencyKey} was reused for another charge.`);
    }
    return resultOf(stored);
  }

  async retrieveCharge(reference: string): Promise<MandateChargeResult> {
    await this.simulateOutage();
    const stored = await this.options.mandates.getCharge(mandateOfReference(reference), reference);
    if (!stored) throw new PspOutageError(`No sandbox charge ${reference}.`);
    return resultOf(stored);
  }

  /** A `fail` or `timeout` connection fails its charges as it fails its sessions: nothing is charged. */
  private async simulateOutage(): Promise<void> {
    if (this.connection.simulate === 'fail') {
      throw new PspOutageError('Sandbox connection simulates a PSP failure (HTTP 503).');
    }
    if (this.connection.simulate === 'timeout') {
      await sleep(this.options.callTimeoutMs);
      throw new PspOutageError(`Sandbox connection gave no answer within ${this.options.callTimeoutMs} ms.`);
    }
  }
}

/** The sandbox adapter with its mandates: the methods of `HoldsMandates` beside the core `Psp`'s. */
export function withSandboxMandates<T extends Psp>(psp: T, mandates: SandboxMandates): T & HoldsMandates {
  return Object.assign(psp, {
    chargeIdempotencyWindowMs: mandates.chargeIdempotencyWindowMs,
    mandateOf: mandates.mandateOf.bind(mandates),
    chargeMandate: mandates.chargeMandate.bind(mandates),
    retrieveCharge: mandates.retrieveCharge.bind(mandates),
  });
}

/** What a session that opens a mandate keeps of the request, for its page and for Pay. */
export const openedMandate = (opens: OpensMandate): SandboxMandateRequest => ({
  subscription_id: opens.subscriptionId,
  without_charge: opens.withoutCharge,
  period_amount: opens.periodAmount,
  recurring: opens.recurring,
});
