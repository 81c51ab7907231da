import { settlementRepository } from '../dependencies.ts';
import { NotFoundError } from '../domain/errors.ts';
import { apiHandler, json } from '../http/api/api-handler.ts';
import { settlementItemsCsv, settlementsCsv, wantsCsv } from '../http/api/settlement-csv.ts';
import { listSettlementsQuery } from '../http/api/settlement-query.ts';
import { validate } from '../http/validate.ts';
import { getSettlement, listSettlements } from '../use-cases/settlement-reads.ts';

/**
 * GET /v1/settlements (a page of the PSPs' payouts matched to the books: the listing, keys only, then its entries
 * read by key) and GET /v1/settlements/{id} (one, with its lines: one Query), JSON or CSV (docs/api.md#settlements).
 */
export const handler = apiHandler({ body: 'none' }, async ({ principal, event }) => {
  const id = event.pathParameters?.id;
  if (id !== undefined) {
    const settlement = await getSettlement(settlementRepository(), principal, id);
    if (!settlement) throw new NotFoundError(`No settlement ${id}.`);
    return wantsCsv(event) ? settlementItemsCsv(settlement) : json(200, settlement);
  }
  const query = validate(listSettlementsQuery(), event.queryStringParameters ?? {});
  const page = await listSettlements(settlementRepository(), principal, query);
  if (!wantsCsv(event)) return json(200, page);
  return settlementsCsv(page.data, event, page.next_cursor);
});
