import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BUILT_IN_SANDBOX_ID, type PspConnection } from '../../functions/domain/connection.ts';
import type { Mode } from '../../functions/domain/principal.ts';
import {
  compareDecimal,
  type RoutedLink,
  type Routing,
  routeLink,
  routingProblems,
  weightedOrder,
} from '../../functions/domain/routing.ts';
// Property runs are reproducible from fast-check's seed.
import { seededRandom } from '../../lib/local/seeded-random.ts';
import { sandboxConnection } from '../support/connection-fixture.ts';

const connection = sandboxConnection;
const link = (overrides: Partial<RoutedLink> = {}): RoutedLink => ({
  account: 'acme',
  mode: 'test',
  amount: { value: '100.00', currency: 'EUR' },
  metadata: null,
  ...overrides,
});
const ids = (connections: PspConnection[]) => connections.map((c) => c.id);
const never = () => {
  throw new Error('no draw expected');
};

describe('routing a link with payment methods', () => {
  it("skips connections that serve none of the link's methods, and keeps those that serve every method", () => {
    const cards = connection('pc_cards', { methods: ['card'] });
    const dutch = connection('pc_dutch', { methods: ['ideal', 'bancontact'] });
    const any = connection('pc_any');
    const routed = routeLink(link({ payment_methods: ['ideal'] }), null, [cards, dutch, any], never);
    expect(ids(routed)).toEqual(['pc_dutch', 'pc_any']);
    expect(ids(routeLink(link(), null, [cards, dutch, any], never))).toEqual([
      'pc_cards',
      'pc_dutch',
      'pc_any',
    ]);
  });

  it('matches a rule on payment_method only for links that name one of its methods', () => {
    const routing: Routing = {
      rules: [{ name: 'ideal', when: { payment_method: ['ideal'] }, then: { priority: ['pc_b'] } }],
      default: ['pc_a'],
    };
    const connections = [connection('pc_a'), connection('pc_b')];
    expect(ids(routeLink(link({ payment_methods: ['card', 'ideal'] }), routing, connections, never))).toEqual(
      ['pc_b'],
    );
    expect(ids(routeLink(link({ payment_methods: ['card'] }), routing, connections, never))).toEqual([
      'pc_a',
    ]);
    expect(ids(routeLink(link(), routing, connections, never))).toEqual(['pc_a']);
  });
});

describe('routing a link', () => {
  const a = connection('pc_a');
  const b = connection('pc_b');
  const c = connection('pc_c');
  const routing: Routing = {
    rules: [
      {
        name: 'b2b euro',
        when: { currency: ['EUR'], amount_min: '10.00', amount_max: '5000', metadata: { channel: 'b2b' } },
        then: { priority: ['pc_b', 'pc_a'] },
      },
      { name: 'dollars', when: { currency: ['USD'] }, then: { priority: ['pc_c'] } },
      { name: 'any euro', when: { currency: ['EUR'] }, then: { priority: ['pc_c', 'pc_a'] } },
    ],
    default: ['pc_a', 'pc_b'],
  };

  it('takes the first rule whose every given condition matches', () => {
    const b2b = link({ metadata: { channel: 'b2b', order: '1' } });
    expect(ids(routeLink(b2b, routing, [a, b, c], never))).toEqual(['pc_b', 'pc_a']);
    expect(ids(routeLink(link(), routing, [a, b, c], never))).toEqual(['pc_c', 'pc_a']);
    expect(
      ids(routeLink(link({ amount: { value: '5', currency: 'USD' } }), routing, [a, b, c], never)),
    ).toEqual(['pc_c']);
  });

  it('applies amount bounds inclusively and exactly, in the currencies the rule names', () => {
    const b2b = (value: string) => link({ amount: { value, currency: 'EUR' }, metadata: { channel: 'b2b' } });
    expect(ids(routeLink(b2b('10'), routing, [a, b, c], never))[0]).toBe('pc_b');
    expect(ids(routeLink(b2b('5000.00'), routing, [a, b, c], never))[0]).toBe('pc_b');
    expect(ids(routeLink(b2b('9.99'), routing, [a, b, c], never))[0]).toBe('pc_c');
    expect(ids(routeLink(b2b('5000.01'), routing, [a, b, c], never))[0]).toBe('pc_c');
  });

  it('falls back to the default when no rule matches', () => {
    const yen = link({ amount: { value: '500', currency: 'JPY' } });
    expect(ids(routeLink(yen, routing, [a, b, c], never))).toEqual(['pc_a', 'pc_b']);
  });

  it("lets a link's own connections replace routing, and skips disabled connections everywhere", () => {
    expect(ids(routeLink(link({ connections: ['pc_c', 'pc_b'] }), routing, [a, b, c], never))).toEqual([
      'pc_c',
      'pc_b',
    ]);
    const disabledC = connection('pc_c', { enabled: false });
    expect(ids(routeLink(link(), routing, [a, b, disabledC], never))).toEqual(['pc_a']);
  });

  it('without routing serves the enabled connections in the order they were added', () => {
    expect(ids(routeLink(link(), null, [a, connection('pc_b', { enabled: false }), c], never))).toEqual([
      'pc_a',
      'pc_c',
    ]);
  });

  it('falls back to the built-in sandbox in test mode only, and only while the account has no connection', () => {
    expect(ids(routeLink(link(), null, [], never))).toEqual([BUILT_IN_SANDBOX_ID]);
    expect(routeLink(link({ mode: 'live' }), null, [], never)).toEqual([]);
    expect(routeLink(link(), null, [connection('pc_a', { enabled: false })], never)).toEqual([]);
  });

  it('orders a split by a weighted draw without replacement', () => {
    const split = [
      { connection: 'pc_a', weight: 70 },
      { connection: 'pc_b', weight: 30 },
    ];
    expect(weightedOrder(split, () => 0.69)).toEqual(['pc_a', 'pc_b']);
    expect(weightedOrder(split, () => 0.71)).toEqual(['pc_b', 'pc_a']);
  });
});

describe('routing properties', () => {
  it('honours split weights within statistical bounds', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 100 }), { minLength: 2, maxLength: 5 }),
        fc.integer(),
        (weights, seed) => {
          const shares = weights.map((weight, index) => ({ connection: `pc_${index}`, weight }));
          const connections = shares.map((share) => connection(share.connection));
          const routing: Routing = {
            rules: [{ name: 'split', when: {}, then: { split: shares } }],
            default: ['pc_0'],
          };
          const draws = 3000;
          const random = seededRandom(seed);
          const firsts = new Map<string, number>();
          for (let draw = 0; draw < draws; draw++) {
            const first = routeLink(link(), routing, connections, random)[0]?.id as string;
            firsts.set(first, (firsts.get(first) ?? 0) + 1);
          }
          const total = weights.reduce((sum, weight) => sum + weight, 0);
          shares.forEach((share) => {
            const p = share.weight / total;
            const expected = draws * p;
            // Five standard deviations: a correct draw fails this about once in 1.7 million checks.
            const bound = 5 * Math.sqrt(draws * p * (1 - p)) + 1;
            expect(Math.abs((firsts.get(share.connection) ?? 0) - expected)).toBeLessThanOrEqual(bound);
          });
        },
      ),
      { numRuns: 40 },
    );
  });

  it("never routes to another tenant's or another mode's connection, nor to a disabled one", () => {
    const tenant = fc.constantFrom('acme', 'globex');
    const mode = fc.constantFrom<Mode>('test', 'live');
    const id = fc.constantFrom('pc_a', 'pc_b', 'pc_c', 'pc_d', 'pc_e');
    const stored = fc.uniqueArray(fc.record({ id, account: tenant, mode, enabled: fc.boolean() }), {
      selector: (c) => c.id,
      maxLength: 5,
    });
    const target = fc.oneof(
      fc.record({ priority: fc.array(id, { maxLength: 5 }) }),
      fc.record({
        split: fc.array(fc.record({ connection: id, weight: fc.integer({ min: 1, max: 10 }) }), {
          maxLength: 5,
        }),
      }),
    );
    const routing = fc.option(
      fc.record({
        rules: fc.array(
          fc.record({
            name: fc.constant('r'),
            when: fc.record(
              { currency: fc.array(fc.constantFrom('EUR', 'USD'), { maxLength: 2 }) },
              { requiredKeys: [] },
            ),
            then: target,
          }),
          { maxLength: 3 },
        ),
        default: fc.array(id, { maxLength: 5 }),
      }),
    );
    const routed = fc.record({
      account: tenant,
      mode,
      amount: fc.record({ value: fc.constant('10'), currency: fc.constantFrom('EUR', 'USD') }),
      metadata: fc.constant(null),
      connections: fc.option(fc.array(id, { maxLength: 5 })),
    });
    fc.assert(
      fc.property(stored, routing, routed, fc.integer(), (records, document, paymentLink, seed) => {
        const connections = records.map((record) => connection(record.id, record));
        const chosen = routeLink(paymentLink, document as Routing | null, connections, seededRandom(seed));
        for (const choice of chosen) {
          if (choice.id === BUILT_IN_SANDBOX_ID) {
            expect(paymentLink.mode).toBe('test');
            continue;
          }
          expect(choice).toMatchObject({
            account: paymentLink.account,
            mode: paymentLink.mode,
            enabled: true,
          });
        }
        expect(new Set(ids(chosen)).size).toBe(chosen.length);
      }),
      { numRuns: 500 },
    );
  });
});

describe('validating a routing document', () => {
  const mine = [connection('pc_a'), connection('pc_b')];

  it('accepts a document naming only connections of this account and mode', () => {
    expect(
      routingProblems(
        {
          rules: [
            {
              name: 'r',
              when: { currency: ['EUR'], amount_min: '1' },
              then: { split: [{ connection: 'pc_a', weight: 1 }] },
            },
          ],
          default: ['pc_b', 'pc_a'],
        },
        mine,
      ),
    ).toEqual([]);
  });

  it('points at unknown ids, empty lists, bad weights and amount bounds without currency', () => {
    const problems = routingProblems(
      {
        rules: [
          { name: 'r0', when: { amount_min: '10' }, then: { priority: ['pc_a', 'pc_x'] } },
          {
            name: 'r1',
            when: {},
            then: {
              split: [
                { connection: 'pc_a', weight: 0 },
                { connection: 'pc_b', weight: 1.5 },
              ],
            },
          },
          {
            name: 'r2',
            when: { currency: ['EUR'], amount_min: '9', amount_max: '1' },
            then: { priority: [] },
          },
        ],
        default: ['pc_a', 'pc_a'],
      },
      mine,
    );
    expect(problems.map((problem) => problem.pointer)).toEqual([
      '/rules/0/when',
      '/rules/0/then/priority/1',
      '/rules/1/then/split/0/weight',
      '/rules/1/then/split/1/weight',
      '/rules/2/when/amount_max',
      '/rules/2/then/priority',
      '/default/1',
    ]);
  });

  it('compares decimal amounts exactly', () => {
    expect(compareDecimal('10', '10.00')).toBe(0);
    expect(compareDecimal('0.1', '0.09')).toBe(1);
    expect(compareDecimal('999999999999.99', '1000000000000')).toBe(-1);
  });
});
