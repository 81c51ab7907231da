import { AdyenPspFactory } from '../functions/adapters/psp/adyen-psp.ts';
import { CheckoutPspFactory } from '../functions/adapters/psp/checkout-psp.ts';
import { MolliePspFactory } from '../functions/adapters/psp/mollie-psp.ts';
import { PaypalPspFactory } from '../functions/adapters/psp/paypal-psp.ts';
import { SandboxPspFactory } from '../functions/adapters/psp/sandbox-psp.ts';
import { StripePspFactory } from '../functions/adapters/psp/stripe-psp.ts';
import type { PspFactory } from '../functions/ports/psp.ts';

const unused = (): never => {
  throw new Error('Only checkCredentials is available here');
};

/**
 * Every provider's factory, for `checkCredentials` only (`npm run psp -- add` validates before it stores):
 * nothing here talks to a PSP or reads a secret, so their runtime options are left unusable.
 */
export function pspFactoriesForChecks(): PspFactory[] {
  return [
    new SandboxPspFactory({
      sessions: {
        create: unused,
        get: unused,
        complete: unused,
        startProcessing: unused,
        settle: unused,
        decline: unused,
        expire: unused,
      },
      signingSecret: unused,
      baseUrl: 'http://localhost',
      callTimeoutMs: 0,
      now: () => new Date(),
    }),
    new StripePspFactory({ secrets: { get: unused } }),
    new MolliePspFactory({ secrets: { get: unused } }),
    new AdyenPspFactory({ secrets: { get: unused } }),
    new PaypalPspFactory({ secrets: { get: unused } }),
    new CheckoutPspFactory({ secrets: { get: unused } }),
  ];
}
