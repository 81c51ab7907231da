import { idPattern } from '../../domain/ids.ts';
import { DECIMAL_PATTERN, isPayableCurrency } from '../../domain/money.ts';
import { PAYMENT_METHODS } from '../../domain/payment-methods.ts';
import { MAX_HOLDOUT_SHARE, RECOVERY_MODES } from '../../domain/routing.ts';
import { OPTIMIZE_GOALS } from '../../domain/strategies.ts';
import { once } from '../../once.ts';
import * as z from '../../zod.ts';

/** Rules one routing document may hold: plenty for any merchant, and the item stays far below 400 KB. */
export const MAX_ROUTING_RULES = 50;
export const MAX_ROUTED_CONNECTIONS = 20;

export const connectionId = () =>
  z.string().check(z.regex(idPattern('pc'), 'Must be a connection id (pc_...).'), z.maxLength(67));

const amountBound = (description: string) =>
  z
    .string()
    .check(
      z.regex(DECIMAL_PATTERN, 'Must be a plain decimal string such as "10.00".'),
      z.maxLength(32),
      z.meta({ description }),
    );

const recovery = () =>
  z.optional(
    z.enum(RECOVERY_MODES).check(
      z.meta({
        description:
          'After a failed attempt: open the next connection at once, once per buyer (`auto`, the default of `optimize`), offer "Pay with another payment provider" (`offer`, the default of `priority` and `split`), or neither (`off`).',
      }),
    ),
  );

export const connectionList = () => z.array(connectionId()).check(z.maxLength(MAX_ROUTED_CONNECTIONS));

const holdout = () =>
  z.optional(
    z
      .strictObject({
        share: z.number().check(
          z.meta({
            description: `The share of the rule's checkouts routed by the baseline instead, drawn at random per checkout: 0 (none) to ${MAX_HOLDOUT_SHARE}.`,
          }),
        ),
        baseline: z.optional(
          connectionList().check(
            z.meta({
              description: "The baseline's connections in order; the rule's own `connections` when absent.",
            }),
          ),
        ),
      })
      .check(
        z.meta({
          description:
            "The control group that measures what learning earns (`GET /v1/routing/uplift`); 5% of checkouts on the rule's own order when absent.",
        }),
      ),
  );

/**
 * `PUT /v1/routing` (and what `GET` returns): the rules, first match wins, and the default list
 * (docs/orchestration.md#routing). Shape only; which ids exist, empty lists and weights are checked against the
 * (account, mode)'s connections by `routingProblems`, with the same pointers.
 */
export const routingRequest = /* @__PURE__ */ once(() =>
  z.strictObject({
    rules: z
      .array(
        z.strictObject({
          name: z.string().check(z.minLength(1), z.maxLength(100)),
          when: z.strictObject({
            currency: z.optional(
              z
                .array(
                  z
                    .string()
                    .check(
                      z.refine(isPayableCurrency, 'Must be an active ISO 4217 code such as "EUR".'),
                      z.maxLength(3),
                    ),
                )
                .check(z.minLength(1), z.maxLength(20)),
            ),
            payment_method: z.optional(
              z
                .array(z.enum(PAYMENT_METHODS))
                .check(
                  z.minLength(1),
                  z.maxLength(PAYMENT_METHODS.length),
                  z.meta({ description: 'Links whose `payment_methods` name one of these.' }),
                ),
            ),
            amount_min: z.optional(
              amountBound('Links of at least this amount (in a currency the rule names).'),
            ),
            amount_max: z.optional(
              amountBound('Links of at most this amount (in a currency the rule names).'),
            ),
            metadata: z.optional(
              z.record(z.string().check(z.minLength(1), z.maxLength(40)), z.string().check(z.maxLength(500))),
            ),
          }),
          then: z.union([
            z.strictObject({ priority: connectionList(), recovery: recovery() }),
            z.strictObject({
              split: z
                .array(z.strictObject({ connection: connectionId(), weight: z.number() }))
                .check(z.maxLength(MAX_ROUTED_CONNECTIONS)),
              recovery: recovery(),
            }),
            z.strictObject({
              optimize: z.enum(OPTIMIZE_GOALS).check(
                z.meta({
                  description:
                    'Learn from outcomes: the connection most likely to be paid (`conversion`), the lowest expected fee (`cost`) or the highest expected net (`value`).',
                }),
              ),
              connections: connectionList(),
              holdout: holdout(),
              recovery: recovery(),
            }),
          ]),
        }),
      )
      .check(z.maxLength(MAX_ROUTING_RULES)),
    default: connectionList(),
  }),
);

/** `GET /v1/psp-connections/{id}/performance` query parameters: which segments to show. */
export const performanceQuery = /* @__PURE__ */ once(() =>
  z.strictObject({
    currency: z
      .optional(
        z
          .string()
          .check(
            z.refine(isPayableCurrency, 'Must be an active ISO 4217 code such as "EUR".'),
            z.maxLength(3),
          ),
      )
      .check(z.meta({ description: 'Only the segments of this currency.' })),
    payment_method: z.optional(z.enum([...PAYMENT_METHODS, 'any'])).check(
      z.meta({
        description: 'Only the segments of this payment method (`any`: links naming none or several).',
      }),
    ),
  }),
);

/** `GET /v1/routing/uplift` query parameters: the window, and one rule when only it is asked for. */
export const upliftQuery = /* @__PURE__ */ once(() =>
  z.strictObject({
    window: z
      ._default(z.enum(['7d', '30d']), '30d')
      .check(z.meta({ description: 'The last 7 or 30 days (UTC), today included.' })),
    rule: z
      .optional(z.string().check(z.minLength(1), z.maxLength(100)))
      .check(z.meta({ description: 'Only the rule of this name.' })),
  }),
);
