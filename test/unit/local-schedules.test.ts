import { describe, expect, it } from 'vitest';
import { timedSchedules } from '../../lib/local/scheduler.ts';
import { schedules } from '../../lib/routes.ts';

describe('the local stack’s sweepers (docs/operations.md#local-sweepers)', () => {
  it('run each on a timer twelve times shorter than its EventBridge schedule', () => {
    for (const schedule of schedules) {
      expect(schedule.localEverySeconds * 12, schedule.handler).toBe(schedule.everyMinutes * 60);
    }
  });

  it('run all on their timers, none, or those of the handlers a stack names', () => {
    expect(timedSchedules(schedules)).toEqual(schedules);
    expect(timedSchedules(schedules, true)).toEqual(schedules);
    expect(timedSchedules(schedules, false)).toEqual([]);
    expect(timedSchedules(schedules, ['outbox-sweeper']).map((schedule) => schedule.handler)).toEqual([
      'outbox-sweeper',
    ]);
  });
});
