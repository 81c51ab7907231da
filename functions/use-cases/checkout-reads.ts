import type { Amount } from '../domain/money.ts';
import { paymentAmount } from '../domain/payment.ts';
import type { PaymentLink, PspSession } from '../domain/payment-link.ts';
import { MODES } from '../domain/principal.ts';
import type { LinkRepository } from '../ports/link-repository.ts';
import type { PaymentRepository } from '../ports/payment-repository.ts';
import type { PspConnections } from './psp-connections.ts';

/**
 * Checkout pages carry no key, so the link is found by id alone: the id is 142 random bits and names at most
 * one link, stored under one mode, so both modes are read (two strongly consistent GetItems, in parallel).
 */
export async function findLinkById(links: LinkRepository, id: string): Promise<PaymentLink | undefined> {
  const found = await Promise.all(MODES.map((mode) => links.get(id, mode)));
  return found.find((link) => link !== undefined);
}

/**
 * What the buyer back on our return page is told: whether they have paid (a single-use link is paid; on a
 * reusable link, the payment their cookie names succeeded), and the amount of their own attempt. A reusable
 * link's buyers never see each other's amounts (docs/checkout.md#reusable-links): without a cookie naming one
 * of its payments, the page shows the link's own amount, or its range.
 */
export async function buyerOutcome(
  payments: Pick<PaymentRepository, 'get'>,
  link: PaymentLink,
  buyerPayment: string | undefined,
): Promise<{ paid: boolean; amount: Amount | undefined }> {
  if (!link.reusable) {
    const amount = link.payment?.amount ?? link.psp_session?.amount ?? link.amount ?? undefined;
    return { paid: link.status === 'paid', amount };
  }
  const own = buyerPayment === undefined ? undefined : await payments.get(link.id, link.mode, buyerPayment);
  return {
    paid: own?.status === 'succeeded',
    amount: own ? paymentAmount(own, link) : (link.amount ?? undefined),
  };
}

/** The origin of the session's PSP page, for the page's `form-action`. */
export async function pspOrigin(
  deps: { psps: PspConnections },
  link: PaymentLink,
  session: PspSession,
): Promise<string> {
  try {
    const connection = await deps.psps.sessionConnection(link.account, link.mode, session);
    return (await deps.psps.adapter(connection)).checkoutOrigin;
  } catch {
    // A connection removed since: the session's own page still takes the buyer.
    return new URL(session.url).origin;
  }
}
