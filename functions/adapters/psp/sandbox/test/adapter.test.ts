import { describe, expect, it } from 'vitest';
import { declaredInterfaces, interfaceCapabilities } from '../../../../../test/support/psp-fakes.ts';
import { PSP_CALL_TIMEOUT_MS } from '../../../../domain/call-budgets.ts';
import { builtInSandbox } from '../../../../domain/connection.ts';
import { amountProblem } from '../../../../domain/psp-rules.ts';
import { SandboxPsp } from '../adapter.ts';
import { sandbox } from '../descriptor.ts';
import { SandboxMandates, withSandboxMandates } from '../mandates.ts';
import { signSandboxPayload, verifySandboxSignature } from '../notifications.ts';

const now = new Date('2026-01-01T10:00:00Z');

describe('the sandbox adapter', () => {
  it('has the capabilities its descriptor declares, and no other', () => {
    const options = {
      sessions: {} as never,
      signingSecret: async () => 's3cret',
      baseUrl: 'http://localhost',
      callTimeoutMs: PSP_CALL_TIMEOUT_MS,
      now: () => now,
    };
    const connection = builtInSandbox('acme', 'test');
    // As its factory builds it: the adapter with its mandates.
    const psp = withSandboxMandates(
      new SandboxPsp(sandbox, options, connection),
      new SandboxMandates({ ...options, mandates: {} as never }, connection),
    );
    expect(interfaceCapabilities(psp)).toEqual(declaredInterfaces(sandbox));
    expect(psp.sessionLimits).toBe(sandbox.sessionLimits);
  });
});

describe('sandbox notification signatures', () => {
  const body = '{"type":"sandbox.session.completed"}';
  const t = Math.floor(now.getTime() / 1000);

  it('verify with the same secret, body and a fresh timestamp', () => {
    expect(verifySandboxSignature('s3cret', body, signSandboxPayload('s3cret', body, t), now)).toBe(true);
  });

  it('fail with another secret, another body, a stale timestamp or a malformed header', () => {
    expect(verifySandboxSignature('s3cret', body, signSandboxPayload('other', body, t), now)).toBe(false);
    expect(verifySandboxSignature('s3cret', `${body} `, signSandboxPayload('s3cret', body, t), now)).toBe(
      false,
    );
    expect(verifySandboxSignature('s3cret', body, signSandboxPayload('s3cret', body, t - 301), now)).toBe(
      false,
    );
    expect(verifySandboxSignature('s3cret', body, 'v1=abc', now)).toBe(false);
    expect(verifySandboxSignature('s3cret', body, undefined, now)).toBe(false);
  });
});

describe("the sandbox's amounts", () => {
  it('are every valid amount', () => {
    expect(amountProblem(sandbox.amounts, { value: '10.005', currency: 'KWD' }, 'payment')).toBeUndefined();
    expect(amountProblem(sandbox.amounts, { value: '0.01', currency: 'EUR' }, 'payment')).toBeUndefined();
  });
});
