import type { BooksFilter, RefundEntry } from '../domain/books.ts';
import type { Payment } from '../domain/payment.ts';
import type { Mode } from '../domain/principal.ts';

/** What the books are asked: one (account, mode)'s page, filtered, past a cursor's position. */
export interface BooksQuery extends BooksFilter {
  account: string;
  mode: Mode;
  limit: number;
  /** A cursor's position (`<created_at>#<id>`): entries strictly older. */
  after?: string | undefined;
}

/**
 * A page, newest first. `next` is the position to continue after, or undefined on the last page; a filtered
 * read that spent its budget returns fewer than `limit` entries with a `next` (docs/api.md#books).
 */
export interface BooksPage<T> {
  entries: T[];
  next: string | undefined;
}

/**
 * The account-wide books: every payment and refund of an (account, mode), read from the listing built for them
 * (docs/data-model.md#books), never by a scan.
 */
export interface Books {
  payments(query: BooksQuery): Promise<BooksPage<Payment>>;
  refunds(query: BooksQuery): Promise<BooksPage<RefundEntry>>;
}
