import { ANSWER_ROOM_MS, PSP_CALL_TIMEOUT_MS } from '../domain/call-budgets.ts';
import { isPreviewRequest, reusableSession, sessionExpiry, withSession } from '../domain/checkout.ts';
import { BUILT_IN_SANDBOX_ID, type PspConnection } from '../domain/connection.ts';
import {
  afterFailure,
  afterSuccess,
  awaitsTrial,
  type ConnectionHealth,
  claimTrial,
  INITIAL_HEALTH,
  isAvailable,
} from '../domain/connection-health.ts';
import { ConcurrentModificationError, PspNotConfiguredError } from '../domain/errors.ts';
import { resolveLocale } from '../domain/locale.ts';
import { endedByUs, newPaymentId, startedPayment, unavailablePayment } from '../domain/payment.ts';
import { effectiveStatus, type PaymentLink, type PspSession } from '../domain/payment-link.ts';
import { methodsFor } from '../domain/payment-methods.ts';
import { MODES } from '../domain/principal.ts';
import { routeLink } from '../domain/routing.ts';
import { logger } from '../logger.ts';
import { putMetrics } from '../metrics.ts';
import type { LinkRepository } from '../ports/link-repository.ts';
import type { PaymentRepository } from '../ports/payment-repository.ts';
import type { PspConnections } from './psp-connections.ts';

export interface CheckoutDependencies {
  links: LinkRepository;
  payments: PaymentRepository;
  psps: PspConnections;
  now: () => Date;
  checkoutBase: string;
  /** Public base of the service: PSP notification addresses are built on it. */
  baseUrl: string;
  /** Uniform in [0, 1): draws of weighted splits. */
  random: () => number;
  /** Time left before the function times out. */
  timeLeftMs: () => number;
  /** PSP calls one request may make at most (its function's declared call budget, lib/routes.ts). */
  maxPspCalls: number;
}

export interface CheckoutRequest {
  id: string;
  method: string;
  headers: Record<string, string | undefined>;
  /** The buyer chose another connection of the link's list ("try another payment provider"). */
  via?: string | undefined;
}

/** What the checkout page shows. */
export type CheckoutView =
  | { kind: 'not_found' }
  | { kind: 'paid'; link: PaymentLink }
  | { kind: 'gone'; link: PaymentLink; status: 'canceled' | 'expired' }
  /** A preview or prefetch: the page without a PSP session. */
  | { kind: 'preview'; link: PaymentLink }
  /**
   * Forward to the PSP's page. `alternative` is the next connection of the link's list, offered to a buyer
   * whose attempt did not go through.
   */
  | { kind: 'forward'; link: PaymentLink; session: PspSession; pspOrigin: string; alternative: string | null }
  /** Every connection failed (or is down): the link stays open, the buyer may try again shortly. */
  | { kind: 'unavailable'; link: PaymentLink };

/**
 * Checkout pages carry no key, so the link is found by id alone: the id is 142 random bits and names at most
 * one link, stored under one mode, so both modes are read (two strongly consistent GetItems, in parallel).
 */
export async function findLinkById(links: LinkRepository, id: string): Promise<PaymentLink | undefined> {
  const found = await Promise.all(MODES.map((mode) => links.get(id, mode)));
  return found.find((link) => link !== undefined);
}

const MAX_SESSION_ATTEMPTS = 3;

/**
 * `GET {checkout_base}/{id}`: decides the page, and for a buyer on an open link finds or creates the PSP
 * checkout session (docs/orchestration.md#failover). Routing orders the link's connections; a valid session of
 * one of them is reused; otherwise the previous session is ended and each connection is tried in turn, within
 * this request, until one opens a session: a failure that is not the buyer's (no answer within the PSP call
 * bound, a 5xx, a refusal) is recorded as a failed payment (`psp_unavailable`) and counts against the
 * connection's health, and connections that are `down` are skipped. The session is stored on the link with a
 * write conditioned on `version`; when a concurrent write wins, the unused session is ended and the decision
 * taken afresh.
 */
export async function openCheckout(
  given: CheckoutDependencies,
  request: CheckoutRequest,
): Promise<CheckoutView> {
  // Attempts of one request get increasing times, so "newest first" lists them in the order they were made.
  const deps = { ...given, now: strictlyIncreasing(given.now) };
  let calls = 0;
  for (let round = 1; ; round++) {
    const link = await findLinkById(deps.links, request.id);
    if (!link) return { kind: 'not_found' };
    const now = deps.now();
    const status = effectiveStatus(link, now);
    if (status === 'paid') return { kind: 'paid', link };
    if (status === 'canceled' || status === 'expired') return { kind: 'gone', link, status };
    if (isPreviewRequest(request.method, request.headers)) return { kind: 'preview', link };
    if (round === 1) putMetrics({ CheckoutVisits: 1 });

    const { connections, routing } = await deps.psps.directory(link.account, link.mode);
    const health = new Map(connections.map((state) => [state.connection.id, state.health]));
    let ordered = routeLink(
      link,
      routing,
      connections.map((state) => state.connection),
      deps.random,
    );
    const chosen = ordered.find((connection) => connection.id === request.via);
    if (chosen) ordered = [chosen, ...ordered.filter((connection) => connection !== chosen)];
    if (ordered.length === 0) throw new PspNotConfiguredError();
    const alternativeTo = (id: string) => ordered.find((connection) => connection.id !== id)?.id ?? null;

    const existing = reusableSession(link, chosen ? [chosen.id] : ordered.map((c) => c.id), now);
    if (existing) {
      const owner = ordered.find((connection) => connection.id === existing.connection_id) as PspConnection;
      const psp = await deps.psps.adapter(owner);
      return {
        kind: 'forward',
        link,
        session: existing,
        pspOrigin: psp.checkoutOrigin,
        alternative: alternativeTo(owner.id),
      };
    }
    if (await endPreviousSession(deps, link)) calls++;

    let raced = false;
    let failures = 0;
    for (const connection of ordered) {
      if (calls >= deps.maxPspCalls || deps.timeLeftMs() < PSP_CALL_TIMEOUT_MS + ANSWER_ROOM_MS) break;
      if (!(await mayTry(deps, connection, health.get(connection.id), now))) continue;
      calls++;
      const locale = resolveLocale(link.locale, request.headers['accept-language']);
      const opened = await tryConnection(deps, link, connection, health.get(connection.id), locale);
      if (!opened) {
        failures++;
        continue;
      }
      if (failures > 0) putMetrics({ Failovers: 1 }, { connection: connection.id });
      const { session, psp } = opened;
      const payment = startedPayment(
        { id: session.payment_id, link, connection },
        { id: session.id, expires_at: session.expires_at },
        deps.now(),
      );
      const updated = withSession(link, session);
      const [stored, recorded] = await Promise.allSettled([
        deps.links.saveSession(link, updated),
        deps.payments.save(payment),
      ]);
      if (recorded.status === 'rejected') {
        // The notification or the sweeper creates it from what the PSP says.
        logger.warn('Payment not recorded at session creation', {
          payment_id: payment.id,
          error: recorded.reason,
        });
      }
      if (stored.status === 'fulfilled') {
        return {
          kind: 'forward',
          link: updated,
          session,
          pspOrigin: psp.checkoutOrigin,
          alternative: alternativeTo(connection.id),
        };
      }
      if (!(stored.reason instanceof ConcurrentModificationError) || round >= MAX_SESSION_ATTEMPTS) {
        throw stored.reason;
      }
      // Someone else changed the link first (another tab stored its session, or a transition): our session
      // is not the link's, so end it and decide again from what is stored now.
      calls++;
      await psp
        .expireSession(session)
        .catch((error: unknown) =>
          logger.warn('Could not expire an unused PSP session', { session_id: session.id, error }),
        );
      const ended = endedByUs(payment, deps.now());
      if (ended) await deps.payments.save(ended, payment).catch(() => undefined);
      raced = true;
      break;
    }
    if (!raced) return { kind: 'unavailable', link };
  }
}

function strictlyIncreasing(now: () => Date): () => Date {
  let last = 0;
  return () => {
    last = Math.max(now().getTime(), last + 1);
    return new Date(last);
  };
}

/**
 * Whether the connection may be tried now: yes unless it is `down`; a connection whose down time is over gets
 * one trial, claimed by a conditional write so that only one instance makes it.
 */
async function mayTry(
  deps: CheckoutDependencies,
  connection: PspConnection,
  known: ConnectionHealth | undefined,
  now: Date,
): Promise<boolean> {
  const health = known ?? INITIAL_HEALTH;
  if (isAvailable(health, now)) return true;
  if (!awaitsTrial(health, now)) return false;
  const claimed = await deps.psps.updateHealth(
    connection,
    (current) => claimTrial(current, now, PSP_CALL_TIMEOUT_MS + ANSWER_ROOM_MS),
    health,
  );
  return claimed !== undefined;
}

/**
 * One attempt: a session at this connection, or (on a failure that is not the buyer's) a failed payment with
 * `psp_unavailable` and one more failure in the connection's health. The connection's health is updated either
 * way (best effort: a lost health write never fails the buyer's request).
 */
async function tryConnection(
  deps: CheckoutDependencies,
  link: PaymentLink,
  connection: PspConnection,
  health: ConnectionHealth | undefined,
  locale: string,
) {
  const paymentId = newPaymentId();
  try {
    const psp = await deps.psps.adapter(connection);
    const now = deps.now();
    const session = await psp.createSession(link, {
      successUrl: link.redirect_url ?? `${deps.checkoutBase}/${link.id}/complete`,
      cancelUrl: `${deps.checkoutBase}/${link.id}?canceled=1`,
      notificationUrl: `${deps.baseUrl}/psp/${connection.provider}/notifications/${connection.id}`,
      expiresAt: sessionExpiry(link, now, psp.sessionLimits),
      paymentId,
      locale,
      paymentMethods: methodsFor(link.payment_methods, connection.methods),
    });
    if (health && afterSuccess(health)) {
      await deps.psps
        .updateHealth(connection, afterSuccess, health)
        .catch((error: unknown) =>
          logger.warn('Connection health not recorded', { connection_id: connection.id, error }),
        );
    }
    return { session, psp };
  } catch (error) {
    putMetrics({ PspSessionFailures: 1 }, { connection: connection.id });
    putMetrics({ PaymentsFailed: 1 }, { provider: connection.provider });
    logger.warn('PSP session creation failed: trying the next connection', {
      link_id: link.id,
      connection_id: connection.id,
      provider: connection.provider,
      payment_id: paymentId,
      error,
    });
    const now = deps.now();
    const failed = unavailablePayment(
      { id: paymentId, link, connection },
      `${connection.provider} could not open a session.`,
      now,
    );
    await Promise.all([
      deps.payments
        .save(failed)
        .catch((saveError: unknown) =>
          logger.warn('Failed attempt not recorded', { payment_id: paymentId, error: saveError }),
        ),
      connection.id === BUILT_IN_SANDBOX_ID
        ? undefined
        : deps.psps
            .updateHealth(connection, (current) => afterFailure(current, now), health)
            .catch((healthError: unknown) =>
              logger.warn('Connection health not recorded', {
                connection_id: connection.id,
                error: healthError,
              }),
            ),
    ]);
    return undefined;
  }
}

/**
 * One open PSP session per link: the one stored on the link is ended before another is created, so a buyer
 * holding the old page cannot pay twice; its payment is recorded as canceled. If the PSP cannot end it, a
 * payment on it is still recorded as its own payment and reported (docs/orchestration.md#duplicate-payments).
 * Returns whether a PSP call was made.
 */
async function endPreviousSession(deps: CheckoutDependencies, link: PaymentLink): Promise<boolean> {
  const previous = link.psp_session;
  if (!previous || Date.parse(previous.expires_at) <= deps.now().getTime()) return false;
  try {
    await deps.psps.expireSession(link.account, link.mode, previous);
    if (previous.payment_id) {
      const payment = await deps.payments.get(link.id, link.mode, previous.payment_id);
      const ended = payment && endedByUs(payment, deps.now());
      if (ended) await deps.payments.save(ended, payment);
    }
  } catch (error) {
    logger.warn('Previous PSP session not ended', {
      link_id: link.id,
      session_id: previous.id,
      connection_id: previous.connection_id ?? BUILT_IN_SANDBOX_ID,
      error,
    });
  }
  return true;
}
