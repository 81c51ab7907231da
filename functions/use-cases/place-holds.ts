import type { PspConnection } from '../domain/connection.ts';
import type { ConnectionHealth } from '../domain/connection-health.ts';
import { ID_RANDOM_LENGTH } from '../domain/ids.ts';
import type { PlaceToTake } from '../domain/link-places.ts';
import { randomBase62 } from '../domain/random.ts';
import { logger } from '../logger.ts';
import {
  type Opening,
  openSession,
  type PspCallBudget,
  type SessionOpening,
  type SessionOpeningDependencies,
} from './session-openings.ts';

/**
 * Opens a session (`openSession`) in the link's place `place` when the decision names one
 * (functions/domain/link-places.ts): the place is taken before any PSP is called, by a write conditioned on it
 * alone; a place taken by another buyer meanwhile means `decide_again`, with no PSP called. The opening holds it
 * until this request can no longer use it; the session's payment then holds it until the session's expiry. An
 * opening that opens nothing gives it back at once (and a crash leaves it to lapse by itself).
 */
export async function openInPlace(
  deps: SessionOpeningDependencies,
  opening: Opening,
  place: PlaceToTake | undefined,
  candidates: readonly PspConnection[],
  health: ReadonlyMap<string, ConnectionHealth>,
  budget: PspCallBudget,
): Promise<SessionOpening> {
  const now = deps.now();
  if (!place) return openSession(deps, opening, candidates, health, budget, now);
  const { link } = opening;
  const holder = `opening_${randomBase62(ID_RANDOM_LENGTH)}`;
  const until = new Date(now.getTime() + Math.min(deps.timeLeftMs(), MAX_OPENING_HOLD_MS)).toISOString();
  if (!(await deps.links.holdPlace(link, place.slot, place.held, { holder, until }))) {
    return { kind: 'decide_again' };
  }
  let opened: SessionOpening | undefined;
  try {
    const held = { ...opening, place: { slot: place.slot, holder } };
    opened = await openSession(deps, held, candidates, health, budget, now);
    return opened;
  } finally {
    if (opened?.kind !== 'opened') {
      await deps.links.releasePlace(link, place.slot, holder).catch((error: unknown) => {
        logger.warn('Place not released: it lapses by itself', { link_id: link.id, error });
      });
    }
  }
}

/** The longest an opening holds a place before its session's payment does (a request lives less). */
const MAX_OPENING_HOLD_MS = 5 * 60_000;
