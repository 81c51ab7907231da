import type { Mode, Principal } from '../domain/principal.ts';
import type { Settlement, SettlementItem } from '../domain/settlement.ts';

/**
 * Where a connection's payouts are read from (docs/api.md#settlements): one per connection whose PSP lists
 * payouts, on the settlement sweeper's list by when it is read next.
 */
export interface PayoutReading {
  connection_id: string;
  account: string;
  mode: Mode;
  /** Payouts made at or after this instant are read (the oldest one not final yet, or the newest seen). */
  read_from: string;
  next_read_at: string;
}

/** A payment found by its PSP's reference: where it is. */
export interface ReferencedPayment {
  link_id: string;
  mode: Mode;
  payment_id: string;
}

/** A page of an (account, mode)'s settlements, newest arrival first. */
export interface SettlementsRequest {
  limit: number;
  /** The listing position to read after (`<sort time>#<id>`, a cursor's). */
  after: string | undefined;
  /** Arrival days at or after / before (`YYYY-MM-DD`). */
  arrivalGte: string | undefined;
  arrivalLt: string | undefined;
  connectionId: string | undefined;
}

export interface SettlementsPage {
  entries: Settlement[];
  /** The position after the last entry read, when more may follow. */
  next: string | undefined;
}

export interface SettlementRepository {
  /**
   * Stores the settlement with its items, in place of what an earlier read stored under its id: the items first,
   * then the settlement, so that a settlement is never listed with fewer items than it counts.
   */
  save(settlement: Settlement, items: readonly SettlementItem[]): Promise<void>;
  /** The settlement and its items, or undefined when the (account, mode) has none of that id. */
  get(
    principal: Principal,
    id: string,
  ): Promise<{ settlement: Settlement; items: SettlementItem[] } | undefined>;
  list(principal: Principal, request: SettlementsRequest): Promise<SettlementsPage>;
  /** The settlement alone (one read, whatever its lines), or undefined: what the sweeper compares a payout with. */
  stored(id: string, mode: Mode): Promise<Settlement | undefined>;
  /** The payment a connection's PSP reference names (written when the payment got it), or undefined. */
  paymentByReference(connectionId: string, reference: string): Promise<ReferencedPayment | undefined>;
  /** Up to `limit` readings due at `now`. */
  dueReadings(now: Date, limit: number): Promise<PayoutReading[]>;
  saveReading(reading: PayoutReading): Promise<void>;
}
