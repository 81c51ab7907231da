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
