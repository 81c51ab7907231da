import type { PspConnection } from '../../functions/domain/connection.ts';
import { createLink, storedLink } from './checkout-helpers.ts';
import { navigate } from './navigate.ts';
import type { TestStack } from './test-stack.ts';

/** Every outcome written and read at once, so that each count can be read as soon as it is made. */
export const OUTCOMES_AT_ONCE = { OUTCOME_FLUSH_MS: '0', OUTCOME_CACHE_MS: '0' };

/**
 * A shop of its own (its connection's counts are its session's alone) whose buyer opened a session at `provider`'s
 * fake, and `outcome()`, which reads back what became of it: the payment, the link's events, and the connection's
 * counts of the last hour (docs/orchestration.md#observed-outcomes).
 */
export async function openedSession(
  psps: { stack: TestStack; connect(account: string, provider: string): Promise<PspConnection> },
  shop: string,
  provider: string,
  /** More of the link's fields (an `expires_at`). */
  body: Record<string, unknown> = {},
) {
  const { stack } = psps;
  const key = (await stack.issueKey(shop, 'test')).api_key;
  const connection = await psps.connect(shop, provider);
  const link = await createLink(stack, key, { ...body, connections: [connection.id] });
  await navigate(link.checkout_url);
  const session = (await storedLink(link.id)).psp_session;
  if (!session) throw new Error(`no ${provider} session`);
  const outcome = async () => {
    const payments = await stack.request('GET', `/v1/payment-links/${link.id}/payments`, { key });
    const events = await stack.request('GET', `/v1/payment-links/${link.id}/events`, { key });
    const performance = await stack.request(
      'GET',
      `/v1/psp-connections/${connection.id}/performance?currency=EUR`,
      { key },
    );
    const { opened, paid, failed, left, outage } = performance.body.segments[0].last_hour;
    return {
      payment: payments.body.data[0],
      events: events.body.data.map((event: { type: string }) => event.type),
      counts: { opened, paid, failed, left, outage },
    };
  };
  return { key, connection, link, session, outcome };
}
