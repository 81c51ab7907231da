import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectionKeys } from '../../functions/adapters/dynamodb/table-schema.ts';
import { CHECKOUT_FAKE, type FakeCheckout } from '../../functions/adapters/psp/checkout-com/test/fake.ts';
import { documentClient } from '../../functions/clients/dynamodb.ts';
import { config } from '../../functions/config.ts';
import { paymentRepository, pspConnectionRepository } from '../../functions/dependencies.ts';
import type { PspConnection } from '../../functions/domain/connection.ts';
import {
  DOWN_FOR_MS,
  FAILURES_BEFORE_DOWN,
  healthStatus,
  isDownForOutages,
  OUTAGE_TRIAL_LEASE_MS,
  OUTAGE_TRIALS_TO_PASS,
  OUTAGES_BEFORE_DOWN,
} from '../../functions/domain/connection-health.ts';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { createLink, storedLink } from '../support/checkout-helpers.ts';
import { addConnection } from '../support/connections.ts';
import { eventually } from '../support/eventually.ts';
import { navigate } from '../support/navigate.ts';
import { type PspStack, startPspStack } from '../support/psp-stack.ts';

const FAKES = { checkout: CHECKOUT_FAKE };

/**
 * Outages after the opening feed connection health (docs/orchestration.md#health): sessions that open at
 * Checkout.com and then fail because the issuer is unavailable (20091, class `outage`) take the connection out of
 * routing for its cool-down, as failed openings do; then one trial session at a time, until `OUTAGE_TRIALS_TO_PASS`
 * in a row are served.
 */
let psps: PspStack<typeof FAKES>;
let fake: FakeCheckout;
let key: IssuedApiKey;
let bursting: PspConnection;
let other: PspConnection;

beforeAll(async () => {
  psps = await startPspStack({ fakes: FAKES });
  fake = psps.checkout;
  key = await psps.stack.issueKey('outageshop', 'test');
  bursting = await psps.connect('outageshop', 'checkout');
  other = await addConnection({
    account: 'outageshop',
    mode: 'test',
    provider: 'sandbox',
    name: 'S',
    simulate: 'ok',
  });
  fake.webhookUrl = `${psps.stack.baseUrl}/psp/checkout_com/notifications/${bursting.id}`;
});
afterAll(() => psps?.stop());

/** A link's checkout visited: the connection its session opened at, and the session. */
async function visit() {
  const link = await createLink(psps.stack, key.api_key);
  await navigate(link.checkout_url);
  const session = (await storedLink(link.id)).psp_session;
  if (!session) throw new Error('No session opened');
  return { link, session };
}

const healthOf = async (connection: PspConnection) =>
  (await pspConnectionRepository().get(connection.id))?.health;

/** Moves the bursting connection's `down_until` to the past, as if its cool-down were over. */
const endCoolDown = () =>
  pspConnectionRepository().updateHealth(bursting, (health) => ({
    ...health,
    down_until: new Date(Date.now() - 1).toISOString(),
    revision: health.revision + 1,
  }));

describe('outages after the opening', () => {
  it(`take a connection out of routing for its cool-down after ${OUTAGES_BEFORE_DOWN} in a row, then one trial session at a time until ${OUTAGE_TRIALS_TO_PASS} in a row are paid`, async () => {
    for (let outage = 0; outage < OUTAGES_BEFORE_DOWN; outage++) {
      const { link, session } = await visit();
      expect(session.connection_id).toBe(bursting.id);
      await fake.pay(session.id, false, '20091');
      const failed = await eventually(async () => {
        const payment = await paymentRepository().get(link.id, 'test', session.payment_id);
        return payment?.status === 'failed' && payment;
      });
      expect(failed.failure).toMatchObject({ code: 'psp_unavailable', class: 'outage' });
    }

    const down = await eventually(async () => {
      const health = await healthOf(bursting);
      return health && healthStatus(health, new Date()) === 'down' && health;
    });
    expect(down.consecutive_failures).toBe(FAILURES_BEFORE_DOWN);
    expect(Date.parse(down.down_until as string)).toBeGreaterThan(Date.now() + DOWN_FOR_MS / 2);
    expect((await visit()).session.connection_id).toBe(other.id);

    // The cool-down over (moved back, not waited for): one trial session opens at it; the others wait for its
    // outcome. A trial failing as an outage takes it down again; paid ones, as many as it takes, bring it back.
    await endCoolDown();
    const failedTrial = await visit();
    expect(failedTrial.session.connection_id).toBe(bursting.id);
    expect((await visit()).session.connection_id).toBe(other.id);
    const lease = Date.parse((await healthOf(bursting))?.down_until as string);
    await fake.pay(failedTrial.session.id, false, '20091');
    // Down again for the cool-down from the trial's outcome, not for the rest of the trial's lease.
    const again = await eventually(async () => {
      const health = await healthOf(bursting);
      return health && Date.parse(health.down_until as string) < lease && health;
    });
    expect(Date.parse(again.down_until as string)).toBeGreaterThan(Date.now() + DOWN_FOR_MS / 2);
    expect((await visit()).session.connection_id).toBe(other.id);

    await endCoolDown();
    for (let served = 1; served < OUTAGE_TRIALS_TO_PASS; served++) {
      const paidTrial = await visit();
      expect(paidTrial.session.connection_id).toBe(bursting.id);
      expect((await visit()).session.connection_id).toBe(other.id);
      await fake.pay(paidTrial.session.id, true);
      // Served, but not yet trusted: the next trial is open to claim at once, with no cool-down.
      await eventually(
        async () => (await healthOf(bursting))?.trials_to_pass === OUTAGE_TRIALS_TO_PASS - served,
      );
      expect(await healthOf(bursting)).toMatchObject({ down_until: null });
    }
    const paidTrial = await visit();
    expect(paidTrial.session.connection_id).toBe(bursting.id);
    expect((await visit()).session.connection_id).toBe(other.id);
    await fake.pay(paidTrial.session.id, true);
    const back = await eventually(async () => {
      const health = await healthOf(bursting);
      return health && !isDownForOutages(health) && health;
    });
    expect(back).toMatchObject({ consecutive_failures: 0, down_until: null });
    expect((await visit()).session.connection_id).toBe(bursting.id);
  });

  it('do not count against a connection whose PSP serves sessions between them (a decline starts the run again)', async () => {
    const account = 'outageshop-mixed';
    const mixedKey = await psps.stack.issueKey(account, 'test');
    const connection = await psps.connect(account, 'checkout');
    fake.webhookUrl = `${psps.stack.baseUrl}/psp/checkout_com/notifications/${connection.id}`;
    for (let round = 0; round < 2 * OUTAGES_BEFORE_DOWN; round++) {
      const link = await createLink(psps.stack, mixedKey.api_key);
      await navigate(link.checkout_url);
      const session = (await storedLink(link.id)).psp_session;
      expect(session?.connection_id).toBe(connection.id);
      // Every third session is declined for the card (20051, insufficient funds): the PSP served it.
      await fake.pay(session?.id as string, false, round % 3 === 2 ? '20051' : '20091');
      await eventually(
        async () =>
          (await paymentRepository().get(link.id, 'test', session?.payment_id as string))?.status ===
          'failed',
      );
    }

    expect(await healthOf(connection)).toMatchObject({ consecutive_failures: 0, down_until: null });
  });

  it('read an item stored when `down_for_outages` was written, before two trials, as one trial to pass, and keep writing the flag for the release before', async () => {
    const account = 'outageshop-before-trials';
    const olderKey = await psps.stack.issueKey(account, 'test');
    const connection = await psps.connect(account, 'checkout');
    fake.webhookUrl = `${psps.stack.baseUrl}/psp/checkout_com/notifications/${connection.id}`;
    const key = connectionKeys.connection(account, 'test', connection.id);
    const stored = async () =>
      (
        await documentClient().send(
          new GetCommand({ TableName: config().TABLE_NAME, Key: key, ConsistentRead: true }),
        )
      ).Item;
    // As the first versions that fed outages to health left it: down for outages, no trials counted, cool-down over.
    await documentClient().send(
      new UpdateCommand({
        TableName: config().TABLE_NAME,
        Key: key,
        UpdateExpression:
          'SET consecutive_failures = :failures, down_until = :over, down_for_outages = :down REMOVE trials_to_pass',
        ExpressionAttributeValues: {
          ':failures': FAILURES_BEFORE_DOWN,
          ':over': new Date(Date.now() - 1).toISOString(),
          ':down': true,
        },
      }),
    );

    const claimedAt = Date.now();
    const link = await createLink(psps.stack, olderKey.api_key);
    await navigate(link.checkout_url);
    const trial = (await storedLink(link.id)).psp_session;
    expect(trial?.connection_id).toBe(connection.id);
    // Claimed as the trial of a connection down for outages (its session's lease). The flag stays written, as
    // `trials_to_pass` says it, for the functions of the release before that still answer during a deploy.
    const claimed = await stored();
    expect(claimed).toMatchObject({
      consecutive_failures: FAILURES_BEFORE_DOWN,
      trials_to_pass: 1,
      down_for_outages: true,
    });
    expect(Date.parse(claimed?.down_until)).toBeGreaterThanOrEqual(claimedAt + OUTAGE_TRIAL_LEASE_MS);

    // Its one trial served brings it back, as it did when the item was written.
    await fake.pay(trial?.id as string, true);
    await eventually(async () => (await healthOf(connection))?.consecutive_failures === 0);
    expect(await stored()).toMatchObject({ down_until: null, trials_to_pass: 0, down_for_outages: false });
  });
});
