// @module-tag waits: Mollie's SDK pauses 2 s between its own retries of a 5xx (test/support/sequencer.ts)
import { MollieApiError, type MollieClient } from '@mollie/api-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { timeoutFor } from '../../../../../test/support/eventually.ts';
import { trustFakePspCertificate } from '../../../../../test/support/fake-psp-server.ts';
import { factoryOf } from '../../../../../test/support/psp-fakes.ts';
import {
  failureOf,
  orderLink,
  sessionRequest,
  storedConnection,
} from '../../../../../test/support/psp-fixtures.ts';
import { PSP_CALL_TIMEOUT_MS } from '../../../../domain/call-budgets.ts';
import type { Psp } from '../../../../ports/psp.ts';
import type { Refunds } from '../../../../ports/psp-capabilities.ts';
import { PSP_FACTORIES } from '../../factories.ts';
import { MolliePsp } from '../adapter.ts';
import { mollie as mollieDescriptor } from '../descriptor.ts';
import { type FakeMollie, startFakeMollie } from './fake.ts';

const session = (psp: Psp, value = '5.00', currency = 'EUR') =>
  psp.createSession(
    sessionRequest(orderLink(value, currency), storedConnection(psp.provider, 'test', 'pc_x')),
  );
const refund = (psp: Refunds, paymentReference: string) =>
  psp.refund({
    refundId: 're_failures0000000000000000001',
    linkId: 'pl_failures0000000000000000001',
    paymentReference,
    amount: { value: '1.00', currency: 'EUR' },
  });

let untrust: () => void;
beforeAll(() => {
  untrust = trustFakePspCertificate();
});
afterAll(() => untrust());

describe('the Mollie adapter translates what Mollie answers into the closed set of PSP failures', () => {
  const key = 'test_dHar4XY7LxsDOtmnkVtjNVWXLSlXsM';
  const connection = storedConnection('mollie', 'test', 'pc_molliefailures000000000000');
  const secrets = new Map([[connection.secret_name as string, JSON.stringify({ api_key: key })]]);
  let mollie: FakeMollie;
  let factory: ReturnType<typeof factoryOf<MolliePsp>>;

  beforeAll(async () => {
    mollie = await startFakeMollie({ apiKeys: [key] });
    factory = factoryOf<MolliePsp>(PSP_FACTORIES.mollie, { secrets, apiUrl: mollie.apiEndpoint });
  });
  afterAll(() => mollie.stop());

  it('its 422 to a payment or a refund is a refusal', async () => {
    const psp = await factory.create(connection);
    // Mollie takes two decimals of KWD, not three.
    expect(await failureOf(session(psp, '10.005', 'KWD'))).toBe('refused');
    const open = await session(psp);
    expect(await failureOf(refund(psp, open.id))).toBe('refused');
  });

  it('a key it refuses (401, 403) is refused credentials, and its 429 is Mollie failing, whatever the call', async () => {
    // Mollie's document has no 401 or 403 for these calls, so the fake cannot answer them: its SDK's error, as
    // @mollie/api-client throws it for such an answer, stands in.
    for (const [statusCode, kind] of [
      [401, 'credentials_rejected'],
      [403, 'credentials_rejected'],
      [429, 'unavailable'],
    ] as const) {
      const answer = () => Promise.reject(new MollieApiError('Missing authentication', { statusCode }));
      const client = { payments: { create: answer, get: answer }, paymentRefunds: { create: answer } };
      const psp = new MolliePsp(mollieDescriptor, client as unknown as MollieClient, connection);
      expect(await failureOf(session(psp))).toBe(kind);
      expect(await failureOf(refund(psp, 'tr_1'))).toBe(kind);
      expect(await failureOf(psp.retrieveSession('tr_1'))).toBe(kind);
    }
  });

  it('its 503 is Mollie failing', { timeout: timeoutFor(PSP_CALL_TIMEOUT_MS) }, async () => {
    const psp = await factory.create(connection);
    mollie.outage = 'error';
    try {
      expect(await failureOf(psp.retrieveSession('tr_1'))).toBe('unavailable');
    } finally {
      mollie.outage = 'none';
    }
  });
});
