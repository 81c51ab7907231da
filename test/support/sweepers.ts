import { config } from '../../functions/config.ts';
import { eventQueue, linkRepository, paymentRepository, refundLedger } from '../../functions/dependencies.ts';
import { pspConnections, settlementSweep } from '../../functions/psp-dependencies.ts';
import { checkPendingPayments } from '../../functions/use-cases/pending-payments.ts';
import { checkPendingRefunds } from '../../functions/use-cases/refunds.ts';
import { sweepSettlements as sweepPayouts } from '../../functions/use-cases/settlements.ts';

/** The sweepers as their schedules run them in the test's own process, at `at`, one batch of 100. */

/** Payments still pending at their PSP (missed notifications, approved sessions awaiting our capture). */
export const sweepPendingPayments = (at: Date) =>
  checkPendingPayments(
    {
      links: linkRepository(),
      payments: paymentRepository(),
      psps: pspConnections(),
      queue: eventQueue(),
      now: () => at,
      checkoutBase: config().CHECKOUT_BASE,
    },
    100,
  );

/** Refunds still pending at their PSP. */
export const sweepPendingRefunds = (at: Date) =>
  checkPendingRefunds(
    {
      links: linkRepository(),
      ledger: refundLedger(),
      payments: paymentRepository(),
      refunds: pspConnections(),
      queue: eventQueue(),
      now: () => at,
      checkoutBase: config().CHECKOUT_BASE,
    },
    100,
  );

/** The PSPs' payouts of the connections due (functions/use-cases/settlements.ts). */
export const sweepSettlements = (at: Date) => sweepPayouts({ ...settlementSweep(), now: () => at }, 100);
