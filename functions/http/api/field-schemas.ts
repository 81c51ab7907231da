import {
  amountValueProblem,
  DECIMAL_PATTERN,
  fractionDigitsProblem,
  isPayableCurrency,
  MAX_AMOUNT_VALUE_LENGTH,
} from '../../domain/money.ts';
import { MAX_URL_LENGTH, type UrlPolicy, urlProblem } from '../../domain/urls.ts';
import * as z from '../../zod.ts';

/** A decimal string above zero, at most 12 integer digits (its currency's decimals are checked beside it). */
export const decimalValueSchema = (description: string, example: string) =>
  z.string().check(
    z.regex(DECIMAL_PATTERN, 'Must be a plain decimal string such as "10.50".'),
    (ctx) => {
      const problem = amountValueProblem(ctx.value);
      if (problem && DECIMAL_PATTERN.test(ctx.value))
        ctx.issues.push({ code: 'custom', message: problem, input: ctx.value });
    },
    z.meta({
      description,
      example,
      // Implied by the checks above; stated for clients and the OpenAPI document.
      maxLength: MAX_AMOUNT_VALUE_LENGTH,
    }),
  );

/** An active ISO 4217 currency code, upper case. */
export const currencySchema = () =>
  z.string().check(
    z.refine(isPayableCurrency, 'Must be an active ISO 4217 currency code in upper case, such as "EUR".'),
    // Implied by the refinement (only active ISO 4217 codes pass); stated for the OpenAPI document.
    z.meta({
      description: 'ISO 4217 code, upper case.',
      example: 'EUR',
      pattern: '^[A-Z]{3}$',
      maxLength: 3,
    }),
  );

/** `{ value, currency }`: a payable amount, its decimals within the currency's minor units. */
export const amountSchema = () =>
  z
    .strictObject({
      value: decimalValueSchema(
        "Decimal string, greater than zero, within the currency's minor units.",
        '10.50',
      ),
      currency: currencySchema(),
    })
    .check((ctx) => {
      const problem = fractionDigitsProblem(ctx.value.value, ctx.value.currency);
      if (problem)
        ctx.issues.push({ code: 'custom', message: problem, input: ctx.value.value, path: ['value'] });
    });

/** A URL the service will call or send the buyer to, checked against `policy` (functions/domain/urls.ts). */
export function urlSchema(policy: UrlPolicy, description: string) {
  return z.string().check(
    z.maxLength(MAX_URL_LENGTH),
    (ctx) => {
      const problem = urlProblem(ctx.value, policy);
      if (problem) ctx.issues.push({ code: 'custom', message: problem, input: ctx.value });
    },
    z.meta({ format: 'uri', description }),
  );
}
