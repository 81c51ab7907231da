import { type ErasedBuyer, isErased } from './buyer.ts';
import { firstAttemptOf, type Payment } from './payment.ts';
import type { Mode } from './principal.ts';
import { type CollectionSettings, DEFAULT_COLLECTION } from './subscription-schedule.ts';
import { DEFAULT_TIME_ZONE } from './time-zones.ts';

/**
 * Personal data on a payment (docs/security.md#personal-data): what the buyer gave (`buyer`), their reference
 * from the checkout URL (`client_reference_id`) and their answers to the link's own questions (`custom_fields`:
 * free text such as a student id). The e-mail a checkout URL prefills goes to the PSP and is never stored. Kept until the (account,
 * mode)'s retention period has passed since the payment, or until the merchant asks: then erased everywhere we
 * hold it, the payment itself kept with `buyer: {erased_at}`.
 */

/** The attributes of a stored payment that hold personal data, besides `buyer`. */
export const PERSONAL_PAYMENT_ATTRIBUTES = ['client_reference_id', 'custom_fields'] as const;

/** Fields of a stored event's data that carry a payment's personal data (`scrubbedEventData`). */
const PERSONAL_EVENT_FIELDS = ['buyer', ...PERSONAL_PAYMENT_ATTRIBUTES] as const;

export const DEFAULT_RETENTION_DAYS = 400;
/** The shortest period a merchant may set: also when a payment's retention is first checked. */
export const MIN_RETENTION_DAYS = 30;
/** Ten years: the longest period bookkeeping laws ask records to be kept. */
export const MAX_RETENTION_DAYS = 3650;

const DAY_MS = 86_400_000;

/** An (account, mode)'s settings that are not about its checkout pages' look (`GET /v1/account-settings`). */
export interface AccountSettings extends CollectionSettings {
  account: string;
  mode: Mode;
  /** Days after a payment's creation that its buyer's details are erased. */
  personal_data_retention_days: number;
  /** The IANA time zone its dates are days of (`created[gte]=2026-11-29` in the books, ./time-zones.ts). */
  time_zone: string;
  updated_at: string | null;
}

export const defaultAccountSettings = (account: string, mode: Mode): AccountSettings => ({
  account,
  mode,
  personal_data_retention_days: DEFAULT_RETENTION_DAYS,
  time_zone: DEFAULT_TIME_ZONE,
  ...DEFAULT_COLLECTION,
  updated_at: null,
});

/** Whether a payment still holds personal data (an erased `buyer` is none). */
export function holdsPersonalData(payment: Pick<Payment, 'buyer' | PersonalAttribute>): boolean {
  const buyer = payment.buyer !== undefined && !isErased(payment.buyer);
  return buyer || PERSONAL_PAYMENT_ATTRIBUTES.some((attribute) => payment[attribute] !== undefined);
}

type PersonalAttribute = (typeof PERSONAL_PAYMENT_ATTRIBUTES)[number];

/** When a settled payment holding personal data is first looked at by the retention sweep. */
export function firstRetentionCheck(payment: Pick<Payment, 'created_at'>): string {
  return new Date(Date.parse(payment.created_at) + MIN_RETENTION_DAYS * DAY_MS).toISOString();
}

/**
 * What the retention sweep does with a payment it looks at: erase it when the (account, mode)'s period has
 * passed since its creation, or look again when it will have. The period read is the current one, so a period
 * lengthened since the first look postpones the erasure and one shortened brings it forward to that look.
 */
export function retentionStep(
  payment: Pick<Payment, 'created_at'>,
  retentionDays: number,
  now: Date,
): { erase: true } | { erase: false; checkAt: string } {
  const due = Date.parse(payment.created_at) + retentionDays * DAY_MS;
  return due <= now.getTime() ? { erase: true } : { erase: false, checkAt: new Date(due).toISOString() };
}

export const erasedBuyer = (now: Date): ErasedBuyer => ({ erased_at: now.toISOString() });

/** The payment without its personal data; `undefined` when it holds none (nothing to write). */
export function erasedPayment(payment: Payment, now: Date): Payment | undefined {
  if (!holdsPersonalData(payment)) return undefined;
  const kept: Payment = { ...payment };
  for (const attribute of PERSONAL_PAYMENT_ATTRIBUTES) delete kept[attribute];
  return {
    ...kept,
    buyer: erasedBuyer(now),
    updated_at: now.toISOString(),
    version: payment.version + 1,
  };
}

/**
 * The attempts of `payment`'s buyer among its link's payments (docs/security.md#personal-data): `payment` first,
 * then every other that still holds personal data and either has the same `client_reference_id` (when `payment`
 * has one) or is in the same buyer cookie's chain (`firstAttemptOf`: opened in the same browser). The address hash
 * `opened_by` links nothing: every buyer behind one address shares it.
 */
export function attemptsOfBuyer(payment: Payment, ofLink: readonly Payment[]): Payment[] {
  const reference = payment.client_reference_id;
  const chain = firstAttemptOf(payment);
  const others = ofLink.filter(
    (other) =>
      other.id !== payment.id &&
      holdsPersonalData(other) &&
      ((reference !== undefined && other.client_reference_id === reference) ||
        firstAttemptOf(other) === chain),
  );
  return [payment, ...others];
}

/** Payments whose copies are to be scrubbed, each with its erasure's time (`erased_at`, ISO 8601). */
export type Erasures = ReadonlyMap<string, string>;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The erased payment `node` is, or holds as its `payment` (a single-use link's resource), if any. */
function concernedPayment(node: Record<string, unknown>, erasures: Erasures): string | undefined {
  const ids = [node.id, node.payment_id, isObject(node.payment) ? node.payment.id : undefined];
  return ids.find((id): id is string => typeof id === 'string' && erasures.has(id));
}

/**
 * An event's data without the erased payments' personal data: every object that is one of them (or holds it, as
 * a paid link holds its payment) loses the personal fields, its `buyer` becoming `{erased_at}` with that payment's
 * time. `undefined` when the data carries none of it (nothing to write).
 */
export function scrubbedEventData(data: unknown, erasures: Erasures): unknown {
  let changed = false;
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (!isObject(node)) return node;
    const copy: Record<string, unknown> = {};
    const erased = concernedPayment(node, erasures);
    for (const [key, value] of Object.entries(node)) {
      if (erased !== undefined && (PERSONAL_EVENT_FIELDS as readonly string[]).includes(key)) {
        const erasure = { erased_at: erasures.get(erased) as string };
        if (key === 'buyer') copy.buyer = erasure;
        // A buyer erased before, at that time, is no change: copies scrubbed again are not written again.
        changed ||= key !== 'buyer' || JSON.stringify(value) !== JSON.stringify(erasure);
        continue;
      }
      copy[key] = walk(value);
    }
    return copy;
  };
  const scrubbed = walk(data);
  return changed ? scrubbed : undefined;
}
