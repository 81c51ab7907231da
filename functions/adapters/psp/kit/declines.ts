import {
  FAILURE_CLASS,
  type PaymentFailureCode,
  type ReportedFailure,
} from '../../../domain/payment-failure.ts';
import type { PspDescriptor } from '../../../ports/psp-descriptor.ts';

/**
 * A decline as our vocabulary says it (docs/orchestration.md#decline-codes), from the PSP's own code through its
 * descriptor's `declines` table: a code the table lacks is `processing_error`, no code at all `declined`. The
 * message keeps the PSP's code, which is what its support asks for.
 */
export function declineOf(
  descriptor: Pick<PspDescriptor, 'displayName' | 'declines'>,
  pspCode: string | null | undefined,
  message: string,
): ReportedFailure {
  if (!pspCode) return { code: 'declined', message };
  const table = descriptor.declines ?? {};
  const code = (Object.hasOwn(table, pspCode) && table[pspCode]) || 'processing_error';
  return { code, message: `${message} (${descriptor.displayName} code ${pspCode})` };
}

/**
 * One column of a PSP's decline table (the PSP's code -> what it means to us, one meaning a column), keyed by the
 * PSP's code: the checkout codes `declineOf` reads as a descriptor's `declines`, or any other column.
 */
export function columnOf<Row extends readonly unknown[], Column extends number>(
  table: Readonly<Record<string, Row>>,
  column: Column,
): Readonly<Record<string, Row[Column]>> {
  return Object.fromEntries(Object.entries(table).map(([code, row]) => [code, row[column]]));
}

/**
 * A decline that the issuer said more of than its code (an advice never to try the card again, a raw answer naming a
 * card no PSP can charge): that word's code, unless the mapped code already says no PSP can charge the card (a lost
 * card stays `lost_or_stolen_card`), so that recovery never tries the card elsewhere. The message names the PSP's
 * code and the issuer's word, which is what its support asks for.
 */
export function withIssuerWord(
  mapped: ReportedFailure,
  word: { code: PaymentFailureCode; said: string } | undefined,
  from: { displayName: string; message: string; pspCode: string | null | undefined },
): ReportedFailure {
  if (!word || FAILURE_CLASS[mapped.code] === 'hard') return mapped;
  const said = from.pspCode ? `code ${from.pspCode}, ${word.said}` : word.said;
  return { code: word.code, message: `${from.message} (${from.displayName} ${said})` };
}
