import { describe, expect, it } from 'vitest';
import {
  amountMismatchFailure,
  chargedAmountMismatch,
  expectedCharge,
  sameMoney,
} from '../../functions/domain/charged-amount.ts';
import type { PspConnection } from '../../functions/domain/connection.ts';
import { PspUnavailableError } from '../../functions/domain/errors.ts';
import { reportPayment } from '../../functions/domain/link-events.ts';
import { settle, startedPayment, toPaymentResource } from '../../functions/domain/payment.ts';
import { classified } from '../../functions/domain/payment-failure.ts';
import { newPaymentLink } from '../../functions/domain/payment-link.ts';
import { type Psp, PspOutageError, PspRefusalError } from '../../functions/ports/psp.ts';
import { checkChargedAmount, mismatchRefundId } from '../../functions/use-cases/charged-amounts.ts';
import { capturedOutput } from '../support/log-capture.ts';

const now = new Date('2026-01-01T10:00:00Z');
const eur = (value: string) => ({ value, currency: 'EUR' });
const connection = { id: 'pc_A000000000000000000000', provider: 'acmepay' };
const fixedLink = () => newPaymentLink({ account: 'acme', mode: 'test' }, { amount: eur('10.00') }, now);
const rangeLink = () =>
  newPaymentLink(
    { account: 'acme', mode: 'test' },
    { amount_range: { currency: 'EUR', minimum: '5.00', maximum: '50.00' } },
    now,
  );
const pending = (amount = eur('25.00')) =>
  startedPayment(
    { id: 'pay_1', link: { id: 'pl_1', account: 'acme', mode: 'test' }, connection, amount },
    { id: 'cs_1', expires_at: new Date(now.getTime() + 3_600_000).toISOString() },
    now,
  );
const mismatch = { expected: eur('10.00'), reported: { value: '0.01', currency: 'USD' } };

describe('what a PSP reports it charged, against the payment', () => {
  it('is the same money whatever trailing or leading zeros, and whatever the currency’s case', () => {
    expect(sameMoney(eur('10.5'), eur('10.50'))).toBe(true);
    expect(sameMoney(eur('010.50'), { value: '10.500', currency: 'eur' })).toBe(true);
    expect(sameMoney({ value: '500', currency: 'JPY' }, { value: '500.0', currency: 'JPY' })).toBe(true);
  });

  it('differs in value or in currency', () => {
    expect(chargedAmountMismatch(eur('10.00'), eur('0.01'))).toEqual({
      expected: eur('10.00'),
      reported: eur('0.01'),
    });
    expect(chargedAmountMismatch(eur('10.00'), { value: '10.00', currency: 'USD' })).toBeDefined();
    expect(chargedAmountMismatch(eur('10.00'), eur('100.0'))).toBeDefined();
    expect(chargedAmountMismatch(eur('10.00'), eur('10'))).toBeUndefined();
  });

  it('is never confirmed by a PSP that does not say what it charged', () => {
    const unknown = chargedAmountMismatch(eur('10.00'), null);
    expect(unknown).toEqual({ expected: eur('10.00'), reported: null });
    expect(unknown && amountMismatchFailure(unknown).message).toContain('reported no amount');
  });

  it('is held against the payment’s own amount (a buyer’s choice), not its link’s', () => {
    expect(expectedCharge(pending(eur('25.00')), fixedLink(), 'cs_1')).toEqual(eur('25.00'));
    expect(expectedCharge(pending(eur('25.00')), rangeLink(), 'cs_1')).toEqual(eur('25.00'));
  });

  it('without a record, is the link’s fixed amount, and nothing for a buyer-chosen one', () => {
    expect(expectedCharge(undefined, fixedLink(), 'cs_1')).toEqual(eur('10.00'));
    expect(expectedCharge(undefined, rangeLink(), 'cs_1')).toBeUndefined();
  });

  it('fails the payment with amount_mismatch, once, even one already ended unpaid', () => {
    const failure = amountMismatchFailure(mismatch);
    expect(failure.code).toBe('amount_mismatch');
    expect(failure.message).toContain('0.01 USD');
    expect(failure.message).toContain('10.00 EUR');
    const outcome = { state: 'failed' as const, failure, reference: 'pi_1' };
    const failed = settle(pending(), outcome, now);
    expect(failed).toMatchObject({ status: 'failed', failure, provider_reference: 'pi_1' });
    expect(failed && settle(failed, outcome, now)).toBeUndefined();
    const canceled = { ...pending(), status: 'canceled' as const };
    expect(settle(canceled, outcome, now)).toMatchObject({ status: 'failed', failure });
    const declined = {
      ...pending(),
      status: 'failed' as const,
      failure: { code: 'declined' as const, class: 'soft' as const, message: '' },
    };
    expect(settle(declined, outcome, now)?.failure).toEqual({ ...failure, class: 'hard' });
  });

  it('reports amount_mismatch to the merchant on a link no longer open, other failures only on an open one', () => {
    const link = { ...fixedLink(), status: 'canceled' as const };
    const payment = {
      ...pending(),
      status: 'failed' as const,
      failure: classified(amountMismatchFailure(mismatch)),
    };
    expect(
      reportPayment(link, 'payment_link.payment_failed', toPaymentResource(payment, link), now),
    ).toBeDefined();
    const declined = {
      ...payment,
      failure: { code: 'declined' as const, class: 'soft' as const, message: 'no' },
    };
    expect(
      reportPayment(link, 'payment_link.payment_failed', toPaymentResource(declined, link), now),
    ).toBeUndefined();
  });
});

describe('giving back what a mismatched success took', () => {
  const link = fixedLink();
  const paidAt = (amount: { value: string; currency: string }) => ({
    id: 'cs_1',
    paymentId: 'pay_1',
    linkId: link.id,
    state: 'succeeded' as const,
    failure: null,
    paymentReference: 'pi_1',
    amount,
    livemode: false,
  });
  const accountConnection = { ...connection, account: 'acme', mode: 'test' as const } as PspConnection;
  const withRefund = (refund: () => Promise<unknown>) => {
    const asked: string[] = [];
    const psp = {
      refund: async (request: { refundId: string }) => {
        asked.push(request.refundId);
        return refund();
      },
      retrieveRefund: async () => refund(),
    } as unknown as Psp;
    const payments = { get: async () => pending(eur('10.00')) };
    return { asked, deps: { payments, pspSessions: { adapter: async () => psp } } };
  };

  it('takes a success at the payment’s amount as it is, asking nothing', async () => {
    const { asked, deps } = withRefund(async () => undefined);
    const status = paidAt(eur('10'));
    expect(await checkChargedAmount(deps, accountConnection, link, status, 'pay_1')).toBe(status);
    expect(asked).toEqual([]);
  });

  it('records nothing when the PSP cannot be asked for the refund, and logs the mismatch: the next copy asks again', async () => {
    const { asked, deps } = withRefund(async () => {
      throw new PspOutageError('The PSP did not answer');
    });
    const output = await capturedOutput(async () => {
      await expect(
        checkChargedAmount(deps, accountConnection, link, paidAt(eur('0.01')), 'pay_1'),
      ).rejects.toThrow(PspUnavailableError);
    });
    expect(asked).toEqual([mismatchRefundId('pay_1')]);
    expect(output).toContain('"given_back":"not yet: the PSP could not be asked for the refund"');
  });

  it('records the failure when the PSP refuses the refund, logged as not given back', async () => {
    const { deps } = withRefund(async () => {
      throw new PspRefusalError('charge_already_refunded');
    });
    let status: Awaited<ReturnType<typeof checkChargedAmount>> | undefined;
    const output = await capturedOutput(async () => {
      status = await checkChargedAmount(deps, accountConnection, link, paidAt(eur('0.01')), 'pay_1');
    });
    expect(status).toMatchObject({ state: 'failed', failure: { code: 'amount_mismatch' } });
    expect(output).toContain('not given back: the PSP refused the refund');
  });

  it('records the failure, asking nothing, when the PSP takes no refunds through us', async () => {
    const psp = { provider: 'acmepay' } as unknown as Psp;
    const deps = {
      payments: { get: async () => pending(eur('10.00')) },
      pspSessions: { adapter: async () => psp },
    };
    let status: Awaited<ReturnType<typeof checkChargedAmount>> | undefined;
    const output = await capturedOutput(async () => {
      status = await checkChargedAmount(deps, accountConnection, link, paidAt(eur('0.01')), 'pay_1');
    });
    expect(status).toMatchObject({ state: 'failed', failure: { code: 'amount_mismatch' } });
    expect(output).toContain('not given back: the PSP takes no refunds through us');
  });
});
