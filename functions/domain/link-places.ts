import type { Payment } from './payment.ts';
import type { LinkPlace, PaymentLink } from './payment-link.ts';

/**
 * The places of a reusable link with `max_payments` (docs/orchestration.md#places): numbered 0 to
 * `max_payments - 1`, each free or held by one buyer. An opening takes a place before any PSP is called, with a
 * write whose condition is that place alone (`LinkRepository.holdPlace`: still as the decision read it), so two
 * openings never hold the same one and succeeded payments plus payable sessions never pass `max_payments`,
 * however many buyers open the checkout at once: no count is read and then written.
 *
 * A place is held by an opening (`holder` its token) until the request that took it can no longer use it, then
 * by the payment of the session it opened until that session's expiry (`until`), and for good (`until` null) once
 * that payment succeeded (`placesAfterPayment`, in the write that records the payment). It is free again once
 * its `until` has passed or its payment ended unpaid: a place lapses by what is already stored, never by a write
 * of its own that a crash could lose, so whatever step fails, a place is held no longer than its `until`.
 */

/** Whether the link's payments are bounded by places: a reusable link with `max_payments`. */
export const hasPlaces = (link: PaymentLink): link is PaymentLink & { max_payments: number } =>
  link.reusable && link.max_payments !== null;

/** A place an opening may take: its number, and what it holds now (taken only while it still holds that). */
export interface PlaceToTake {
  slot: number;
  held: LinkPlace | null;
}

/** The places of the link as a decision sees them: the free ones, and when the first held one lapses. */
export interface PlacesRead {
  free: PlaceToTake[];
  /** When the first held place lapses by itself; null when every one is held for good. */
  firstFree: Date | null;
}

const ENDED_UNPAID = new Set<Payment['status']>(['failed', 'canceled', 'expired']);

/**
 * The link's places at `now`, with the payments the decision read (a place whose payment ended unpaid is free;
 * a payment not read leaves its place held until it lapses). `releasing`: the buyer's own payable attempt that a
 * new session would replace, whose place counts as free (it is ended before the new one takes a place).
 * Succeeded payments that hold no place (paid before places existed, or when none was free) take the first
 * places, so that a free place is always one a payment may still use.
 */
export function placesOf(
  link: PaymentLink,
  payments: readonly Payment[],
  now: Date,
  releasing?: string,
): PlacesRead {
  if (!hasPlaces(link)) return { free: [], firstFree: null };
  const ended = new Set(payments.filter((payment) => ENDED_UNPAID.has(payment.status)).map((p) => p.id));
  if (releasing !== undefined) ended.add(releasing);
  const free: PlaceToTake[] = [];
  let firstFree = Number.POSITIVE_INFINITY;
  for (let slot = unplacedPayments(link); slot < link.max_payments; slot++) {
    const held = link.places[slot] ?? null;
    if (held === null) free.push({ slot, held });
    else if (held.until === null) continue;
    else if (lapsed(held, now) || ended.has(held.holder)) free.push({ slot, held });
    else firstFree = Math.min(firstFree, Date.parse(held.until));
  }
  return { free, firstFree: Number.isFinite(firstFree) ? new Date(firstFree) : null };
}

/** One of the free places, drawn at random, so that buyers opening at once seldom want the same one. */
export function placeToTake(read: PlacesRead, random: () => number): PlaceToTake | undefined {
  return read.free[Math.min(Math.floor(random() * read.free.length), read.free.length - 1)];
}

/**
 * The link's places once `paymentId` succeeded: its place is its for good; one that held none (its session
 * outlived its place, or opened before places existed) takes a free place if there is one. `counted`: false
 * when the payment is beyond `max_payments` (a duplicate), which keeps no place.
 */
export function placesAfterPayment(
  link: PaymentLink,
  paymentId: string,
  counted: boolean,
  now: Date,
): Record<string, LinkPlace> {
  if (!hasPlaces(link)) return link.places;
  const places = { ...link.places };
  const own = Object.keys(places).find((slot) => places[slot]?.holder === paymentId);
  if (!counted) {
    if (own !== undefined) delete places[own];
    return places;
  }
  const slot = own ?? firstLapsed(link, now);
  if (slot !== undefined) places[slot] = { holder: paymentId, until: null };
  return places;
}

function firstLapsed(link: PaymentLink & { max_payments: number }, now: Date): string | undefined {
  for (let slot = unplacedPayments(link); slot < link.max_payments; slot++) {
    const held = link.places[slot];
    if (held === undefined || lapsed(held, now)) return String(slot);
  }
  return undefined;
}

const lapsed = (place: LinkPlace, now: Date): boolean =>
  place.until !== null && Date.parse(place.until) <= now.getTime();

/** Succeeded payments that hold no place of their own. */
function unplacedPayments(link: PaymentLink): number {
  const placed = new Set(
    Object.values(link.places)
      .filter((place) => place.until === null)
      .map((place) => place.holder),
  );
  return Object.keys(link.paid_payments).filter((id) => !placed.has(id)).length;
}
