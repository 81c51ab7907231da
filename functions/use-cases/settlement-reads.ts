import { ValidationError } from '../domain/errors.ts';
import { decodeCursor, encodeCursor } from '../domain/page-cursor.ts';
import type { Principal } from '../domain/principal.ts';
import type { Settlement, SettlementItem } from '../domain/settlement.ts';
import type { SettlementRepository } from '../ports/settlements.ts';

/** A settlement as the API shows it: without the account, which the key names. */
export type SettlementResource = Omit<Settlement, 'account'>;

const resourceOf = ({ account: _, ...settlement }: Settlement): SettlementResource => settlement;

export interface SettlementsQuery {
  'arrival_date[gte]'?: string | undefined;
  'arrival_date[lt]'?: string | undefined;
  connection_id?: string | undefined;
  limit: number;
  cursor?: string | undefined;
}

/** `GET /v1/settlements`: a page of the key's (account, mode) settlements, newest arrival first. */
export async function listSettlements(
  settlements: Pick<SettlementRepository, 'list'>,
  principal: Principal,
  query: SettlementsQuery,
): Promise<{ data: SettlementResource[]; next_cursor: string | null }> {
  const after = query.cursor === undefined ? undefined : decodeCursor(principal, query.cursor, 'stl');
  if (query.cursor !== undefined && after === undefined) {
    throw new ValidationError([
      { pointer: '/cursor', detail: 'Not a cursor this API key was given: pass `next_cursor` unchanged.' },
    ]);
  }
  const page = await settlements.list(principal, {
    limit: query.limit,
    after,
    arrivalGte: query['arrival_date[gte]'],
    arrivalLt: query['arrival_date[lt]'],
    connectionId: query.connection_id,
  });
  return {
    data: page.entries.map(resourceOf),
    next_cursor: page.next ? encodeCursor(principal, page.next) : null,
  };
}

/** `GET /v1/settlements/{id}`: the settlement with its lines, or undefined (a 404). */
export async function getSettlement(
  settlements: Pick<SettlementRepository, 'get'>,
  principal: Principal,
  id: string,
): Promise<(SettlementResource & { items: SettlementItem[] }) | undefined> {
  const found = await settlements.get(principal, id);
  return found && { ...resourceOf(found.settlement), items: found.items };
}
