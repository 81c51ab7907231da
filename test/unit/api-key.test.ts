import { describe, expect, it } from 'vitest';
import {
  generateApiKey,
  generateWebhookSecret,
  hashApiKey,
  parseApiKey,
} from '../../functions/domain/api-key.ts';

describe('API keys', () => {
  const now = new Date('2026-01-01T00:00:00Z');

  it('are svc_<mode>_ plus base62 and carry their mode', () => {
    // Act
    const { key, record } = generateApiKey('acme', 'live', now);
    // Assess
    expect(key).toMatch(/^svc_live_[0-9A-Za-z]{38}$/);
    expect(parseApiKey(key)).toEqual({ mode: 'live', hash: record.hash, keyId: record.key_id });
    expect(record.display_prefix.startsWith('svc_live_')).toBe(true);
    expect(record.display_prefix.length).toBeLessThan(20);
  });

  it('store only a hash of the key', () => {
    // Act
    const { key, record } = generateApiKey('acme', 'test', now);
    // Assess
    expect(record.hash).toBe(hashApiKey(key));
    expect(JSON.stringify(record)).not.toContain(key.slice(9));
  });

  it('are unique', () => {
    // Act
    const keys = new Set(Array.from({ length: 500 }, () => generateApiKey('a', 'test', now).key));
    // Assess
    expect(keys.size).toBe(500);
  });

  it('reject look-alikes whose checksum does not match, without any lookup', () => {
    // Prepare
    const { key } = generateApiKey('acme', 'test', now);
    const lastChar = key.at(-1) === 'a' ? 'b' : 'a';
    // Act and assess
    expect(parseApiKey(`${key.slice(0, -1)}${lastChar}`)).toBeUndefined();
    expect(parseApiKey(key.replace('svc_test_', 'svc_live_'))).toBeUndefined();
    expect(parseApiKey('svc_test_short')).toBeUndefined();
    expect(parseApiKey(`sk_test_${key.slice(9)}`)).toBeUndefined();
  });

  it('come with Standard Webhooks secrets of 32 random bytes', () => {
    // Act
    const secret = generateWebhookSecret();
    // Assess
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
  });
});
