import { BoundedCache } from '../bounded-cache.ts';
import { NOTIFICATION_PSP_CALLS } from '../domain/call-budgets.ts';
import { BUILT_IN_SANDBOX_ID, migratedConnectionId, type PspConnection } from '../domain/connection.ts';
import {
  InvalidNotificationError,
  PspNotConfiguredError,
  PspUnavailableError,
  ServiceError,
} from '../domain/errors.ts';
import { paidPayment } from '../domain/link-payments.ts';
import type { PaymentLink } from '../domain/payment-link.ts';
import type { Mode } from '../domain/principal.ts';
import { pendingRefunds } from '../domain/refund.ts';
import { logger } from '../logger.ts';
import { type Psp, type PspRefundStatus, pspFailureOf } from '../ports/psp.ts';
import { canCaptureLater, canRefund } from '../ports/psp-capabilities.ts';
import type { RateLimiter } from '../ports/rate-limiter.ts';
import type { RefundLedger } from '../ports/refund-ledger.ts';
import { captureWhilePayable } from './deferred-capture.ts';
import type { PaymentDependencies, SessionOutcome } from './payments.ts';
import type { PspConnections } from './psp-connections.ts';
import { recordRefundOutcome, refundOutcomeOf } from './refunds.ts';
import { recordSessionOutcome } from './session-endings.ts';

export interface NotificationDependencies extends PaymentDependencies {
  psps: PspConnections;
  /** Refunds' outcomes are recorded on their link too. */
  ledger: RefundLedger;
  /** Limits lookups of ids the PSP does not know, for PSPs verified by a lookup (`notificationLookupId`). */
  unknownIds?: UnknownNotificationIds;
}

/**
 * The ids a connection's PSP said it does not know (no such payment for this key), for PSPs whose
 * notifications are verified by looking their id up (`Psp.notificationLookupId`), each lookup a PSP call. An
 * id found unknown is remembered for an hour by this instance and refused without a call; every unknown id
 * counts in a window per connection shared by every instance (`RateLimiter`, `UNKNOWN_ID_LOOKUPS`), and once the
 * window is spent, ids not known to be genuine are refused without a call until it ends. A genuine notification
 * refused meanwhile is sent again by the PSP (a 4xx), and the pending-payment sweeper finds its payment anyway
 * (docs/security.md#psp-notifications).
 */
export class UnknownNotificationIds {
  private readonly limiter: RateLimiter;
  /** `connection id` + `id` → until when it is known to be unknown (ms); bounded, the least recent dropped. */
  private readonly unknown: BoundedCache<string, number>;
  private readonly rememberMs: number;

  constructor(limiter: RateLimiter, options: { maxSize?: number; rememberMs?: number } = {}) {
    this.limiter = limiter;
    this.unknown = new BoundedCache(options.maxSize ?? 10_000);
    this.rememberMs = options.rememberMs ?? 3_600_000;
  }

  /** Throws (refused as any notification that does not verify) unless `id` may be looked up now. */
  check(connection: PspConnection, id: string, now: Date): void {
    const until = this.unknown.peek(`${connection.id} ${id}`);
    if (until !== undefined && until > now.getTime())
      throw notGenuine('An id its PSP does not know (remembered).');
    if (this.limiter.isSpent(unknownIdScope(connection), now)) {
      throw notGenuine('Too many ids its PSP does not know for this connection: not looked up.');
    }
  }

  /** The PSP said it does not know `id`. */
  async record(connection: PspConnection, id: string, now: Date): Promise<void> {
    this.unknown.set(`${connection.id} ${id}`, now.getTime() + this.rememberMs);
    await this.limiter.hit(unknownIdScope(connection), now);
  }
}

/** The rate-limit window of a connection's unknown ids: its own key, beside the merchants' (account, mode)s. */
const unknownIdScope = (connection: PspConnection) => ({
  account: `unknown-ids#${connection.id}`,
  mode: connection.mode,
});

/** What a notification changed; a refund's outcome when it settled one (`refunded`, `refund_failed`). */
export type NotificationOutcome = SessionOutcome | 'refunded' | 'refund_failed';

/** Which connection a notification is for: named by its route, or (legacy route) found from the link. */
export type NotificationAddress =
  | { connectionId: string }
  /** `POST /psp/{provider}/notifications` of accounts configured before connections: the body names the link. */
  | { legacyLink: { linkId: string; mode: Mode } | undefined };

/** Refusals all answer alike (a forger learns nothing); the reason is only logged. */
const notGenuine = (reason: string) => new InvalidNotificationError(reason);

/**
 * `POST /psp/{provider}/notifications/{connection_id}`. The connection's credentials verify the notification;
 * then the true status of each session or refund it names is fetched from the PSP and recorded
 * (`recordSessionStatus`, `recordRefundOutcome`: one transition and one event however many copies race).
 * Forged, foreign or malformed notifications throw a 4xx and change nothing. A verified notification about a
 * session or refund the PSP holds but we did not make is `ignored` (a 2xx, so that the PSP stops sending it).
 */
export async function handlePspNotification(
  deps: NotificationDependencies,
  provider: string,
  address: NotificationAddress,
  rawBody: string,
  headers: Record<string, string | undefined>,
): Promise<{ outcome: NotificationOutcome; psp: Psp }> {
  const connection = await findConnection(deps, address);
  if (!connection || connection.provider !== provider)
    throw notGenuine('No such connection of this provider.');
  const psp = await deps.psps.adapter(connection).catch((error: unknown) => {
    if (error instanceof PspNotConfiguredError) throw notGenuine('The connection cannot serve this mode.');
    throw error;
  });
  const notifications = await verify(deps, connection, psp, rawBody, headers);
  let outcome: NotificationOutcome = 'ignored';
  for (const notification of notifications) {
    if (notification.livemode !== (connection.mode === 'live'))
      throw notGenuine('Mode differs from the connection.');
    const result =
      notification.refundReference !== null
        ? await recordRefund(deps, connection, psp, notification.refundReference)
        : notification.sessionId !== null
          ? await recordSession(deps, connection, psp, notification.sessionId)
          : 'ignored';
    if (result !== 'ignored') outcome = result;
  }
  return { outcome, psp };
}

/**
 * Verifies the notification; a PSP verified by a lookup is asked only within the unknown-id limit, and when it
 * could not be asked (it failed, or refused our key) the PSP gets a 5xx, so that it notifies again later.
 */
async function verify(
  deps: NotificationDependencies,
  connection: PspConnection,
  psp: Psp,
  rawBody: string,
  headers: Record<string, string | undefined>,
) {
  try {
    return await verifyWithinLimit(deps, connection, psp, rawBody, headers);
  } catch (error) {
    const kind = pspFailureOf(error)?.kind;
    throw kind === 'unavailable' || kind === 'credentials_rejected' ? new PspUnavailableError(error) : error;
  }
}

async function verifyWithinLimit(
  deps: NotificationDependencies,
  connection: PspConnection,
  psp: Psp,
  rawBody: string,
  headers: Record<string, string | undefined>,
) {
  const lookupId = deps.unknownIds && psp.notificationLookupId?.(rawBody);
  if (!deps.unknownIds || !lookupId) return psp.verifyNotification(rawBody, headers);
  deps.unknownIds.check(connection, lookupId, deps.now());
  try {
    return await psp.verifyNotification(rawBody, headers);
  } catch (error) {
    if (error instanceof InvalidNotificationError && error.unknownId === lookupId) {
      await deps.unknownIds.record(connection, lookupId, deps.now()).catch((recordError: unknown) =>
        logger.warn('Unknown notification id not counted', {
          connection_id: connection.id,
          error: recordError,
        }),
      );
    }
    throw error;
  }
}

async function findConnection(
  deps: NotificationDependencies,
  address: NotificationAddress,
): Promise<PspConnection | undefined> {
  if ('connectionId' in address) return deps.psps.connection(address.connectionId);
  if (!address.legacyLink) return undefined;
  const link = await deps.links.get(address.legacyLink.linkId, address.legacyLink.mode);
  if (!link) return undefined;
  const id = migratedConnectionId(link.account, link.mode);
  const { connections } = await deps.psps.directory(link.account, link.mode);
  return connections.find(({ connection }) => connection.id === id)?.connection;
}

async function recordSession(
  deps: NotificationDependencies,
  connection: PspConnection,
  psp: Psp,
  sessionId: string,
): Promise<NotificationOutcome> {
  const status = await askPsp(connection, () => psp.retrieveSession(sessionId), { session_id: sessionId });
  if (status.livemode !== (connection.mode === 'live')) {
    throw notGenuine('Session mode differs from the connection.');
  }
  const link = status.linkId ? await deps.links.get(status.linkId, connection.mode) : undefined;
  // The built-in sandbox serves every account; any other connection only its own account's links.
  if (!link || (connection.id !== BUILT_IN_SANDBOX_ID && link.account !== connection.account)) {
    // Verified, and confirmed by the PSP itself: a session of the connection's PSP account that we did not
    // create (another integration of the merchant's). Ignored with a 2xx, so that the PSP does not retry it.
    logger.info('PSP session not created through us ignored', {
      connection_id: connection.id,
      session_id: sessionId,
    });
    return 'ignored';
  }
  // An approved session that awaits our capture is captured here while its link can be paid, else released.
  const settled = await askPsp(connection, () => captureWhilePayable(deps, connection, psp, link, status), {
    session_id: sessionId,
  });
  const outcome = await recordSessionOutcome({ ...deps, pspSessions: deps.psps }, connection, link, settled);
  // Some PSPs tell of a refund's progress through its payment's notification: the link's pending refunds are read too,
  // with the calls left after the verification's own, the session's read, a capture or release, and the refund
  // of a success at another amount (recorded failed: functions/use-cases/charged-amounts.ts).
  const givenBack = settled.state === 'succeeded' && outcome === 'failed' ? 1 : 0;
  const captureCalls = canCaptureLater(psp) ? (psp.captureCalls ?? 1) : 0;
  const spent = 1 + (psp.verificationCalls ?? 0) + (settled === status ? 0 : captureCalls) + givenBack;
  const refunds = await recordPendingRefunds(deps, connection, psp, link, NOTIFICATION_PSP_CALLS - spent);
  return refunds === 'ignored' ? outcome : refunds;
}

/** What the PSP says of a refund it notified us of, recorded on the refund's link. */
async function recordRefund(
  deps: NotificationDependencies,
  connection: PspConnection,
  psp: Psp,
  reference: string,
): Promise<NotificationOutcome> {
  if (!canRefund(psp)) throw notGenuine('A refund notification of a PSP that takes no refunds through us.');
  const status = await askPsp(connection, () => psp.retrieveRefund(reference), {
    refund_reference: reference,
  });
  if (!status.linkId || !status.refundId) {
    // Made in the PSP's dashboard, not through us: nothing of ours to record.
    logger.info('PSP refund not made through the API ignored', { connection_id: connection.id, reference });
    return 'ignored';
  }
  const link = await deps.links.get(status.linkId, connection.mode);
  const refunded = link?.refunds.find(({ id }) => id === status.refundId);
  if (!link || !refunded || !tookPaymentOf(connection, link, refunded.payment_id)) {
    // The PSP holds it with ids that name no refund this connection took: nothing of ours to record either.
    logger.warn('PSP refund naming no refund of this connection ignored', {
      connection_id: connection.id,
      reference,
    });
    return 'ignored';
  }
  return recordRefundStatus(deps, link, status.refundId, status);
}

/**
 * The pending refunds of the link that this connection answered with a reference, asked about again: `reads` of
 * them, what the function's PSP call budget leaves after the session (the refund sweeper reads any others).
 */
async function recordPendingRefunds(
  deps: NotificationDependencies,
  connection: PspConnection,
  psp: Psp,
  link: PaymentLink,
  reads: number,
): Promise<NotificationOutcome> {
  let outcome: NotificationOutcome = 'ignored';
  if (!canRefund(psp)) return outcome;
  const answered = pendingRefunds(link).filter(
    (refund) => refund.provider_reference && tookPaymentOf(connection, link, refund.payment_id),
  );
  for (const refund of answered.slice(0, Math.max(0, reads))) {
    const reference = refund.provider_reference as string;
    const status = await askPsp(connection, () => psp.retrieveRefund(reference), { refund_id: refund.id });
    const result = await recordRefundStatus(deps, link, refund.id, status);
    if (result !== 'ignored') outcome = result;
  }
  return outcome;
}

async function recordRefundStatus(
  deps: NotificationDependencies,
  link: PaymentLink,
  refundId: string,
  status: PspRefundStatus,
): Promise<NotificationOutcome> {
  const refund = await recordRefundOutcome(deps, link.id, link.mode, refundId, refundOutcomeOf(status));
  return refund.status === 'succeeded'
    ? 'refunded'
    : refund.status === 'failed'
      ? 'refund_failed'
      : 'ignored';
}

/** The connection took this payment of the link (the built-in sandbox serves every account). */
function tookPaymentOf(connection: PspConnection, link: PaymentLink, paymentId: string): boolean {
  return (
    paidPayment(link, paymentId)?.connection_id === connection.id &&
    (connection.id === BUILT_IN_SANDBOX_ID || link.account === connection.account)
  );
}

/** A PSP lookup behind a notification: a PSP that cannot answer gets a 5xx, so that it notifies again later. */
async function askPsp<T>(
  connection: PspConnection,
  lookup: () => Promise<T>,
  logFields: Record<string, string>,
): Promise<T> {
  try {
    return await lookup();
  } catch (error) {
    if (error instanceof ServiceError) throw error;
    logger.error('PSP lookup failed', { connection_id: connection.id, ...logFields, error });
    throw new PspUnavailableError(error);
  }
}
