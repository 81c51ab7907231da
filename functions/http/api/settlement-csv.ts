import { stringify } from 'csv-stringify/sync';
import { neutralisedCell } from '../../domain/books.ts';
import type { SettlementItem } from '../../domain/settlement.ts';
import type { SettlementResource } from '../../use-cases/settlement-reads.ts';
import type { ApiEvent, ApiResult } from './api-handler.ts';

/** Whether the request asks for CSV (`Accept: text/csv`), as the books' exports do (docs/api.md#csv-exports). */
export const wantsCsv = (event: ApiEvent) => /\btext\/csv\b/i.test(event.headers.accept ?? '');

/** The columns of a settlements CSV: one row per settlement. */
export const SETTLEMENT_COLUMNS = [
  'id',
  'connection_id',
  'provider',
  'psp_reference',
  'arrival_date',
  'status',
  'amount',
  'currency',
  'matched_count',
  'unmatched_count',
] as const;

/** The columns of a settlement's CSV: one row per line. */
export const SETTLEMENT_ITEM_COLUMNS = [
  'settlement_id',
  'arrival_date',
  'kind',
  'psp_reference',
  'payment_reference',
  'amount',
  'fee',
  'net',
  'currency',
  'matched',
  'link_id',
  'payment_id',
  'refund_id',
] as const;

const settlementRow = (settlement: SettlementResource): string[] => [
  settlement.id,
  settlement.connection_id,
  settlement.provider,
  settlement.psp_reference,
  settlement.arrival_date ?? '',
  settlement.status,
  settlement.amount.value,
  settlement.amount.currency,
  String(settlement.matched_count),
  String(settlement.unmatched_count),
];

const itemRow = (settlement: SettlementResource, item: SettlementItem): string[] => [
  settlement.id,
  settlement.arrival_date ?? '',
  item.kind,
  item.psp_reference,
  item.payment_reference ?? '',
  item.amount.value,
  item.fee?.value ?? '',
  item.net.value,
  item.amount.currency,
  String(item.matched),
  item.link_id ?? '',
  item.payment_id ?? '',
  item.refund_id ?? '',
];

/** RFC 4180 (CRLF, quoted where needed), every cell neutralised against formulas, the header's too. */
function csv(name: string, header: readonly string[], rows: readonly string[][]): ApiResult {
  const body = [header, ...rows]
    .map((cells) => stringify([cells.map(neutralisedCell)], { record_delimiter: 'windows' }))
    .join('');
  return {
    statusCode: 200,
    headers: {
      'Content-Type': 'text/csv; charset=utf-8',
      'Content-Disposition': `attachment; filename="${name}.csv"`,
      'Cache-Control': 'no-store',
    },
    body,
  };
}

/** A page of settlements as CSV; a `Link: rel="next"` names the same request continued, when more follow. */
export function settlementsCsv(
  settlements: readonly SettlementResource[],
  event: ApiEvent,
  cursor: string | null,
): ApiResult {
  const answer = csv('settlements', SETTLEMENT_COLUMNS, settlements.map(settlementRow));
  if (cursor === null) return answer;
  const parameters = new URLSearchParams(
    Object.entries(event.queryStringParameters ?? {}).flatMap(([key, value]) =>
      key === 'cursor' || value === undefined ? [] : [[key, value] as [string, string]],
    ),
  );
  parameters.set('cursor', cursor);
  return { ...answer, headers: { ...answer.headers, Link: `<${event.rawPath}?${parameters}>; rel="next"` } };
}

export const settlementItemsCsv = (settlement: SettlementResource & { items: SettlementItem[] }) =>
  csv(
    settlement.id,
    SETTLEMENT_ITEM_COLUMNS,
    settlement.items.map((item) => itemRow(settlement, item)),
  );
