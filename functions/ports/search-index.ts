import type { RefundEntry } from '../domain/books.ts';
import type { Payment } from '../domain/payment.ts';
import type { PaymentLink } from '../domain/payment-link.ts';
import type { Mode } from '../domain/principal.ts';
import type { SearchTerm } from '../domain/search.ts';

/** What a search found, as stored now. */
export type SearchResult =
  | { type: 'payment'; payment: Payment }
  | { type: 'refund'; refund: RefundEntry }
  | { type: 'link'; link: PaymentLink };

/**
 * The console's search index (docs/console.md#search): the keys each payment, refund and link writes with it, read
 * by key, never by a scan.
 */
export interface SearchIndex {
  /**
   * The (account, mode)'s entities a token of which answers one of `terms`, newest first, at most `limit`; each read
   * as it is now and kept only while it still answers (a key written before a change that then failed finds nothing).
   */
  find(account: string, mode: Mode, terms: readonly SearchTerm[], limit: number): Promise<SearchResult[]>;
}
