import { MODES, type Mode } from '../../../domain/principal.ts';

/**
 * Stripe accounts configured before connections existed (docs/orchestration.md#migration): their credentials
 * stayed under `<prefix>stripe/<account>/<mode>`, and their webhook endpoints may still point at
 * `/psp/stripe/notifications`, without a connection id.
 */
export const legacyStripeSecretName = (secretPrefix: string, account: string, mode: Mode): string =>
  `${secretPrefix}stripe/${account}/${mode}`;

/**
 * The link a Stripe event names, read from the unverified body: only for the notification route of accounts
 * configured before connections existed, to find the connection whose credentials then verify it.
 */
export function legacyStripeNotificationLink(rawBody: string): { linkId: string; mode: Mode } | undefined {
  try {
    const event = JSON.parse(rawBody) as {
      livemode?: boolean;
      data?: {
        object?: {
          object?: string;
          client_reference_id?: string;
          metadata?: { mode?: string; link_id?: string };
        };
      };
    };
    const object = event.data?.object;
    // Our sessions name their link in `metadata.link_id`; sessions from before it, in `client_reference_id`.
    const linkId = object?.metadata?.link_id ?? object?.client_reference_id;
    if (object?.object !== 'checkout.session' || typeof linkId !== 'string') return undefined;
    const mode = MODES.includes(object.metadata?.mode as Mode)
      ? (object.metadata?.mode as Mode)
      : event.livemode
        ? 'live'
        : 'test';
    return { linkId, mode };
  } catch {
    return undefined;
  }
}
