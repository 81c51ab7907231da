import type { Provider, PspConnection } from '../../functions/domain/connection.ts';
import { newPaymentId } from '../../functions/domain/payment.ts';
import { newPaymentLink, type PaymentLink } from '../../functions/domain/payment-link.ts';
import type { Mode } from '../../functions/domain/principal.ts';
import type { RefundRules } from '../../functions/domain/refund.ts';
import { type PspFailureKind, pspFailureOf, type SessionRequest } from '../../functions/ports/psp.ts';

/**
 * What the PSP adapter tests hand an adapter: a connection as `npm run psp -- add` stores it (its credentials
 * under `secret_name`), a link to pay, and the return addresses checkout gives each attempt.
 */
export function storedConnection(provider: Provider, mode: Mode, id: string): PspConnection {
  return {
    id,
    account: 'acme',
    mode,
    provider,
    name: provider.charAt(0).toUpperCase() + provider.slice(1),
    enabled: true,
    simulate: null,
    secret_name: `psp/connections/${id}`,
    created_at: new Date().toISOString(),
  };
}

export function orderLink(value: string, currency = 'EUR', mode: Mode = 'test'): PaymentLink {
  return newPaymentLink(
    { account: 'acme', mode },
    { amount: { value, currency }, description: 'Order 1001', redirect_url: 'https://shop.example/thanks' },
    new Date(),
  );
}

/** A link of two lines, one with tax, in `currency`, that a PSP which takes lines is sent as they are. */
export function basketLink(mode: Mode = 'test', currency = 'EUR'): PaymentLink {
  return newPaymentLink(
    { account: 'acme', mode },
    {
      line_items: [
        { name: 'Beans', quantity: 2, unit_amount: { value: '24.95', currency }, tax_rate: '9' },
        { name: 'Gift wrap', quantity: 1, unit_amount: { value: '0.50', currency } },
      ],
      description: 'Order 1002',
      redirect_url: 'https://shop.example/thanks',
    },
    new Date(),
  );
}

/**
 * A new attempt's session request: `link` at its own amount, with the return addresses at `connection`,
 * expiring in an hour (whole seconds, as PSPs keep them).
 */
export function sessionRequest(
  link: PaymentLink,
  connection: PspConnection,
  paymentId = newPaymentId(new Date()),
  locale = 'en',
): SessionRequest {
  return {
    link,
    amount: link.amount!,
    successUrl: 'https://shop.example/thanks',
    cancelUrl: 'https://pay.example/checkout/pl_x?canceled=1',
    notificationUrl: `https://pay.example/psp/${connection.provider}/notifications/${connection.id}`,
    expiresAt: new Date(Math.floor(Date.now() / 1000 + 3600) * 1000),
    paymentId,
    locale,
    paymentMethods: null,
  };
}

/** A PSP that takes any refund, in part too, of every amount: for tests of refunds whose PSP does not matter. */
export const anyRefunds = (provider: string): RefundRules => ({
  amounts: { psp: provider },
  refunds: 'partial',
});

/** The kind of PSP failure a call ended with; `none` when it succeeded, `not a PSP failure` for anything else. */
export async function failureOf(
  call: Promise<unknown>,
): Promise<PspFailureKind | 'none' | 'not a PSP failure'> {
  try {
    await call;
    return 'none';
  } catch (error) {
    return pspFailureOf(error)?.kind ?? 'not a PSP failure';
  }
}
