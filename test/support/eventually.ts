import { setTimeout as sleep } from 'node:timers/promises';

/**
 * What a busy test machine may add to a bound the product promises. Every wait in a test allows the product's own
 * bound for what it waits on (a retry's delay plus an attempt's timeout, a PSP call's timeout, ...) plus this,
 * once: the bound stays visible where the test waits, and a failure says which condition never came. It is sized
 * for `npm run test:stress` (the suite beside a process that keeps one of two cores busy, with other suites
 * running on the same machine; docs/testing.md), where one step of a test can take seconds.
 */
export const LOAD_ALLOWANCE_MS = 30_000;

/** Pause between two checks: short beside any bound, long enough that polling costs the machine little. */
const CHECK_EVERY_MS = 25;

export interface WaitOptions {
  /** The product's bound for the condition, in ms (0, the default: it holds as soon as the work before it ends). */
  withinMs?: number;
  /** What is awaited, for the error when it never comes. */
  what?: string;
}

/**
 * Checks `check` until it returns a value other than undefined or false, and returns that value; fails once
 * `withinMs` (or the number given instead of options) plus LOAD_ALLOWANCE_MS have passed. The one way tests wait for something another part of the
 * system does (a poller, a queue, a timer): never a fixed sleep.
 */
export async function eventually<T>(
  check: () => Promise<T | undefined | false> | T | undefined | false,
  wait: WaitOptions | number = {},
): Promise<T> {
  const options = typeof wait === 'number' ? { withinMs: wait } : wait;
  const allowedMs = (options.withinMs ?? 0) + LOAD_ALLOWANCE_MS;
  const deadline = Date.now() + allowedMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) {
      throw new Error(
        `${options.what ?? 'The condition'} did not hold within ${allowedMs} ms ` +
          `(its bound ${options.withinMs ?? 0} ms + the load allowance ${LOAD_ALLOWANCE_MS} ms)`,
      );
    }
    await sleep(CHECK_EVERY_MS);
  }
}

/**
 * A test's own timeout (vitest's), for a test that waits on conditions with these bounds: each bound with its
 * load allowance, and two allowances more for the test's other steps (preparing data, reading results). Vitest's
 * timeout is only the backstop: the waits fail first, naming what they waited for.
 */
export function timeoutFor(...boundsMs: number[]): number {
  return boundsMs.reduce((sum, bound) => sum + bound + LOAD_ALLOWANCE_MS, 2 * LOAD_ALLOWANCE_MS);
}

/**
 * The same for a test that takes `steps` steps with no bound of their own, each allowed the load allowance: a CLI
 * run (a process of its own, loading the SDK), a stack started as `npm start` starts it.
 */
export function timeoutForSteps(steps: number, ...boundsMs: number[]): number {
  return timeoutFor(...boundsMs) + steps * LOAD_ALLOWANCE_MS;
}
