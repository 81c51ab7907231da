import type { PageAsks } from './buyer.ts';
import { type Amount, fromMinorUnits, minorUnits, toMinorUnits } from './money.ts';
import type { MethodNames } from './payment-methods.ts';

/**
 * What a PSP can take, as data: its amount rules, what its page can ask the buyer, and how it spells our payment
 * methods. Each PSP's descriptor states its own (functions/adapters/psp/<folder>/descriptor.ts); the domain
 * evaluates them here without knowing which PSP they are (docs/orchestration.md#amounts-each-psp-can-take).
 */
export interface PspRules {
  amounts: AmountRules;
  /** What its hosted page can ask the buyer itself (docs/checkout.md#on-the-psps-page). */
  pageAsks: PageAsks;
  /** Our payment methods it serves, each in its own word (docs/orchestration.md#payment-methods). */
  methods: MethodNames;
}

/**
 * The amounts a PSP can take, checked before it is asked: at checkout a connection that cannot take the link's
 * amount is not asked and the next one is, without counting against its health (docs/orchestration.md#health);
 * a refund the paying PSP cannot express is a 422 (docs/webhooks.md#refunds). The adapter converts amounts with
 * the same exponents (`pspMinorUnits`, `fromPspMinorUnits`).
 */
export interface AmountRules {
  /** The PSP's name as merchants know it, which every problem names. */
  psp: string;
  /** Its exponent of a currency where it differs from ISO 4217 (0: it takes the currency in whole units only). */
  exponents?: Readonly<Record<string, number>>;
  /** The only currencies it takes; absent: any (its account may still refuse one, which it then says itself). */
  currencies?: readonly string[];
  /** Currencies whose amounts, in its minor units, must end in 0: three-decimal currencies in whole hundredths. */
  wholeHundredths?: readonly string[];
  /** Its minimum charge per currency, in its minor units; a currency not listed is left to the PSP. */
  minimums?: Readonly<Record<string, number>>;
  /** Its maximum charge in its minor units: per currency, and `default` for the others. */
  maximums?: Readonly<Record<string, number>>;
  /**
   * It is sent each line's unit amount and refuses any of them that breaks the rules above (but the charge's
   * minimum and maximum), even when the sum would pass: KWD 1.005 × 2 adds up to a valid 2.010.
   */
  checksEachLine?: boolean;
}

/** What the amount is for: a payment (a checkout session) or a refund, which has no minimum or maximum charge. */
export type AmountUse = 'payment' | 'refund';

/** A PSP with no rules of its own: it takes every amount a link can have. */
export const TAKES_EVERY_AMOUNT = (psp: string): AmountRules => ({ psp });

/** The PSP's exponent of the currency: its own where it differs from ISO 4217. */
const exponentOf = (rules: AmountRules, currency: string): number | undefined =>
  rules.exponents?.[currency] ?? minorUnits(currency);

/** The amount in the PSP's minor units; throws when it has more decimals than the PSP's exponent allows. */
export function pspMinorUnits(rules: AmountRules, amount: Amount): bigint {
  return toMinorUnits(amount, exponentOf(rules, amount.currency));
}

/**
 * A count of the PSP's minor units as our decimal string with the currency's ISO 4217 decimals: ISK 10000 at a PSP
 * that takes it in two-decimal form is "100", MGA 500 at one that takes it zero-decimal is "500.00". The currency is read in upper case.
 * Throws when the PSP's amount has decimals the currency does not (it cannot have taken one).
 */
export function fromPspMinorUnits(rules: AmountRules, minor: number | bigint, currency: string): Amount {
  const code = currency.toUpperCase();
  const iso = minorUnits(code);
  if (iso === undefined) throw new Error(`Unknown currency ${code}`);
  const digits = exponentOf(rules, code) ?? iso;
  const count = BigInt(minor);
  if (digits <= iso)
    return { value: fromMinorUnits(count * 10n ** BigInt(iso - digits), code), currency: code };
  const scale = 10n ** BigInt(digits - iso);
  if (count % scale !== 0n) throw new Error(`${count} in ${code} has more decimals than ISO 4217 allows`);
  return { value: fromMinorUnits(count / scale, code), currency: code };
}

/**
 * Why the PSP cannot take `amount` for `use`, or undefined when it can: a currency it does not take, more
 * decimals than its exponent of the currency, a three-decimal amount not in whole hundredths, and for a payment,
 * below its minimum or above its maximum charge.
 */
export function amountProblem(rules: AmountRules, amount: Amount, use: AmountUse): string | undefined {
  const problem = unitProblem(rules, amount);
  if (problem || use === 'refund') return problem;
  const minor = pspMinorUnits(rules, amount);
  const minimum = rules.minimums?.[amount.currency];
  if (minimum !== undefined && minor < BigInt(minimum)) {
    return `${amount.value} ${amount.currency} is below ${rules.psp}'s minimum charge.`;
  }
  const maximum = rules.maximums?.[amount.currency] ?? rules.maximums?.default;
  if (maximum !== undefined && minor > BigInt(maximum)) {
    return `${amount.value} ${amount.currency} is above ${rules.psp}'s maximum charge.`;
  }
  return undefined;
}

/**
 * Why the PSP cannot take one of the unit amounts of the lines a session is sent with, or undefined: only for a
 * PSP that checks each line (`checksEachLine`); elsewhere the total decides.
 */
export function linesProblem(rules: AmountRules, unitAmounts: readonly Amount[]): string | undefined {
  if (!rules.checksEachLine) return undefined;
  for (const [index, unitAmount] of unitAmounts.entries()) {
    const problem = unitProblem(rules, unitAmount);
    if (problem) return `Line ${index + 1}: ${problem}`;
  }
  return undefined;
}

/** Why the PSP cannot take `amount` as any amount at all (a total, a line's unit amount, a refund). */
function unitProblem(rules: AmountRules, amount: Amount): string | undefined {
  const { psp } = rules;
  if (rules.currencies && !rules.currencies.includes(amount.currency)) {
    return `${psp} does not take ${amount.currency}.`;
  }
  let minor: bigint;
  try {
    minor = pspMinorUnits(rules, amount);
  } catch {
    const digits = exponentOf(rules, amount.currency);
    return digits === 0
      ? `${psp} cannot express ${amount.value} ${amount.currency} (it takes no decimals in that currency).`
      : `${psp} cannot express ${amount.value} ${amount.currency} (too many decimals for the currency).`;
  }
  if (rules.wholeHundredths?.includes(amount.currency) && minor % 10n !== 0n) {
    return `${psp} takes ${amount.currency} amounts only in whole hundredths (the third decimal must be 0).`;
  }
  return undefined;
}
