import { describe, expect, it } from 'vitest';
import {
  PspCallTimeoutError,
  type PspErrorFacts,
  type PspOperation,
  pspFailure,
} from '../../functions/adapters/psp/kit/calls.ts';
import { InvalidNotificationError } from '../../functions/domain/errors.ts';
import {
  PspCredentialsRejectedError,
  type PspFailure,
  type PspFailureKind,
  PspOutageError,
  PspRefusalError,
  pspFailureOf,
} from '../../functions/ports/psp.ts';

/** An SDK error as the adapters see it, and the facts an adapter reads off it. */
function sdkError(status: number | undefined, extra: Partial<PspErrorFacts> = {}) {
  const error = Object.assign(new Error(`HTTP ${status ?? 'none'}`), { statusCode: status });
  return { error, facts: { psp: 'Acme', status, reason: 'the reason', ...extra } };
}

const kindOf = (status: number | undefined, operation: PspOperation, extra: Partial<PspErrorFacts> = {}) => {
  const { error, facts } = sdkError(status, extra);
  return pspFailure(error, operation, facts).kind;
};

describe('the one translation of PSP SDK errors into the closed set of PSP failures', () => {
  it('takes 401 and 403 as refused credentials, whatever the call', () => {
    for (const operation of ['session', 'end', 'refund', 'lookup'] as const) {
      expect(kindOf(401, operation, { refusal: true })).toBe('credentials_rejected');
      expect(kindOf(403, operation, { refusal: true })).toBe('credentials_rejected');
    }
  });

  it("takes a session's or an end's refusal (the adapter's reading of its PSP) as a refusal, and nothing else", () => {
    expect(kindOf(422, 'session', { refusal: true })).toBe('refused');
    expect(kindOf(400, 'end', { refusal: true })).toBe('refused');
    expect(kindOf(422, 'session', { refusal: false })).toBe('unavailable');
    expect(kindOf(422, 'lookup', { refusal: true })).toBe('unavailable');
  });

  it('takes a 4xx to a refund as a refusal, but 408, 409, 429 and a request still in progress leave it open', () => {
    expect(kindOf(400, 'refund')).toBe('refused');
    expect(kindOf(404, 'refund')).toBe('refused');
    expect(kindOf(422, 'refund')).toBe('refused');
    for (const status of [408, 409, 429, 500, 502, 503, undefined]) {
      expect(kindOf(status, 'refund')).toBe('unavailable');
    }
    expect(kindOf(422, 'refund', { inProgress: true })).toBe('unavailable');
  });

  it('takes no answer, a network error, a 429 and a 5xx as the PSP failing', () => {
    for (const operation of ['session', 'end', 'lookup'] as const) {
      for (const status of [undefined, 429, 500, 503]) expect(kindOf(status, operation)).toBe('unavailable');
    }
  });

  it("keeps the PSP's reason, and the SDK's error as the cause", () => {
    const { error, facts } = sdkError(422, { refusal: true });
    const session = pspFailure(error, 'session', facts);
    expect(session).toBeInstanceOf(PspRefusalError);
    expect(session.message).toBe('Acme refused the session: the reason');
    expect(session.cause).toBe(error);
    expect(pspFailure(error, 'refund', facts).message).toBe('Acme: the reason');
    expect(pspFailure(sdkError(401).error, 'refund', sdkError(401).facts)).toBeInstanceOf(
      PspCredentialsRejectedError,
    );
    expect(pspFailure(sdkError(503).error, 'lookup', sdkError(503).facts)).toBeInstanceOf(PspOutageError);
  });

  it('keeps a failure already of the set as it is: a call that got no answer in time, a forged notification', () => {
    const timeout = new PspCallTimeoutError('acme', 5000);
    expect(pspFailure(timeout, 'refund', sdkError(undefined).facts)).toBe(timeout);
    expect(timeout.kind).toBe('unavailable');
    const forged = new InvalidNotificationError('forged');
    expect(pspFailure(forged, 'lookup', sdkError(undefined).facts)).toBe(forged);
  });
});

describe('the closed set of PSP failures', () => {
  it('names the kind of each member, and of nothing else', () => {
    const failures: [PspFailure, PspFailureKind][] = [
      [new PspRefusalError('no'), 'refused'],
      [new PspOutageError('down'), 'unavailable'],
      [new PspCallTimeoutError('acme', 5000), 'unavailable'],
      [new PspCredentialsRejectedError('who?'), 'credentials_rejected'],
      [new InvalidNotificationError('forged'), 'notification_not_authentic'],
    ];
    for (const [failure, kind] of failures) expect(pspFailureOf(failure)?.kind).toBe(kind);
    expect(pspFailureOf(new Error('a bug of ours'))).toBeUndefined();
    expect(pspFailureOf('a string')).toBeUndefined();
  });

  it('can be decided on exhaustively', () => {
    const decide = (failure: PspFailure): string => {
      switch (failure.kind) {
        case 'refused':
          return 'the request';
        case 'unavailable':
        case 'credentials_rejected':
          return 'the PSP';
        case 'notification_not_authentic':
          return 'the sender';
        default: {
          const unknown: never = failure;
          return unknown;
        }
      }
    };
    expect(decide(new PspOutageError('down'))).toBe('the PSP');
  });
});
