import type { Payment } from '../domain/payment.ts';
import type { AccountSettings, Erasures } from '../domain/personal-data.ts';
import type { Mode } from '../domain/principal.ts';

/** Where a payment's personal data is held besides the payment (docs/security.md#personal-data). */
export interface PersonalDataStore {
  /**
   * The payment of (account, mode) with this id that holds, or held, personal data; undefined for any other
   * (one that never held any is not found by its id alone).
   */
  findPayment(account: string, mode: Mode, id: string): Promise<Payment | undefined>;
  /**
   * Erases the personal data of erased payments of one link from every copy, each with its payment's erasure time:
   * their refunds' entries in the books (and their reference index), every stored event of the link and each
   * event's deliveries, and the link's item. Idempotent.
   */
  eraseCopies(link: Pick<Payment, 'link_id' | 'mode'>, erasures: Erasures): Promise<void>;
  /** Settled payments whose retention check is due at `now` (the retention sweep's list), at most `limit`. */
  dueForRetention(now: Date, limit: number): Promise<{ link_id: string; mode: Mode; id: string }[]>;
}

/** An (account, mode)'s account settings (`GET/PUT /v1/account-settings`). */
export interface AccountSettingsRepository {
  get(account: string, mode: Mode): Promise<AccountSettings | undefined>;
  put(settings: AccountSettings): Promise<void>;
}
