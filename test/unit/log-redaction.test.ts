import { afterEach, describe, expect, it, vi } from 'vitest';
import { logger, PERSONAL_LOG_FIELDS } from '../../functions/logger.ts';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('the logger', () => {
  it("writes a buyer's personal data as [redacted], wherever a payment or a PSP answer carries it", () => {
    const lines: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => lines.push(String(chunk)) > 0);
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => lines.push(String(chunk)) > 0);

    logger.error('payment not handled', {
      payment_id: 'pay_x',
      payment: {
        client_reference_id: 'REF-MARKER',
        buyer: { email: 'buyer@example.com', name: 'Ada Buyer', shipping_address: { line1: 'Main 1' } },
      },
      psp_answer: {
        customer_email: 'buyer@example.com',
        shopperReference: 'REF-MARKER',
        phone: '+31612345678',
      },
    });

    const output = lines.join('');
    expect(output).toContain('pay_x');
    expect(output).toContain('[redacted]');
    for (const marker of ['REF-MARKER', 'buyer@example.com', 'Ada Buyer', 'Main 1', '+31612345678']) {
      expect(output).not.toContain(marker);
    }
  });

  it('names every field of a payment that holds personal data', () => {
    expect([...PERSONAL_LOG_FIELDS]).toEqual(
      expect.arrayContaining(['buyer', 'client_reference_id', 'prefilled_email']),
    );
  });
});
