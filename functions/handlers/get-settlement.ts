import { settlementRepository } from '../dependencies.ts';
import { NotFoundError } from '../domain/errors.ts';
import { apiHandler, json } from '../http/api/api-handler.ts';
import { settlementItemsCsv, wantsCsv } from '../http/api/settlement-csv.ts';
import { getSettlement } from '../use-cases/settlement-reads.ts';

/** GET /v1/settlements/{id}: one payout with its lines, JSON or CSV (docs/api.md#settlements). */
export const handler = apiHandler({ body: 'none' }, async ({ principal, event }) => {
  const id = event.pathParameters?.id ?? '';
  const settlement = await getSettlement(settlementRepository(), principal, id);
  if (!settlement) throw new NotFoundError(`No settlement ${id}.`);
  return wantsCsv(event) ? settlementItemsCsv(settlement) : json(200, settlement);
});
