import type { ReportedFailure } from '../../../domain/payment-failure.ts';
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
