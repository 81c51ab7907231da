import { createSecretKey } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../functions/domain/errors.ts';
import { markPaid } from '../../functions/domain/link-events.ts';
import {
  asCreated,
  newPaymentLink,
  type PaymentLink,
  type PaymentLinkInput,
  update,
} from '../../functions/domain/payment-link.ts';
import type { LinkRepository } from '../../functions/ports/link-repository.ts';
import {
  createKeyedLink,
  type KeyedCreateDependencies,
  keyedLinkId,
  linkOfKey,
} from '../../functions/use-cases/keyed-creates.ts';

const principal = { account: 'acme', mode: 'test' } as const;
const input: PaymentLinkInput = { amount: { value: '12.00', currency: 'EUR' }, description: 'Order 7' };
const secret = createSecretKey(Buffer.from('a-link-id-secret-of-at-least-32-characters'));

/** The links' store as the conditional PutItem behaves: the first write of an id wins, later ones find it. */
function storeOfLinks() {
  const links = new Map<string, PaymentLink>();
  let writes = 0;
  const repository = {
    create: async (link: PaymentLink) => {
      writes++;
      await Promise.resolve();
      const held = links.get(link.id);
      if (held) return structuredClone(held);
      links.set(link.id, structuredClone(link));
      return undefined;
    },
    get: async (id: string) => structuredClone(links.get(id)),
  } as unknown as LinkRepository;
  return { links, repository, writes: () => writes };
}

/** A keyed create's dependencies over `storeOfLinks`, at the time `at.now`. */
function dependencies(at: { now: Date }) {
  const { links, repository, writes } = storeOfLinks();
  const deps: KeyedCreateDependencies = { links: repository, now: () => at.now, linkIdSecret: secret };
  return Object.assign(deps, { stored: links, writes });
}

describe('a create with an Idempotency-Key', () => {
  it('is one write, under an id derived from the tenant and the key by a keyed HMAC', async () => {
    const at = { now: new Date('2026-11-28T10:00:00Z') };
    const deps = dependencies(at);
    const { link, replayed } = await createKeyedLink(deps, principal, () => input, {
      key: 'k1',
      fingerprint: 'f',
    });
    expect(replayed).toBe(false);
    expect(deps.writes()).toBe(1);
    expect(link.id).toBe(keyedLinkId(secret, { ...principal, key: 'k1' }, 0));
    expect(link.id).toMatch(/^pl_[0-9A-Za-z]{24}$/);
    expect(link.request_hash).toBe('f');
    // Another secret, tenant or key names another link.
    expect(
      keyedLinkId(createSecretKey(Buffer.from('another secret')), { ...principal, key: 'k1' }, 0),
    ).not.toBe(link.id);
    expect(keyedLinkId(secret, { ...principal, account: 'globex', key: 'k1' }, 0)).not.toBe(link.id);
  });

  it('makes exactly one link of concurrent duplicates; the others replay it', async () => {
    const at = { now: new Date('2026-11-28T10:00:00Z') };
    const deps = dependencies(at);
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, () =>
        createKeyedLink(deps, principal, () => input, { key: 'burst', fingerprint: 'f' }),
      ),
    );
    expect(outcomes.filter((outcome) => !outcome.replayed)).toHaveLength(1);
    expect(new Set(outcomes.map((outcome) => outcome.link.id)).size).toBe(1);
    expect(deps.stored.size).toBe(1);
  });

  it('refuses the key with another request, and replays the same request even once its body no longer validates', async () => {
    const at = { now: new Date('2026-11-28T10:00:00Z') };
    const deps = dependencies(at);
    const first = await createKeyedLink(deps, principal, () => input, { key: 'k', fingerprint: 'f' });
    await expect(
      createKeyedLink(deps, principal, () => input, { key: 'k', fingerprint: 'other' }),
    ).rejects.toMatchObject({ code: 'idempotency_key_reused' });
    const expired = () => {
      throw new ValidationError([{ pointer: '/expires_at', detail: 'Must be in the future.' }]);
    };
    const replay = await createKeyedLink(deps, principal, expired, { key: 'k', fingerprint: 'f' });
    expect(replay).toEqual({ link: first.link, replayed: true });
    // A key that made nothing keeps the validation failure.
    await expect(
      createKeyedLink(deps, principal, expired, { key: 'fresh', fingerprint: 'f' }),
    ).rejects.toBeInstanceOf(ValidationError);
  });

  it('names a new link once the key is 24 hours old, and replays that one to its own retries', async () => {
    const at = { now: new Date('2026-11-28T10:00:00Z') };
    const deps = dependencies(at);
    const first = await createKeyedLink(deps, principal, () => input, { key: 'daily', fingerprint: 'f' });
    at.now = new Date('2026-11-29T10:00:01Z');
    const second = await createKeyedLink(deps, principal, () => input, { key: 'daily', fingerprint: 'g' });
    expect(second.replayed).toBe(false);
    expect(second.link.id).not.toBe(first.link.id);
    const retry = await createKeyedLink(deps, principal, () => input, { key: 'daily', fingerprint: 'g' });
    expect(retry).toMatchObject({ replayed: true, link: { id: second.link.id } });
    expect((await linkOfKey(deps, { ...principal, key: 'daily' }))?.id).toBe(second.link.id);
  });
});

describe('asCreated', () => {
  it('is the link as created, after a PATCH and a payment', () => {
    const created = newPaymentLink(principal, input, new Date('2026-11-28T10:00:00Z'), {
      id: 'pl_000000000000000000000001',
      request_hash: 'f',
    });
    const patched = update(created, { description: 'Order 7, corrected', metadata: { a: 'b' } }, new Date());
    const paid = markPaid(
      patched,
      { id: 'pay_x', connection_id: 'pc_x', provider: 'sandbox', reference: 'r', amount: input.amount! },
      new Date(),
    )?.after as PaymentLink;
    expect(paid.status).toBe('paid');
    expect(asCreated(paid)).toEqual({ ...created, created_as: patched.created_as });
    expect(patched.created_as).toMatchObject({ description: 'Order 7', metadata: null });
  });
});
