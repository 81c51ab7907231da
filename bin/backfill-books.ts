import type { BackfillCount } from '../functions/adapters/dynamodb/books-backfill.ts';
import { failWithUsage, selectCliTarget } from '../lib/local/cli-target.ts';
import { parseCommandLine } from '../lib/local/command-line.ts';

const USAGE = `Usage:
  npm run backfill-books [-- --table <TableName output>]

Puts the payments and refunds stored before the account-wide books into them (docs/operations.md#books-backfill):
run it once after the deploy that brings GET /v1/payments and GET /v1/refunds, once after the deploy that
brings their refund totals and fees, once after the deploy that brings the console's search (it writes the search
keys of older payments, refunds and links), and once after the deploy that brings settlements (it points older
payments' PSP references at them). Idempotent; safe to run again.

Target: the running local stack (npm start, found through DATA_DIR, default .data), or a deployed stack with
--table <TableName output> (or TABLE_NAME) and the usual AWS credentials and region.`;

const fail: (message: string) => never = failWithUsage(USAGE);
const { values } = parseCommandLine({ options: { table: { type: 'string' } } }, USAGE);

const cliTarget = selectCliTarget(values.table ?? process.env.TABLE_NAME, fail);
// Imported after the target is chosen: the client reads the SDK endpoint on first use.
const { backfillBooks } = await import('../functions/adapters/dynamodb/books-backfill.ts');
const { documentClient } = await import('../functions/clients/dynamodb.ts');

const written = (count: BackfillCount) =>
  `${count.payments} payments listed, ${count.refunds} refund entries written, ` +
  `${count.refunded} refund totals and ${count.fees} fees copied onto payments, ` +
  `${count.searchable} payments and links given their search keys, ` +
  `${count.references} PSP references pointed at their payments`;
const count = await backfillBooks(documentClient(), process.env.TABLE_NAME as string, (sofar) =>
  console.error(`… ${written(sofar)}`),
);
console.log(`${cliTarget.description}: ${written(count)}.`);
