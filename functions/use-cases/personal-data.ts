import { isErased } from '../domain/buyer.ts';
import { ConcurrentModificationError, NotFoundError } from '../domain/errors.ts';
import { isPaymentId, type Payment } from '../domain/payment.ts';
import {
  type AccountSettings,
  defaultAccountSettings,
  erasedPayment,
  retentionStep,
} from '../domain/personal-data.ts';
import type { Mode, Principal } from '../domain/principal.ts';
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

/** An erasure as the merchant reads it: when (the first one, if asked again). */
export interface BuyerErasure {
  object: 'buyer_erasure';
  payment_id: string;
  erased_at: string;
}

/**
 * Erases a payment's personal data everywhere we hold it (docs/security.md#personal-data): the payment (its
 * `buyer` becomes `{erased_at}`, which records the erasure, and it leaves the reference index and the retention
 * sweep's list), then every copy (`PersonalDataStore.eraseCopies`). Asked again, it erases the copies again (a
 * previous run may have stopped half-way) and answers the first erasure's time.
 */
export async function erasePersonalData(
  deps: Pick<PersonalDataDependencies, 'payments' | 'personalData' | 'now'>,
  payment: Payment,
  reason: ErasureReason,
): Promise<string> {
  let current: Payment | undefined = payment;
  for (let round = 0; current; round++) {
    const erased = erasedPayment(current, deps.now());
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
  // Every copy says the same time as the payment (a payment that never held any: now).
  const erasedAt =
    current.buyer && isErased(current.buyer) ? current.buyer.erased_at : deps.now().toISOString();
  await deps.personalData.eraseCopies(current, new Date(erasedAt));
  // The log names the payment, never what was erased.
  logger.info('buyer details erased', { payment_id: current.id, link_id: current.link_id, reason });
  return erasedAt;
}

/** `DELETE /v1/payments/{id}/buyer`: erases a payment's buyer details on the merchant's request. */
export async function eraseBuyerOnRequest(
  deps: PersonalDataDependencies,
  principal: Principal,
  paymentId: string,
): Promise<BuyerErasure> {
  const payment = isPaymentId(paymentId)
    ? await deps.personalData.findPayment(principal.account, principal.mode, paymentId)
    : undefined;
  if (!payment) {
    throw new NotFoundError(`No payment ${paymentId} holding buyer details.`);
  }
  const erasedAt = await erasePersonalData(deps, payment, 'request');
  return { object: 'buyer_erasure', payment_id: payment.id, erased_at: erasedAt };
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
 * `PUT /v1/account-settings`: replaces them whole. A new retention period applies to every payment from the
 * retention sweep's next look at it (docs/security.md#personal-data).
 */
export async function putAccountSettings(
  deps: Pick<PersonalDataDependencies, 'settings' | 'now'>,
  principal: Principal,
  input: { personal_data_retention_days: number },
): Promise<AccountSettings> {
  const settings: AccountSettings = {
    ...defaultAccountSettings(principal.account, principal.mode),
    personal_data_retention_days: input.personal_data_retention_days,
    updated_at: deps.now().toISOString(),
  };
  await deps.settings.put(settings);
  return settings;
}
