import { randomUUID } from 'node:crypto';
import type { ScheduledEvent } from 'aws-lambda';
import { type HandlerName, type ScheduleDefinition, timeoutSecondsOf } from '../routes.ts';
import { type HandlerLoader, lambdaContext } from './api-gateway.ts';

/**
 * Runs each scheduled function the way EventBridge would (a `Scheduled Event`), every `localEverySeconds`.
 * A run never overlaps the previous one of the same schedule. Returns a function that stops the timers.
 */
export function startSchedules(
  schedules: readonly ScheduleDefinition[],
  loadHandler: HandlerLoader,
): () => Promise<void> {
  const running = new Set<Promise<unknown>>();
  const timers = schedules.map((schedule) => {
    let busy = false;
    return setInterval(() => {
      if (busy) return;
      busy = true;
      const run = runSchedule(schedule, loadHandler)
        .catch((error) => console.error(`schedule ${schedule.handler} failed`, error))
        .finally(() => {
          busy = false;
          running.delete(run);
        });
      running.add(run);
    }, schedule.localEverySeconds * 1000);
  });
  return async () => {
    for (const timer of timers) clearInterval(timer);
    await Promise.allSettled(running);
  };
}

/**
 * The schedules of `all` that run on their timers: every one (`true`, `npm start`), none (`false`, a test that runs
 * the sweeper it needs itself), or those of the handlers listed (the chaos run's outbox sweeper).
 */
export function timedSchedules(
  all: readonly ScheduleDefinition[],
  wanted: boolean | readonly HandlerName[] = true,
): readonly ScheduleDefinition[] {
  if (wanted === true) return all;
  if (wanted === false) return [];
  return all.filter((schedule) => wanted.includes(schedule.handler));
}

/** One run of a scheduled function, as EventBridge starts it: what the timers do, and what a test asks for once. */
export async function runSchedule(
  schedule: ScheduleDefinition,
  loadHandler: HandlerLoader,
): Promise<unknown> {
  const handler = (await loadHandler(schedule.handler)) as unknown as (
    event: ScheduledEvent,
    context: ReturnType<typeof lambdaContext>,
  ) => Promise<unknown>;
  return handler(
    scheduledEvent(schedule.handler),
    lambdaContext(schedule.handler, timeoutSecondsOf(schedule.handler) * 1000),
  );
}

function scheduledEvent(handler: string): ScheduledEvent {
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: '000000000000',
    time: new Date().toISOString(),
    region: process.env.AWS_REGION ?? 'us-east-1',
    resources: [`arn:aws:events:local:000000000000:rule/${handler}`],
    detail: {},
  };
}
