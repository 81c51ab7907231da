import { BUILT_IN_SANDBOX_ID, migratedConnectionId, type PspConnection } from '../domain/connection.ts';
import {
  InvalidNotificationError,
  PspNotConfiguredError,
  PspUnavailableError,
  ServiceError,
} from '../domain/errors.ts';
import type { Mode } from '../domain/principal.ts';
import { logger } from '../logger.ts';
import type { Psp, PspSessionStatus } from '../ports/psp.ts';
import { type PaymentDependencies, recordSessionStatus, type SessionOutcome } from './payments.ts';
import type { PspConnections } from './psp-connections.ts';

export interface NotificationDependencies extends PaymentDependencies {
  psps: PspConnections;
}

export type NotificationOutcome = SessionOutcome;

/** Which connection a notification is for: named by its route, or (legacy route) found from the link. */
export type NotificationAddress =
  | { connectionId: string }
  /** `POST /psp/{provider}/notifications` of accounts configured before connections: the body names the link. */
  | { legacyLink: { linkId: string; mode: Mode } | undefined };

/** Refusals all answer alike (a forger learns nothing); the reason is only logged. */
const notGenuine = (reason: string) => new InvalidNotificationError(reason);

/**
 * `POST /psp/{provider}/notifications/{connection_id}`. The connection's credentials verify the notification;
 * then the true status of each session it names is fetched from the PSP and recorded (`recordSessionStatus`:
 * one transition and one event however many copies race). Forged, foreign or malformed notifications throw a
 * 4xx and change nothing.
 */
export async function handlePspNotification(
  deps: NotificationDependencies,
  provider: string,
  address: NotificationAddress,
  rawBody: string,
  headers: Record<string, string | undefined>,
): Promise<{ outcome: NotificationOutcome; psp: Psp }> {
  const connection = await findConnection(deps, address);
  if (!connection || connection.provider !== provider)
    throw notGenuine('No such connection of this provider.');
  const psp = await deps.psps.adapter(connection).catch((error: unknown) => {
    if (error instanceof PspNotConfiguredError) throw notGenuine('The connection cannot serve this mode.');
    throw error;
  });
  const notifications = await psp.verifyNotification(rawBody, headers);
  let outcome: NotificationOutcome = 'ignored';
  for (const notification of notifications) {
    if (notification.livemode !== (connection.mode === 'live'))
      throw notGenuine('Mode differs from the connection.');
    if (notification.sessionId === null) continue;
    const result = await recordSession(deps, connection, psp, notification.sessionId);
    if (result !== 'ignored') outcome = result;
  }
  return { outcome, psp };
}

async function findConnection(
  deps: NotificationDependencies,
  address: NotificationAddress,
): Promise<PspConnection | undefined> {
  if ('connectionId' in address) return deps.psps.connection(address.connectionId);
  if (!address.legacyLink) return undefined;
  const link = await deps.links.get(address.legacyLink.linkId, address.legacyLink.mode);
  if (!link) return undefined;
  const id = migratedConnectionId(link.account, link.mode);
  const { connections } = await deps.psps.directory(link.account, link.mode);
  return connections.find(({ connection }) => connection.id === id)?.connection;
}

async function recordSession(
  deps: NotificationDependencies,
  connection: PspConnection,
  psp: Psp,
  sessionId: string,
): Promise<NotificationOutcome> {
  let status: PspSessionStatus;
  try {
    status = await psp.retrieveSession(sessionId);
  } catch (error) {
    if (error instanceof ServiceError) throw error;
    logger.error('PSP session lookup failed', { connection_id: connection.id, session_id: sessionId, error });
    throw new PspUnavailableError(error); // a 5xx: the PSP retries later
  }
  if (status.livemode !== (connection.mode === 'live')) {
    throw notGenuine('Session mode differs from the connection.');
  }
  if (!status.linkId) throw notGenuine('The session names no payment link.');
  const link = await deps.links.get(status.linkId, connection.mode);
  // The built-in sandbox serves every account; any other connection only its own account's links.
  if (!link || (connection.id !== BUILT_IN_SANDBOX_ID && link.account !== connection.account)) {
    throw notGenuine('The session names no link of this connection.');
  }
  return recordSessionStatus(deps, connection, link, status);
}
