/**
 * `npm run bench [-- --quick] [-- --json <file>] [-- --concurrency <n>] [-- --only <row file>]
 * [-- --generator wrk]`: the performance budgets, each measured against a baseline in the same run
 * (docs/performance.md). Every file of test/bench/rows/ is a measurement (test/bench/bench.ts); they run in name
 * order.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Bench, BenchRow, Budget, Plan, ServerInfo } from './bench.ts';
import { fmt } from './bench.ts';
import { budgets } from './budgets.ts';
import { type Bundle, buildBundles } from './bundles.ts';
import { runLoad, runWrk } from './load.ts';
import type { BenchReply, BenchRequest } from './protocol.ts';

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    json: { type: 'string' },
    concurrency: { type: 'string', default: '16' },
    only: { type: 'string', multiple: true },
    generator: { type: 'string', default: 'autocannon' },
  },
});
const quick = args.quick ?? false;
const generators = { autocannon: runLoad, wrk: runWrk };
if (!(args.generator in generators))
  throw new Error(`--generator: one of ${Object.keys(generators).join(', ')}`);
const generate = generators[args.generator as keyof typeof generators];
const plan: Plan = {
  quick,
  concurrency: Number(args.concurrency),
  ...(quick
    ? { warmupMs: 1000, roundMs: 2000, rounds: 2, importRounds: 5, webhooks: 200 }
    : { warmupMs: 3000, roundMs: 5000, rounds: 4, importRounds: 15, webhooks: 2000 }),
};

interface Line {
  measure: string;
  subject: string;
  value: string;
  baseline: string;
  ratio: number | undefined;
  budget: string;
  ok: boolean | undefined;
}
const lines: Line[] = [];
const report: Record<string, unknown> = {
  date: new Date().toISOString(),
  node: process.version,
  plan,
  generator: args.generator,
  budgets,
};

// --- The server process, started when a row first needs it ---------------------------------------------------
let server: ChildProcess | undefined;
let ready: Promise<ServerInfo> | undefined;
const waiting = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
let nextId = 0;

function startServer(): Promise<ServerInfo> {
  ready ??= new Promise((resolve, reject) => {
    server = fork(join(import.meta.dirname, 'bench-server.ts'), [], {
      // BENCH_SERVER_PROF=<dir>: a CPU profile of the server process (the stack and the ceilings) in <dir>.
      execArgv: process.env.BENCH_SERVER_PROF
        ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_SERVER_PROF}`]
        : [],
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    server.on('message', (message: BenchReply) => {
      if (message.type === 'ready') {
        const { type: _type, ...info } = message;
        resolve(info);
        return;
      }
      const pending = waiting.get(message.id);
      waiting.delete(message.id);
      if (message.type === 'reply') pending?.resolve(message.result);
      else pending?.reject(new Error(`bench server: ${message.message}`));
    });
    server.on('exit', (code) => {
      const error = new Error(`bench server exited with ${code}`);
      reject(error);
      for (const pending of waiting.values()) pending.reject(error);
    });
  });
  return ready;
}

type Question = { cmd: 'serve'; row: string; input: unknown } | { cmd: 'cpu' };

async function ask<T>(request: Question): Promise<T> {
  await startServer();
  const id = nextId++;
  return new Promise<T>((resolve, reject) => {
    waiting.set(id, { resolve: resolve as (value: unknown) => void, reject });
    server?.send({ ...request, id } as BenchRequest);
  });
}

// --- The rows ---------------------------------------------------------------------------------------------------
const outdir = mkdtempSync(join(tmpdir(), 'bench-bundles-'));
let bundles: Promise<Bundle[]> | undefined;

const rowFiles = readdirSync(join(import.meta.dirname, 'rows'))
  .filter((file) => file.endsWith('.ts'))
  .filter((file) => !args.only?.length || args.only.some((only) => file.includes(only)))
  .sort();

try {
  for (const file of rowFiles) {
    const row = (await import(join(import.meta.dirname, 'rows', file))).default as BenchRow;
    const bench: Bench = {
      plan,
      row({ measure, subject, value, baseline, ratio, budget }) {
        lines.push({
          measure,
          subject,
          value,
          baseline,
          ratio,
          budget: describe(budget),
          ok: judge(ratio, budget),
        });
      },
      record: (key, value) => {
        report[key] = value;
      },
      bundles: () => {
        if (!bundles) {
          console.error(`building bundles in ${outdir}`);
          bundles = buildBundles(outdir, { withoutPsps: true });
        }
        return bundles;
      },
      serve: (input) => ask({ cmd: 'serve', row: file, input }),
      server: startServer,
      load: (options) => generate({ concurrency: plan.concurrency, ...options }),
      serverCpuMs: () => ask({ cmd: 'cpu' }),
    };
    console.error(`${file}`);
    try {
      await row.measure(bench);
    } catch (error) {
      // A failing measurement becomes a row, not a failed run: the others still print.
      lines.push({
        measure: file.replace(/^\d+-|\.ts$/g, ''),
        subject: '',
        value: `failed: ${(error as Error).message.split('\n')[0]}`,
        baseline: '',
        ratio: undefined,
        budget: '',
        ok: false,
      });
    }
  }
} finally {
  if (server?.connected) server.send({ cmd: 'stop' } satisfies BenchRequest);
  rmSync(outdir, { recursive: true, force: true });
}

function describe(budget: Budget | undefined): string {
  if (budget?.max !== undefined) return `≤ ${budget.max}×`;
  if (budget?.min !== undefined) return `≥ ${budget.min}×`;
  return '';
}

function judge(ratio: number | undefined, budget: Budget | undefined): boolean | undefined {
  if (ratio === undefined || !budget) return undefined;
  if (budget.max !== undefined) return ratio <= budget.max;
  return ratio >= (budget.min ?? 0);
}

// --- Report -------------------------------------------------------------------------------------------------
const table = lines.map((line) => ({
  measure: line.measure,
  subject: line.subject,
  measured: line.value,
  baseline: line.baseline,
  ratio: line.ratio === undefined ? '' : `${fmt(line.ratio, 2)}×`,
  budget: line.budget,
  '': line.ok === undefined ? '' : line.ok ? 'ok' : 'OVER',
}));
const columns = Object.keys(table[0] ?? {}) as (keyof (typeof table)[number])[];
const widths = columns.map((column) =>
  Math.max(column.length, ...table.map((entry) => entry[column].length)),
);
const format = (cells: string[]) =>
  cells
    .map((cell, i) => cell.padEnd(widths[i] ?? 0))
    .join('  ')
    .trimEnd();
console.log(format(columns));
console.log(format(widths.map((width) => '-'.repeat(width))));
for (const entry of table) console.log(format(columns.map((column) => entry[column])));
report.rows = lines;
if (args.json) writeFileSync(args.json, `${JSON.stringify(report, null, 2)}\n`);
const failed = lines.filter((line) => line.ok === false).length;
console.log(failed ? `\n${failed} budget(s) not met` : '\nall budgets met');
