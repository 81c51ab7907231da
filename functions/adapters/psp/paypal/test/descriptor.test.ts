import { describe, expect, it } from 'vitest';
import { credentialsProblemOf } from '../../../../../test/support/psp-fakes.ts';
import { paypal } from '../descriptor.ts';

describe("PayPal's descriptor", () => {
  const test = {
    client_id: 'AeA1QIZXiflr1_-r0U2UbWTziOWX1GRQer5OEUCtvB4',
    client_secret: 'ECYYrrSHdKfk_Q0EdvzdGkzj58a66kKaUQ5dZAEv4',
    webhook_id: '8PT597110X687430LKGECATA',
    environment: 'sandbox',
  };
  const live = { ...test, environment: 'live' };

  it("accepts credentials of the connection's environment and refuses those of the other, or none", () => {
    expect(credentialsProblemOf(paypal, test, 'test')).toBeUndefined();
    expect(credentialsProblemOf(paypal, live, 'live')).toBeUndefined();
    expect(credentialsProblemOf(paypal, test, 'live')).toMatch(/live/);
    expect(credentialsProblemOf(paypal, live, 'test')).toMatch(/test/);
    expect(credentialsProblemOf(paypal, {}, 'test')).toBeDefined();
  });

  it('takes a connection without an environment as of its mode’s environment', () => {
    const { environment: _, ...withoutEnvironment } = test;
    expect(credentialsProblemOf(paypal, withoutEnvironment, 'test')).toBeUndefined();
    expect(credentialsProblemOf(paypal, withoutEnvironment, 'live')).toBeUndefined();
    expect(
      credentialsProblemOf(paypal, { ...withoutEnvironment, environment: 'production' }, 'live'),
    ).toMatch(/environment/);
  });
});
