import { isPreviewRequest, reusableSession, sessionExpiry, withSession } from '../domain/checkout.ts';
import { BUILT_IN_SANDBOX_ID, builtInSandbox, type PspConnection } from '../domain/connection.ts';
import {
  ConcurrentModificationError,
  PspNotConfiguredError,
  PspUnavailableError,
  ServiceError,
} from '../domain/errors.ts';
import { newPaymentId } from '../domain/payment.ts';
import { effectiveStatus, type PaymentLink, type PspSession } from '../domain/payment-link.ts';
import { MODES } from '../domain/principal.ts';
import { logger } from '../logger.ts';
import { putMetrics } from '../metrics.ts';
import type { LinkRepository } from '../ports/link-repository.ts';
import type { PspConnections } from './psp-connections.ts';

export interface CheckoutDependencies {
  links: LinkRepository;
  psps: PspConnections;
  now: () => Date;
  checkoutBase: string;
  /** Public base of the service: PSP notification addresses are built on it. */
  baseUrl: string;
}

export interface CheckoutRequest {
  id: string;
  method: string;
  headers: Record<string, string | undefined>;
}

/** What the checkout page shows. */
export type CheckoutView =
  | { kind: 'not_found' }
  | { kind: 'paid'; link: PaymentLink }
  | { kind: 'gone'; link: PaymentLink; status: 'canceled' | 'expired' }
  /** A preview or prefetch: the page without a PSP session. */
  | { kind: 'preview'; link: PaymentLink }
  | { kind: 'forward'; link: PaymentLink; session: PspSession; pspOrigin: string };

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
 * checkout session. A session is reused while valid (and from the same provider); otherwise a new one is
 * created and stored on the link with a write conditioned on `version`, which a concurrent transition or
 * session write makes fail: the link is then read again and the decision taken afresh.
 */
export async function openCheckout(
  deps: CheckoutDependencies,
  request: CheckoutRequest,
): Promise<CheckoutView> {
  for (let attempt = 1; ; attempt++) {
    const link = await findLinkById(deps.links, request.id);
    if (!link) return { kind: 'not_found' };
    const now = deps.now();
    const status = effectiveStatus(link, now);
    if (status === 'paid') return { kind: 'paid', link };
    if (status === 'canceled' || status === 'expired') return { kind: 'gone', link, status };
    if (isPreviewRequest(request.method, request.headers)) return { kind: 'preview', link };
    if (attempt === 1) putMetrics({ CheckoutVisits: 1 });

    const connection = await servingConnection(deps, link);
    const psp = await deps.psps.adapter(connection);
    const existing = reusableSession(link, [connection.id], now);
    if (existing) return { kind: 'forward', link, session: existing, pspOrigin: psp.checkoutOrigin };
    await endPreviousSession(deps, link);

    let session: PspSession;
    try {
      session = await psp.createSession(link, {
        successUrl: link.redirect_url ?? `${deps.checkoutBase}/${link.id}/complete`,
        cancelUrl: `${deps.checkoutBase}/${link.id}?canceled=1`,
        notificationUrl: `${deps.baseUrl}/psp/${connection.provider}/notifications/${connection.id}`,
        expiresAt: sessionExpiry(link, now, psp.sessionLimits),
        paymentId: newPaymentId(),
      });
    } catch (error) {
      if (error instanceof ServiceError) throw error;
      logger.error('PSP session creation failed', { link_id: link.id, provider: psp.provider, error });
      putMetrics({ PaymentsFailed: 1 }, { provider: psp.provider });
      throw new PspUnavailableError(error);
    }
    const updated = withSession(link, session);
    try {
      await deps.links.saveSession(link, updated);
      return { kind: 'forward', link: updated, session, pspOrigin: psp.checkoutOrigin };
    } catch (error) {
      if (!(error instanceof ConcurrentModificationError) || attempt >= MAX_SESSION_ATTEMPTS) throw error;
      // Someone else changed the link first (another tab stored its session, or a transition): our session
      // is not the link's, so end it and decide again from what is stored now.
      await psp.expireSession(session).catch((expireError: unknown) =>
        logger.warn('Could not expire an unused PSP session', {
          session_id: session.id,
          error: expireError,
        }),
      );
    }
  }
}

/** The connection that serves the link: the first enabled one, else (test mode) the built-in sandbox. */
async function servingConnection(deps: CheckoutDependencies, link: PaymentLink): Promise<PspConnection> {
  const { connections } = await deps.psps.directory(link.account, link.mode);
  const enabled = connections.find(({ connection }) => connection.enabled)?.connection;
  if (enabled) return enabled;
  if (link.mode === 'test') return builtInSandbox(link.account, link.mode);
  throw new PspNotConfiguredError();
}

/**
 * One open PSP session per link: the one stored on the link is ended before another is created, so a buyer
 * holding the old page cannot pay twice. If the PSP cannot end it, a payment on it is still recorded as its
 * own payment and reported (docs/orchestration.md#duplicate-payments).
 */
async function endPreviousSession(deps: CheckoutDependencies, link: PaymentLink): Promise<void> {
  const previous = link.psp_session;
  if (!previous || Date.parse(previous.expires_at) <= deps.now().getTime()) return;
  try {
    await deps.psps.expireSession(link.account, link.mode, previous);
  } catch (error) {
    logger.warn('Previous PSP session not ended', {
      link_id: link.id,
      session_id: previous.id,
      connection_id: previous.connection_id ?? BUILT_IN_SANDBOX_ID,
      error,
    });
  }
}
