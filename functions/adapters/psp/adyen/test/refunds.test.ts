import { beforeAll, describe, expect, it } from 'vitest';
import { credentialsProblemOf } from '../../../../../test/support/psp-fakes.ts';
import { orderLink, sessionRequest } from '../../../../../test/support/psp-fixtures.ts';
import { InvalidNotificationError, PspNotConfiguredError } from '../../../../domain/errors.ts';
import type { Mode } from '../../../../domain/principal.ts';
import { type Psp, PspRefusalError } from '../../../../ports/psp.ts';
import { adyen as descriptor } from '../descriptor.ts';
import {
  connectionOf,
  credentials,
  hmacKey,
  liveCredentials,
  merchantAccount,
  paidAt,
  rotatedHmacKey,
  testConnection,
  useFakeAdyen,
} from './adapter-setup.ts';
import type { FakeAdyen } from './fake.ts';

const fake = useFakeAdyen();
let adyen: FakeAdyen;
let factory: (typeof fake)['factory'];
let secrets: (typeof fake)['secrets'];
beforeAll(() => {
  ({ adyen, factory, secrets } = fake);
});
const paid = (psp: Psp, value?: string) => paidAt(adyen, psp, value);

describe('the Adyen adapter’s refunds, through @adyen/api-library against an Adyen-speaking server', () => {
  it('refunds through the Modifications API; the outcome comes from the REFUND notification', async () => {
    const psp = await factory.create(testConnection);
    const { item } = await paid(psp, '30.00');
    const request = {
      refundId: 're_ours000000000000000000001',
      linkId: 'pl_ours000000000000000000001',
      paymentReference: item.pspReference,
      amount: { value: '12.5', currency: 'EUR' },
    };
    const refund = await psp.refund(request);
    expect(refund).toEqual({
      reference: expect.stringMatching(/^[0-9A-F]{16}$/),
      refundId: request.refundId,
      linkId: request.linkId,
      state: 'pending',
      failureMessage: null,
    });
    const sent = adyen.requests.at(-1);
    expect(sent).toMatchObject({ method: 'POST', path: `/v72/payments/${item.pspReference}/refunds` });
    expect(sent?.headers['idempotency-key']).toBe(request.refundId);
    expect(JSON.parse(sent?.body ?? '')).toEqual({
      amount: { currency: 'EUR', value: 1250 },
      merchantAccount,
      reference: `${request.linkId}/${request.refundId}`,
    });
    expect(await psp.refund(request)).toEqual(refund);
    expect(adyen.refunds.size).toBe(1);

    expect((await psp.retrieveRefund(refund.reference)).state).toBe('pending');
    const notifications = await psp.verifyNotification(
      adyen.notification([adyen.refundItem(refund.reference, 'succeeded')], { hmacKey }),
      {},
    );
    expect(notifications).toEqual([
      { type: 'REFUND', sessionId: null, refundReference: refund.reference, livemode: false },
    ]);
    // Adyen keeps no metadata on a refund: our ids come back in the notification's merchant reference.
    expect(await psp.retrieveRefund(refund.reference)).toEqual({
      reference: refund.reference,
      refundId: request.refundId,
      linkId: request.linkId,
      state: 'succeeded',
      failureMessage: null,
    });
  });

  it('reports a REFUND_FAILED as a failed refund with Adyen’s reason', async () => {
    const psp = await factory.create(testConnection);
    const { item } = await paid(psp, '8.00');
    const refund = await psp.refund({
      refundId: 're_ours000000000000000000002',
      linkId: 'pl_ours000000000000000000002',
      paymentReference: item.pspReference,
      amount: { value: '8.00', currency: 'EUR' },
    });
    await psp.verifyNotification(
      adyen.notification([adyen.refundItem(refund.reference, 'failed')], { hmacKey }),
      {},
    );
    expect(await psp.retrieveRefund(refund.reference)).toEqual({
      reference: refund.reference,
      refundId: 're_ours000000000000000000002',
      linkId: 'pl_ours000000000000000000002',
      state: 'failed',
      failureMessage: 'Refund Failed',
    });
  });

  it('reports a REFUND with success false, and a REFUNDED_REVERSED after a REFUND, as a failed refund', async () => {
    const psp = await factory.create(testConnection);
    const { item } = await paid(psp, '9.00');
    const request = (n: number) => ({
      refundId: `re_ours00000000000000000000${n}`,
      linkId: 'pl_ours000000000000000000003',
      paymentReference: item.pspReference,
      amount: { value: '3.00', currency: 'EUR' },
    });
    const refused = await psp.refund(request(3));
    const reversed = await psp.refund(request(4));

    const notifications = await psp.verifyNotification(
      adyen.notification(
        [
          adyen.refundItem(refused.reference, 'refused'),
          adyen.refundItem(reversed.reference, 'succeeded'),
          adyen.refundItem(reversed.reference, 'reversed'),
        ],
        { hmacKey },
      ),
      {},
    );

    expect(notifications.map(({ refundReference }) => refundReference)).toEqual([
      refused.reference,
      reversed.reference,
      reversed.reference,
    ]);
    expect(await psp.retrieveRefund(refused.reference)).toMatchObject({
      state: 'failed',
      failureMessage: 'Insufficient balance on merchant account',
    });
    expect(await psp.retrieveRefund(reversed.reference)).toMatchObject({
      refundId: 're_ours000000000000000000004',
      state: 'failed',
      failureMessage: 'Adyen reversed the refund: Refund returned by the issuer.',
    });
  });

  it('turns a definite refusal of a refund into PspRefusalError with Adyen’s message', async () => {
    const psp = await factory.create(testConnection);
    const refusal = psp.refund({
      refundId: 're_ours000000000000000000005',
      linkId: 'pl_ours000000000000000000005',
      paymentReference: 'NOSUCHPAYMENT000',
      amount: { value: '1.00', currency: 'EUR' },
    });
    await expect(refusal).rejects.toBeInstanceOf(PspRefusalError);
    await expect(refusal).rejects.toThrow(/^Adyen: Original pspReference required/);
  });
});

describe('Adyen credentials, modes and rotation', () => {
  it('accepts only credentials of the environment matching the connection’s mode', () => {
    const problemOf = (given: unknown, mode: Mode) => credentialsProblemOf(descriptor, given, mode);
    expect(problemOf(credentials, 'test')).toBeUndefined();
    expect(problemOf(liveCredentials, 'live')).toBeUndefined();
    expect(problemOf(credentials, 'live')).toMatch(/live environment/);
    expect(problemOf(liveCredentials, 'test')).toMatch(/test environment/);
    expect(problemOf({ ...liveCredentials, live_endpoint_url_prefix: undefined }, 'live')).toMatch(
      /live_endpoint_url_prefix/,
    );
    expect(problemOf({ ...credentials, hmac_key: 'not hex' }, 'test')).toMatch(/hmac_key/);
    expect(problemOf({ ...credentials, merchant_account: '' }, 'test')).toMatch(/merchant_account/);
  });

  it('refuses to serve a live connection whose stored credentials are of the test environment', async () => {
    const connection = connectionOf('live', 'pc_adyenswapped00000000000000000');
    secrets.set(connection.secret_name as string, JSON.stringify(credentials));
    await expect(factory.create(connection)).rejects.toThrow(PspNotConfiguredError);
  });

  it('accepts the previous HMAC key during a rotation, and only the new one after it', async () => {
    const connection = connectionOf('test', 'pc_adyenrotated00000000000000000');
    secrets.set(connection.secret_name as string, JSON.stringify(credentials));
    const before = await factory.create(connection);
    const session = await before.createSession(sessionRequest(orderLink('5.00'), connection));
    const item = adyen.pay(session.id);

    secrets.set(
      connection.secret_name as string,
      JSON.stringify({ ...credentials, hmac_key: rotatedHmacKey, previous_hmac_key: hmacKey }),
    );
    const during = await factory.create(connection);
    expect(during).not.toBe(before);
    await expect(
      during.verifyNotification(adyen.notification([item], { hmacKey }), {}),
    ).resolves.toHaveLength(1);
    await expect(
      during.verifyNotification(adyen.notification([item], { hmacKey: rotatedHmacKey }), {}),
    ).resolves.toHaveLength(1);

    secrets.set(
      connection.secret_name as string,
      JSON.stringify({ ...credentials, hmac_key: rotatedHmacKey }),
    );
    const after = await factory.create(connection);
    await expect(after.verifyNotification(adyen.notification([item], { hmacKey }), {})).rejects.toThrow(
      InvalidNotificationError,
    );
  });
});
