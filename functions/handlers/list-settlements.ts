import { settlementRepository } from '../dependencies.ts';
import { apiHandler, json } from '../http/api/api-handler.ts';
import { settlementsCsv, wantsCsv } from '../http/api/settlement-csv.ts';
import { listSettlementsQuery } from '../http/api/settlement-query.ts';
import { validate } from '../http/validate.ts';
import { listSettlements } from '../use-cases/settlement-reads.ts';

/** GET /v1/settlements: a page of the PSPs' payouts matched to the books, JSON or CSV (docs/api.md#settlements). */
export const handler = apiHandler({ body: 'none' }, async ({ principal, event }) => {
  const query = validate(listSettlementsQuery(), event.queryStringParameters ?? {});
  const page = await listSettlements(settlementRepository(), principal, query);
  if (!wantsCsv(event)) return json(200, page);
  const answer = settlementsCsv(page.data);
  if (page.next_cursor)
    answer.headers = { ...answer.headers, Link: `<${event.rawPath}?cursor=${page.next_cursor}>; rel="next"` };
  return answer;
});
