import { readFileSync, statSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The test files that take longest, longest first (docs/testing.md, "Speed"): each runs for minutes on a busy
 * machine, so one that starts late ends the run alone while the other workers sit idle. Vitest's own order runs
 * the projects one after the other and, on a fresh clone (no cached durations), the larger files first, which put
 * the chaos run (a short file) near the end. Listed here so that a fresh clone, as CI runs it, starts them first.
 * The static checks are second: their processes fill the idle time of the files that wait, early in the run.
 */
export const LONGEST_FILES = [
  'test/integration/chaos.test.ts',
  'test/static/static-checks.test.ts',
  'test/integration/psp-cli.test.ts',
  'test/integration/bundled-functions.test.ts',
  'test/integration/local-stack-start.test.ts',
  'test/browser/checkout.test.ts',
  'test/browser/link-variants.test.ts',
  'test/browser/failover.test.ts',
  'test/integration/webhooks.test.ts',
  'test/integration/webhook-endpoints.test.ts',
  'test/integration/refund-outcomes.test.ts',
  'test/infra/bundles.test.ts',
];

/**
 * A file whose time is mostly a wait on a timer, not work, says so with vitest's file tag `// @module-tag waits`
 * (a PSP call that runs out its 5 s budget, a webhook's 15 s timeout, an SDK's own retry pauses). Three workers
 * share two cores, so one worker may wait while two work; when several such files run at once, a core sits idle.
 * Sorted by duration, the seven files of about 5 s that wait out one call budget each came one after another, and
 * all three workers waited together for 15 s (the machine's counters: 42-77% idle). Each project's block spreads
 * its waiting files evenly among its other files.
 */
export const WAITS_TAG = /(\/\/|\*)\s*@module-tag\s+waits\b/;

/**
 * After LONGEST_FILES, the projects in this order, each a block: a worker that ends a file of a project whose files
 * share their worker's modules (`isolate: false`) is reused only when the next file in the queue is of the same
 * project; otherwise vitest stops it and starts a new one, which imports everything again. Interleaving the
 * projects cost about 75 CPU-s per run in worker restarts (docs/testing.md#speed). The unit files, the shortest,
 * come last, so that the workers end together.
 */
const PROJECT_ORDER = ['browser', 'logging', 'integration', 'infra', 'unit'];

/**
 * Orders the files of every project in one queue, longest first, so the workers end together: the files of
 * LONGEST_FILES in that order, then each project's files (PROJECT_ORDER): those with no cached duration (new ones,
 * or all on a fresh clone) by size, larger first, then the others by the duration vitest cached from the last run,
 * longest first; the files tagged as waiting (`WAITS_TAG`) spread among them.
 */
export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const rank = (spec: TestSpecification) => positionIn(LONGEST_FILES, relative(root, spec.moduleId));
    const projectRank = (spec: TestSpecification) => positionIn(PROJECT_ORDER, spec.project.name);
    const cached = (spec: TestSpecification) => this.ctx.cache.getTestSpecificationResult(spec)?.duration;
    const size = (spec: TestSpecification) => statSync(spec.moduleId, { throwIfNoEntry: false })?.size ?? 0;
    const sorted = [...files].sort((a, b) => {
      const byList = rank(a) - rank(b);
      if (byList !== 0) return byList;
      const byProject = projectRank(a) - projectRank(b);
      if (byProject !== 0) return byProject;
      const [durationA, durationB] = [cached(a), cached(b)];
      if (durationA !== undefined && durationB !== undefined) return durationB - durationA;
      if (durationA !== undefined) return 1;
      if (durationB !== undefined) return -1;
      return size(b) - size(a);
    });
    const listed = sorted.filter((spec) => rank(spec) < LONGEST_FILES.length);
    const blocks = Map.groupBy(
      sorted.filter((spec) => rank(spec) === LONGEST_FILES.length),
      (spec) => spec.project.name,
    );
    const waiting = new Set(files.filter((spec) => WAITS_TAG.test(readFileSync(spec.moduleId, 'utf8'))));
    const seconds = (spec: TestSpecification) => cached(spec) ?? 1_000;
    return [
      ...listed,
      ...[...blocks.values()].flatMap((block) =>
        spreadEvenly(
          block.filter((spec) => waiting.has(spec)),
          block.filter((spec) => !waiting.has(spec)),
          seconds,
        ),
      ),
    ];
  }
}

/**
 * `others` in their order, with `spread` placed among them at even intervals of their summed `duration`: the
 * first after a share of `1 / (spread.length + 1)` of it, the next after twice that, and so on.
 */
export function spreadEvenly<T>(
  spread: readonly T[],
  others: readonly T[],
  duration: (item: T) => number,
): T[] {
  const total = others.reduce((sum, item) => sum + duration(item), 0);
  const result: T[] = [];
  let elapsed = 0;
  let next = 0;
  spread.forEach((item, index) => {
    const at = (total * (index + 1)) / (spread.length + 1);
    while (next < others.length && elapsed < at) {
      const other = others[next++] as T;
      elapsed += duration(other);
      result.push(other);
    }
    result.push(item);
  });
  return [...result, ...others.slice(next)];
}

/** Where `value` stands in `list`; after all of them when it is not in it. */
function positionIn(list: readonly string[], value: string): number {
  const position = list.indexOf(value);
  return position === -1 ? list.length : position;
}
