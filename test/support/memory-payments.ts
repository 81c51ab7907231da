import type { Payment } from '../../functions/domain/payment.ts';
import type { PaymentRepository } from '../../functions/ports/payment-repository.ts';

/** A payment repository in memory, for use-case tests that need no table: each link's payments, newest first. */
export function memoryPayments(): PaymentRepository & { all(): Payment[] } {
  const payments = new Map<string, Payment>();
  const newestFirst = (list: Payment[]) =>
    list.sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id));
  return {
    all: () => [...payments.values()],
    async save(payment, before) {
      const stored = payments.get(payment.id);
      if (before ? stored?.version !== before.version : stored)
        throw new Error(`Payment ${payment.id} changed.`);
      payments.set(payment.id, payment);
    },
    async get(_linkId, _mode, id) {
      return payments.get(id);
    },
    async listOfLink(linkId, mode) {
      return newestFirst([...payments.values()].filter((p) => p.link_id === linkId && p.mode === mode));
    },
    async listOfLinkSince(linkId, mode, since) {
      return newestFirst(
        [...payments.values()].filter(
          (p) => p.link_id === linkId && p.mode === mode && Date.parse(p.created_at) >= since.getTime(),
        ),
      );
    },
    async dueForCheck() {
      return [];
    },
    async pendingOfConnection() {
      return [];
    },
  };
}
