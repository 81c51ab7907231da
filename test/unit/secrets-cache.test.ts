import { afterEach, describe, expect, it, vi } from 'vitest';

const required = {
  TABLE_NAME: 't',
  CHECKOUT_BASE: 'https://pay.example/checkout',
  BASE_URL: 'https://pay.example',
  EVENTS_QUEUE_URL: 'q',
  EVENTS_DEAD_LETTER_QUEUE_URL: 'dlq',
  SANDBOX_SECRET_NAME: 'sandbox',
  PSP_SECRET_PREFIX: 'psp/',
  LINK_ID_SECRET: 'a-link-id-secret-of-at-least-32-characters',
};

async function configWith(env: Record<string, string>) {
  vi.resetModules();
  for (const [name, value] of Object.entries({ ...required, ...env })) vi.stubEnv(name, value);
  const { config } = await import('../../functions/config.ts');
  return config;
}

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('how long a warm container keeps a secret', () => {
  it('is 5 minutes unless set, so rotated PSP credentials are in use within 5 minutes', async () => {
    const config = await configWith({});
    expect(config().SECRETS_CACHE_SECONDS).toBe(300);
  });

  it('cannot be set beyond 5 minutes', async () => {
    const config = await configWith({ SECRETS_CACHE_SECONDS: '900' });
    expect(() => config()).toThrow(/SECRETS_CACHE_SECONDS/);
  });
});
