import {
  type BookPayment,
  type BookRefund,
  type BooksFilter,
  toBookPayment,
  toBookRefund,
} from '../domain/books.ts';
import type { Amount } from '../domain/money.ts';
import type { Payment } from '../domain/payment.ts';
import type { Principal } from '../domain/principal.ts';
import type { Books, BooksPage } from '../ports/books.ts';
import type { LinkRepository } from '../ports/link-repository.ts';

export interface BooksDependencies {
  books: Books;
  /** Read only for payments recorded before payments kept their amount (their link's was theirs). */
  links: LinkRepository;
}

export interface BooksRequest extends BooksFilter {
  limit: number;
  after?: string | undefined;
}

/** `GET /v1/payments`: a page of the (account, mode)'s payments, newest first (docs/api.md#books). */
export async function listBookPayments(
  deps: BooksDependencies,
  principal: Principal,
  request: BooksRequest,
): Promise<BooksPage<BookPayment>> {
  const page = await deps.books.payments({ ...request, account: principal.account, mode: principal.mode });
  const links = await linksOfOlderPayments(deps, principal, page.entries);
  return {
    entries: page.entries.map((payment) =>
      toBookPayment(payment, links.get(payment.link_id) ?? { amount: null }),
    ),
    next: page.next,
  };
}

/** The links of the payments that do not carry their amount, by id. */
async function linksOfOlderPayments(
  deps: BooksDependencies,
  principal: Principal,
  payments: readonly Payment[],
): Promise<Map<string, { amount: Amount | null }>> {
  const ids = [...new Set(payments.filter((payment) => !payment.amount).map((payment) => payment.link_id))];
  const links = await Promise.all(ids.map((id) => deps.links.get(id, principal.mode)));
  return new Map(
    links.flatMap((link) => (link ? [[link.id, { amount: link.amount ?? null }] as const] : [])),
  );
}

/** `GET /v1/refunds`: a page of the (account, mode)'s refunds, newest first. */
export async function listBookRefunds(
  deps: BooksDependencies,
  principal: Principal,
  request: BooksRequest,
): Promise<BooksPage<BookRefund>> {
  const page = await deps.books.refunds({ ...request, account: principal.account, mode: principal.mode });
  return { entries: page.entries.map(toBookRefund), next: page.next };
}
