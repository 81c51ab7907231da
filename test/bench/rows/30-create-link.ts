import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../../../functions/adapters/dynamodb/table-schema.ts';
import { newId } from '../../../functions/domain/ids.ts';
import type { BenchRow, BenchServer } from '../bench.ts';
import { fmt, median } from '../bench.ts';
import { budgets } from '../budgets.ts';
import { combineRounds, type LoadResult } from '../load.ts';

async function readBody(message: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of message) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The create-link ceiling, in the server process: a bare `node:http` server doing one conditional PutItem of
 * the item a real create stores (one link made through the API is the template), into the same embedded
 * DynamoDB, and nothing else.
 */
async function startCeiling(server: BenchServer): Promise<string> {
  const created = await fetch(`${server.baseUrl}/v1/payment-links`, {
    method: 'POST',
    headers: { authorization: server.authorization, 'content-type': 'application/json' },
    body: server.createBody,
  });
  if (created.status !== 201)
    throw new Error(`create-link answered ${created.status}: ${await created.text()}`);
  const { id: sampleId } = (await created.json()) as { id: string };
  const documentClient = DynamoDBDocumentClient.from(
    new DynamoDBClient({ endpoint: server.stack.dynamodbEndpoint }),
    { marshallOptions: { removeUndefinedValues: true } },
  );
  const { Item: template } = await documentClient.send(
    new GetCommand({ TableName: server.stack.tableName, Key: keys.link(sampleId, 'test') }),
  );
  if (!template) throw new Error('the sample link was not stored');
  const ceiling = createServer(async (req, res) => {
    await readBody(req);
    const id = newId('pl');
    const item = { ...template, ...keys.link(id, 'test'), id, gsi1sk: `${template.created_at}#${id}` };
    try {
      await documentClient.send(
        new PutCommand({
          TableName: server.stack.tableName,
          Item: item,
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      res.writeHead(201, { 'content-type': 'application/json', location: `/v1/payment-links/${id}` });
      res.end(JSON.stringify(item));
    } catch {
      res.writeHead(500).end();
    }
  });
  await new Promise<void>((resolve) => ceiling.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(ceiling.address() as AddressInfo).port}`;
}

let ceilingUrl: Promise<string> | undefined;

/** The ceiling's URL, started on first use (other rows compare against it too). */
export function createLinkCeiling(server: BenchServer): Promise<string> {
  ceilingUrl ??= startCeiling(server);
  return ceilingUrl;
}

interface Run extends LoadResult {
  /** CPU the server process spent per successful request during the round. */
  serverCpuMsPerRequest: number;
}

/** `POST /v1/payment-links` through the local stack against the ceiling: ABBA rounds, the table grows. */
export default {
  serve: (server) => createLinkCeiling(server),

  async measure(bench) {
    const { baseUrl, authorization, createBody } = await bench.server();
    // A typical create (issue 39): every field, metadata of two keys, a fresh Idempotency-Key each time.
    const typical = JSON.parse(createBody) as { metadata: Record<string, string> };
    const body = JSON.stringify({ ...typical, metadata: { ...typical.metadata, customer_id: 'cus_1001' } });
    const targets = { stack: `${baseUrl}/v1/payment-links`, ceiling: await bench.serve<string>() };
    const round = async (url: string, durationMs: number): Promise<Run> => {
      const cpuBefore = await bench.serverCpuMs();
      const load = await bench.load({
        url,
        method: 'POST',
        headers: { authorization },
        body,
        durationMs,
        okStatuses: [201],
        freshIdempotencyKey: true,
      });
      const served = load.requests - load.errors;
      return {
        ...load,
        serverCpuMsPerRequest: ((await bench.serverCpuMs()) - cpuBefore) / Math.max(1, served),
      };
    };
    const { warmupMs, roundMs, rounds, concurrency } = bench.plan;
    console.error(`create-link: warm-up, then ${rounds} × ${roundMs} ms per target, ABBA`);
    await round(targets.ceiling, warmupMs);
    await round(targets.stack, warmupMs);
    const runs: { stack: Run[]; ceiling: Run[] } = { stack: [], ceiling: [] };
    for (let index = 0; index < rounds; index++) {
      const order = index % 2 === 0 ? (['ceiling', 'stack'] as const) : (['stack', 'ceiling'] as const);
      for (const target of order) runs[target].push(await round(targets[target], roundMs));
    }
    const combine = (list: Run[]) => ({
      ...combineRounds(list),
      serverCpuMsPerRequest: median(list.map((run) => run.serverCpuMsPerRequest)),
    });
    const stack = combine(runs.stack);
    const ceiling = combine(runs.ceiling);
    const describe = (load: ReturnType<typeof combine>) =>
      `${fmt(load.rps)} req/s, p50 ${fmt(load.p50Ms, 1)} ms, p99 ${fmt(load.p99Ms, 1)} ms, ` +
      `CPU/req ${fmt(load.serverCpuMsPerRequest, 2)} ms server + ${fmt(load.generatorCpuMsPerRequest, 2)} ms load` +
      (load.errors ? `, ${load.errors} errors` : '');
    bench.row({
      measure: `create-link (c=${concurrency})`,
      subject: 'POST /v1/payment-links',
      value: describe(stack),
      baseline: describe(ceiling),
      ratio: stack.rps / ceiling.rps,
      budget: { min: budgets.createLinkThroughput },
    });
    bench.record('createLink', { stack, ceiling, rounds: runs });
  },
} satisfies BenchRow<void, string>;
