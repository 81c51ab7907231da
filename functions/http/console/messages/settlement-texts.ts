import type { PayoutItemKind, PayoutStatus } from '../../../domain/settlement.ts';

/** The settlements list and a settlement's page (docs/console.md#settlements). */
export interface SettlementTexts {
  title: string;
  /** One settlement's page. */
  titleOf: (id: string) => string;
  /** The arrival days the list's filter and presets pick. */
  arrivalFrom: string;
  arrivalTo: string;
  connection: string;
  anyConnection: string;
  newestFirst: string;
  none: string;
  settlement: string;
  provider: string;
  arrival: string;
  /** No arrival day yet: its PSP has not said. */
  noArrival: string;
  statuses: Record<PayoutStatus, string>;
  matched: string;
  unmatched: string;
  pspReference: string;
  kind: string;
  kinds: Record<PayoutItemKind, string>;
  fee: string;
  net: string;
  /** The lines matched to our payments and refunds. */
  matchedLines: string;
  noMatchedLines: string;
  /** The lines we could not match, with what the PSP calls them. */
  unmatchedLines: string;
  unmatchedIntro: string;
  noUnmatchedLines: string;
  paymentReference: string;
  /** A refund's line: the refund, of the payment whose page it opens. */
  refundOf: (refund: string) => string;
  download: string;
  downloadLines: string;
  /** More settlements than one download holds: narrow the arrival dates. */
  tooMany: (limit: number) => string;
}
