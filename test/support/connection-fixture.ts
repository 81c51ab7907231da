import type { PspConnection } from '../../functions/domain/connection.ts';

/**
 * A sandbox connection of account `acme` in test mode, as the routing and learning tests and the routing bench
 * build their candidates from; `changes` gives it fees, another account, mode or date.
 */
export const sandboxConnection = (id: string, changes: Partial<PspConnection> = {}): PspConnection => ({
  id,
  account: 'acme',
  mode: 'test',
  provider: 'sandbox',
  name: id,
  enabled: true,
  simulate: 'ok',
  secret_name: null,
  created_at: '2026-01-01T00:00:00.000Z',
  ...changes,
});
