import { describe, expect, it } from 'vitest';
import {
  connectionStateFromItem,
  connectionToItem,
  providerDecoder,
  routingFromItem,
  storedProvider,
} from '../../functions/adapters/dynamodb/connection-mapper.ts';
import { PSP_IDS } from '../../functions/adapters/psp/registry.ts';
import { createConnection } from '../../functions/domain/connection.ts';
import {
  afterTrialOutcome,
  type ConnectionHealth,
  claimTrial,
  FAILURES_BEFORE_DOWN,
  INITIAL_HEALTH,
} from '../../functions/domain/connection-health.ts';
import { refusal } from '../support/undecodable.ts';

const now = new Date('2026-11-29T10:00:00Z');

describe('connection mapper', () => {
  const connection = createConnection(
    { account: 'acme', mode: 'live', provider: 'sandbox', name: 'Sandbox' },
    's/',
    now,
  );

  it('reads a connection from before methods, success rates and fees (2026-11-23) without them, and its health', () => {
    const { trials_to_pass: _t, ...beforeOutages } = connectionToItem(connection);
    const state = connectionStateFromItem({ ...beforeOutages, consecutive_failures: 2, revision: 5 });
    expect(state).toEqual({
      connection,
      // Older items have no outage field: never down for outages, no trial to pass.
      health: { ...INITIAL_HEALTH, consecutive_failures: 2, revision: 5 },
    });
    expect(state.connection).not.toHaveProperty('kind');
    expect(state.connection).not.toHaveProperty('methods');
  });

  it('reads an item without health as healthy', () => {
    const {
      consecutive_failures: _f,
      down_until: _d,
      trials_to_pass: _t,
      revision: _r,
      ...item
    } = connectionToItem(connection);
    expect(connectionStateFromItem(item).health).toEqual(INITIAL_HEALTH);
  });

  describe('an item stored while `down_for_outages` was written beside `trials_to_pass` (2026-11-29)', () => {
    const { trials_to_pass: _t, ...beforeTrials } = connectionToItem(connection);
    const downUntil = '2026-11-29T10:01:00.000Z';
    /** The item as the first versions that fed outages to health left it: down for outages, no trials counted. */
    const downForOutages = {
      ...beforeTrials,
      consecutive_failures: FAILURES_BEFORE_DOWN,
      down_until: downUntil,
      down_for_outages: true,
      revision: 3,
    };

    it('reads one trial to pass when it has no `trials_to_pass`: its next served trial brings it back alone', () => {
      const state = connectionStateFromItem(downForOutages);
      expect(state).toStrictEqual({
        connection,
        health: {
          consecutive_failures: FAILURES_BEFORE_DOWN,
          down_until: downUntil,
          trials_to_pass: 1,
          revision: 3,
        },
      });
      const trial = claimTrial(state.health, new Date(downUntil), 7_000) as ConnectionHealth;
      expect(afterTrialOutcome(trial, 'paid', new Date(downUntil))).toMatchObject({
        consecutive_failures: 0,
        down_until: null,
        trials_to_pass: 0,
      });
    });

    it('reads `trials_to_pass` as stored beside it, and none when it is not set', () => {
      expect(connectionStateFromItem({ ...downForOutages, trials_to_pass: 2 }).health.trials_to_pass).toBe(2);
      const up = { ...beforeTrials, down_for_outages: false };
      expect(connectionStateFromItem(up).health).toStrictEqual(INITIAL_HEALTH);
    });

    it('refuses a `down_for_outages` that is not a boolean', () => {
      expect(
        refusal(() => connectionStateFromItem({ ...downForOutages, down_for_outages: 'true' })).reason,
      ).toBe('down_for_outages: expected a boolean, found a string');
    });
  });

  it('reads every provider there is, and refuses one there is not', () => {
    for (const provider of PSP_IDS) expect(storedProvider(provider)).toBe(provider);
    const item = { ...connectionToItem(connection), provider: 'acmepay' };
    expect(refusal(() => connectionStateFromItem(item)).reason).toBe(
      `provider: expected one of ${PSP_IDS.join(', ')}, found a string`,
    );
  });

  it('reads a provider stored under a former id of its PSP (an alias of its descriptor) as its id', () => {
    const decode = providerDecoder([{ id: 'acme_pay', aliases: ['acme'] }, { id: 'other' }]);
    expect(decode('acme')).toBe('acme_pay');
    expect(decode('acme_pay')).toBe('acme_pay');
    expect(decode('other')).toBe('other');
    expect(() => decode('acmepay')).toThrow('expected one of acme_pay, other, found a string');
  });

  it('refuses a connection whose fee lines are not fee lines', () => {
    const item = { ...connectionToItem(connection), fees: [{ percent: '1.4', fixed: 0.25 }] };
    expect(refusal(() => connectionStateFromItem(item)).reason).toBe(
      'fees.0.percent: expected a number, found a string',
    );
  });

  it('reads the routing document without the item’s own attributes, and refuses one without a default list', () => {
    const routing = {
      // biome-ignore lint/suspicious/noThenProperty: a routing rule's own field name
      rules: [{ name: 'euro', when: { currency: ['EUR'] }, then: { priority: ['pc_a'] } }],
      default: ['pc_a'],
    };
    const item = {
      pk: 'PSP#acme#live',
      sk: 'ROUTING',
      kind: 'routing',
      account: 'acme',
      mode: 'live',
      ...routing,
    };
    expect(routingFromItem(item)).toEqual(routing);
    expect(refusal(() => routingFromItem({ ...item, default: 'pc_a' })).reason).toBe(
      'default: expected a list, found a string',
    );
  });
});
