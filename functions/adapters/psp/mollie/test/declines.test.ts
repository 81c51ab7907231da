import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { trustFakePspCertificate } from '../../../../../test/support/fake-psp-server.ts';
import { factoryOf } from '../../../../../test/support/psp-fakes.ts';
import { orderLink, sessionRequest, storedConnection } from '../../../../../test/support/psp-fixtures.ts';
import { classified } from '../../../../domain/payment-failure.ts';
import { PSP_FACTORIES } from '../../factories.ts';
import type { MolliePsp } from '../adapter.ts';
import { MOLLIE_DECLINES } from '../declines.ts';
import { documentEnum, type FakeMollie, startFakeMollie } from './fake.ts';

const key = 'test_dHar4XY7LxsDOtmnkVtjNVWXLSlXsM';
const connection = storedConnection('mollie', 'test', 'pc_mollieDeclines0000000000000');
/** Every `details.failureReason` Mollie's document lists for a failed card payment. */
const REASONS = documentEnum('payment-details-failure-reason-response');

let mollie: FakeMollie;
let untrust: () => void;
let factory: ReturnType<typeof factoryOf<MolliePsp>>;

beforeAll(async () => {
  untrust = trustFakePspCertificate();
  mollie = await startFakeMollie({ apiKeys: [key] });
  const secrets = new Map([[connection.secret_name as string, JSON.stringify({ api_key: key })]]);
  factory = factoryOf<MolliePsp>(PSP_FACTORIES.mollie, { secrets, apiUrl: mollie.apiEndpoint });
});
afterAll(async () => {
  await mollie.stop();
  untrust();
});

/** A checkout payment Mollie fails with `failureReason`, as the adapter reads it back. */
async function failedWith(failureReason: string) {
  const psp = await factory.create(connection);
  const session = await psp.createSession(sessionRequest(orderLink('5.00'), connection));
  mollie.setStatus(session.id, 'failed', failureReason);
  return psp.retrieveSession(session.id);
}

describe("Mollie's declines (docs/orchestration.md#decline-codes)", () => {
  it("maps exactly the failure reasons Mollie's document lists", () => {
    expect(REASONS.length).toBeGreaterThan(0);
    expect(Object.keys(MOLLIE_DECLINES).sort()).toEqual([...REASONS].sort());
  });

  it("reads a failed card payment's reason into our code, keeping Mollie's in the message", async () => {
    for (const reason of REASONS) {
      const status = await failedWith(reason);
      expect(status.state, reason).toBe('failed');
      expect(status.failure, reason).toEqual({
        code: MOLLIE_DECLINES[reason],
        message: `The payment failed at Mollie. (Mollie code ${reason})`,
      });
    }
    expect(mollie.violations).toEqual([]);
  });

  it('never re-routes a card no PSP can charge, and takes the issuer failing for an outage', async () => {
    const classOf = async (reason: string) => {
      const { failure } = await failedWith(reason);
      return failure && classified(failure);
    };
    expect(await classOf('card_expired')).toMatchObject({ code: 'expired_card', class: 'hard' });
    expect(await classOf('possible_fraud')).toMatchObject({ code: 'suspected_fraud', class: 'hard' });
    expect(await classOf('inactive_card')).toMatchObject({ code: 'lost_or_stolen_card', class: 'hard' });
    expect(await classOf('insufficient_funds')).toMatchObject({ code: 'insufficient_funds', class: 'soft' });
    expect(await classOf('invalid_cvv')).toMatchObject({ code: 'incorrect_details', class: 'soft' });
    expect(await classOf('authentication_unavailable_acs')).toMatchObject({
      code: 'psp_unavailable',
      class: 'outage',
    });
  });

  it('documents its table, reason by reason', () => {
    const docs = readFileSync('docs/orchestration.md', 'utf8');
    const section = docs.slice(docs.indexOf('### Decline codes'), docs.indexOf('### A success before'));
    for (const [theirs, ours] of Object.entries(MOLLIE_DECLINES)) {
      expect(section, theirs).toContain(`\`${theirs}\` → \`${ours}\``);
    }
  });
});
