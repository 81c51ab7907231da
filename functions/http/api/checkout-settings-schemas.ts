import {
  ACCENT_COLOR_PATTERN,
  contrastRatio,
  logoUrlProblem,
  MAX_DISPLAY_NAME_LENGTH,
  MAX_EMAIL_LENGTH,
  MIN_ACCENT_CONTRAST,
} from '../../domain/checkout-settings.ts';
import { once } from '../../once.ts';
import * as z from '../../zod.ts';
import { urlSchema } from './field-schemas.ts';

/**
 * `PUT /v1/checkout-settings`: the branding of the key's (account, mode), replaced whole
 * (docs/checkout.md#branding). The logo is fetched by buyers' browsers from our pages, so it must be an `https`
 * URL on a public host in every mode and deployment; the accent colour must keep white button text readable
 * (WCAG AA, 4.5:1).
 */
export const checkoutSettingsRequest = /* @__PURE__ */ once(() =>
  z.strictObject({
    display_name: z.nullish(
      z.string().check(
        z.minLength(1),
        z.maxLength(MAX_DISPLAY_NAME_LENGTH),
        z.meta({
          description: "Shown at the top of every checkout page, and as the logo's text alternative.",
        }),
      ),
    ),
    logo_url: z.nullish(
      urlSchema(
        { allowHttp: false, allowPrivateTargets: false },
        'An https image on a public host, shown at the top of every checkout page (allowed by its CSP `img-src`).',
      ).check((ctx) => {
        if (ctx.issues.length) return; // one message per field: the URL rules' own, when they refuse it
        const problem = logoUrlProblem(ctx.value);
        if (problem) ctx.issues.push({ code: 'custom', message: problem, input: ctx.value });
      }),
    ),
    accent_color: z.nullish(
      z.string().check(
        z.regex(ACCENT_COLOR_PATTERN, 'Must be a colour such as "#1f5fd6".'),
        (ctx) => {
          if (!ACCENT_COLOR_PATTERN.test(ctx.value)) return;
          const ratio = contrastRatio(ctx.value, '#ffffff');
          if (ratio < MIN_ACCENT_CONTRAST) {
            ctx.issues.push({
              code: 'custom',
              message: `White text on it has a contrast of ${ratio.toFixed(2)}:1; WCAG AA needs at least ${MIN_ACCENT_CONTRAST}:1. Choose a darker colour.`,
              input: ctx.value,
            });
          }
        },
        z.meta({
          description: `Buttons' background, behind white text: \`#rrggbb\` with a contrast of at least ${MIN_ACCENT_CONTRAST}:1 against white (WCAG AA).`,
          maxLength: 7,
          example: '#1f5fd6',
        }),
      ),
    ),
    support_email: z.nullish(
      z
        .email('Must be an email address.')
        .check(
          z.maxLength(MAX_EMAIL_LENGTH),
          z.meta({ description: 'Shown on every checkout page as the address for questions.' }),
        ),
    ),
  }),
);
