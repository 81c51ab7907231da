import { isErased } from '../domain/buyer.ts';
import { ConcurrentModificationError, NotFoundError } from '../domain/errors.ts';
import { isPaymentId, type Payment } from '../domain/payment.ts';
import {
  type AccountSettings,
  attemptsOfBuyer,
  defaultAccountSettings,
  erasedPayment,
  retentionStep,
} from '../domain/personal-data.ts';
import type { Mode, Principal } from '../domain/principal.ts';
import { timeZoneNamed } from '../domain/time-zones.ts';
import { logger } from '../logger.ts';
import type { PaymentRepository } from '../ports/payment-repository.ts';
import type { AccountSettingsRepository, PersonalDataStore } from '../ports/personal-data.ts';

export interface PersonalDataDependencies {
  payments: PaymentRepository;
  personalData: PersonalDataStore;
  settings: AccountSettingsRepository;
  now: () => Date;
}

/** Rounds of reading a payment again when it changed while its details were being erased. */
const ERASE_ROUNDS = 3;

export type ErasureReason = 'request' | 'retention';

/** An erasure as the merchant reads it: when (the first one, if asked again), and which payments it erased. */
export interface BuyerErasure {
  object: 'buyer_erasure';
  payment_id: string;
  erased_at: string;
  payment_ids: string[];
}

/**
 * Writes the payment without its personal data (its `buyer` becomes `{erased_at}`, which records the erasure, and
 * it leaves the reference index and the retention sweep's list), reading it again when it changed meanwhile.
 * Returns the payment's erasure time: the first one when it was erased before; `at` otherwise.
 */
async function erasePayment(
  deps: Pick<PersonalDataDependencies, 'payments'>,
  payment: Payment,
  at: Date,
): Promise<string> {
  let current: Payment | undefined = payment;
  for (let round = 0; current; round++) {
    const erased = erasedPayment(current, at);
    if (!erased) break;
    try {
      await deps.payments.save(erased, current);
      current = erased;
      break;
    } catch (error) {
      if (!(error instanceof ConcurrentModificationError) || round + 1 === ERASE_ROUNDS) throw error;
      current = await deps.payments.get(payment.link_id, payment.mode, payment.id);
    }
  }
  if (!current) throw new NotFoundError('No such payment.');
  return current.buyer && isErased(current.buyer) ? current.buyer.erased_at : at.toISOString();
}

/** The log names the payments, never what was erased. */
const logErased = (payments: readonly Payment[], reason: ErasureReason) => {
  for (const payment of payments) {
    logger.info('buyer details erased', { payment_id: payment.id, link_id: payment.link_id, reason });
  }
};

/**
 * Erases a payment's personal data everywhere we hold it (docs/security.md#personal-data): the payment
 * (`erasePayment`), then every copy (`PersonalDataStore.eraseCopies`) with the same time. Asked again, it erases
 * the copies again (a previous run may have stopped half-way) and answers the first erasure's time.
 */
export async function erasePersonalData(
  deps: Pick<PersonalDataDependencies, 'payments' | 'personalData' | 'now'>,
  payment: Payment,
  reason: ErasureReason,
): Promise<string> {
  const erasedAt = await erasePayment(deps, payment, deps.now());
  await deps.personalData.eraseCopies(payment, new Map([[payment.id, erasedAt]]));
  logErased([payment], reason);
  return erasedAt;
}

/** A payment named by the merchant, and its buyer's other attempts on its link that still hold details. */
export interface BuyerAttempts {
  payment: Payment;
  others: Payment[];
  /** Every payment of the link, as read. */
  ofLink: Payment[];
}

/**
 * The payment of the key's (account, mode) and its buyer's other attempts on its link (`attemptsOfBuyer`): what
 * an erasure on request erases, which the console's confirmation lists. `NotFoundError` for a payment that never
 * held buyer details (nothing to erase) or another account's.
 */
export async function buyerAttempts(
  deps: Pick<PersonalDataDependencies, 'payments' | 'personalData'>,
  principal: Principal,
  paymentId: string,
): Promise<BuyerAttempts> {
  const payment = isPaymentId(paymentId)
    ? await deps.personalData.findPayment(principal.account, principal.mode, paymentId)
    : undefined;
  if (!payment) throw new NotFoundError(`No payment ${paymentId} holding buyer details.`);
  // One query of the link's own partition: every attempt on it, never a scan of the account's payments.
  const ofLink = await deps.payments.listOfLink(payment.link_id, payment.mode);
  const [, ...others] = attemptsOfBuyer(payment, ofLink);
  return { payment, others, ofLink };
}

/**
 * `DELETE /v1/payments/{id}/buyer`: erases the buyer's details from the payment and from their other attempts on
 * its link (`buyerAttempts`), then from every copy. The payment named goes last: until it is erased its reference
 * still finds the others, should a run stop half-way; and the copies of every payment of the link erased before
 * are scrubbed again, in case such a run had not reached them.
 */
export async function eraseBuyerOnRequest(
  deps: PersonalDataDependencies,
  principal: Principal,
  paymentId: string,
): Promise<BuyerErasure> {
  const { payment, others, ofLink } = await buyerAttempts(deps, principal, paymentId);
  const erasures = new Map<string, string>();
  for (const previous of ofLink) {
    if (previous.buyer && isErased(previous.buyer)) erasures.set(previous.id, previous.buyer.erased_at);
  }
  // One time for every attempt this request erases.
  const at = deps.now();
  for (const other of others) erasures.set(other.id, await erasePayment(deps, other, at));
  const erasedAt = await erasePayment(deps, payment, at);
  erasures.set(payment.id, erasedAt);
  await deps.personalData.eraseCopies(payment, erasures);
  logErased([...others, payment], 'request');
  return {
    object: 'buyer_erasure',
    payment_id: payment.id,
    erased_at: erasedAt,
    payment_ids: [payment.id, ...others.map((other) => other.id)],
  };
}

/**
 * One run of the retention sweep: each payment due is erased once its (account, mode)'s period has passed since
 * its creation, or looked at again when it will have (`retentionStep`). A payment that fails is logged and left
 * on the list: the next run takes it again. Returns how many were erased.
 */
export async function sweepRetention(deps: PersonalDataDependencies, limit: number): Promise<number> {
  const due = await deps.personalData.dueForRetention(deps.now(), limit);
  const periods = new Map<string, Promise<number>>();
  const periodOf = (account: string, mode: Mode) => {
    const key = `${account}\n${mode}`;
    if (!periods.has(key))
      periods.set(
        key,
        accountSettingsOf(deps, account, mode).then((s) => s.personal_data_retention_days),
      );
    return periods.get(key) as Promise<number>;
  };
  let erased = 0;
  for (const entry of due) {
    try {
      const payment = await deps.payments.get(entry.link_id, entry.mode, entry.id);
      if (!payment) continue;
      const step = retentionStep(payment, await periodOf(payment.account, payment.mode), deps.now());
      if (step.erase) {
        await erasePersonalData(deps, payment, 'retention');
        erased++;
      } else {
        await deps.payments.save(
          { ...payment, retention_check_at: step.checkAt, version: payment.version + 1 },
          payment,
        );
      }
    } catch (error) {
      logger.error('retention sweep: payment not handled', { payment_id: entry.id, error });
    }
  }
  return erased;
}

async function accountSettingsOf(
  deps: Pick<PersonalDataDependencies, 'settings'>,
  account: string,
  mode: Mode,
): Promise<AccountSettings> {
  return (await deps.settings.get(account, mode)) ?? defaultAccountSettings(account, mode);
}

/** `GET /v1/account-settings`: what is stored, or the defaults. */
export const getAccountSettings = (
  deps: Pick<PersonalDataDependencies, 'settings'>,
  principal: Principal,
): Promise<AccountSettings> => accountSettingsOf(deps, principal.account, principal.mode);

/**
 * `PUT /v1/account-settings`: replaces them whole (an absent `time_zone` is the default, UTC; an absent
 * collection setting its default, docs/subscriptions.md#retries). A new retention
 * period applies to every payment from the retention sweep's next look at it (docs/security.md#personal-data); a
 * new time zone to the dates of every request after it.
 */
export async function putAccountSettings(
  deps: Pick<PersonalDataDependencies, 'settings' | 'now'>,
  principal: Principal,
  input: {
    personal_data_retention_days: number;
    time_zone?: string | undefined;
    subscription_retry_days?: number[] | undefined;
    subscription_after_retries?: AccountSettings['subscription_after_retries'] | undefined;
  },
): Promise<AccountSettings> {
  const defaults = defaultAccountSettings(principal.account, principal.mode);
  const settings: AccountSettings = {
    ...defaults,
    personal_data_retention_days: input.personal_data_retention_days,
    // As the platform's list spells it (an alias given reads back as the zone it names).
    time_zone: (input.time_zone && timeZoneNamed(input.time_zone)) ?? defaults.time_zone,
    subscription_retry_days: input.subscription_retry_days ?? defaults.subscription_retry_days,
    subscription_after_retries: input.subscription_after_retries ?? defaults.subscription_after_retries,
    updated_at: deps.now().toISOString(),
  };
  await deps.settings.put(settings);
  return settings;
}
