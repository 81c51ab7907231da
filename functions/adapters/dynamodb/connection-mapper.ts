import { type FeeLine, type Provider, type PspConnection, SIMULATIONS } from '../../domain/connection.ts';
import { type ConnectionHealth, INITIAL_HEALTH } from '../../domain/connection-health.ts';
import { PAYMENT_METHODS } from '../../domain/payment-methods.ts';
import type { Routing, RoutingRule } from '../../domain/routing.ts';
import type { ConnectionState } from '../../ports/psp-connections.ts';
import { namesPsp, type PspDescriptor } from '../../ports/psp-descriptor.ts';
import { PSP_IDENTITIES } from '../psp/registry.ts';
import {
  arrayOf,
  boolean,
  type Decoder,
  type FieldDecoders,
  itemDecoder,
  mode,
  nullable,
  number,
  objectOf,
  oneOf,
  optional,
  string,
  wholeMap,
  withDefault,
} from './item-decoder.ts';
import { connectionKeys } from './table-schema.ts';

/**
 * A stored provider id as the id of its PSP now: a PSP renamed keeps its former ids in its descriptor (`aliases`),
 * and an item holding one reads as the PSP's id, so that no item needs rewriting; an id no PSP has is refused.
 */
export function providerDecoder(
  descriptors: readonly Pick<PspDescriptor, 'id' | 'aliases'>[],
): Decoder<Provider> {
  const currentProvider = oneOf(descriptors.map(({ id }) => id));
  return (value) =>
    currentProvider(
      (typeof value === 'string' && descriptors.find((descriptor) => namesPsp(descriptor, value))?.id) ||
        value,
    );
}

/**
 * Every stored `provider` (connections, payments, refund entries, a link's payment and session) is read by this
 * decoder, against the registered PSPs (functions/adapters/psp/registry.ts).
 */
export const storedProvider: Decoder<Provider> = /* @__PURE__ */ providerDecoder(PSP_IDENTITIES);

const feeLine = () =>
  objectOf<FeeLine>({
    percent: number,
    fixed: number,
    currency: optional(string),
    method: optional(oneOf(PAYMENT_METHODS)),
  });

/**
 * A connection's fields. Since the first connections (2026-11-23) every item has the required ones; `methods`,
 * `success_rate` and `fees` came later and stay absent until set (absent: every method, 1, unknown).
 */
const connectionFields = (): FieldDecoders<PspConnection> => ({
  id: string,
  account: string,
  mode,
  provider: storedProvider,
  name: string,
  enabled: boolean,
  simulate: nullable(oneOf(SIMULATIONS)),
  secret_name: nullable(string),
  methods: optional(nullable(arrayOf(oneOf(PAYMENT_METHODS)))),
  success_rate: optional(nullable(number)),
  fees: optional(nullable(arrayOf(feeLine()))),
  created_at: string,
});

/** A connection's health as items hold it: older ones lack `trials_to_pass`, and some carry `down_for_outages`. */
interface StoredHealth extends Omit<ConnectionHealth, 'trials_to_pass'> {
  trials_to_pass?: number;
  down_for_outages?: boolean;
}

/** The shared health beside a connection, in the same item; written with it, read as healthy when absent. */
const healthFields = (): FieldDecoders<StoredHealth> => ({
  consecutive_failures: withDefault(number, () => INITIAL_HEALTH.consecutive_failures),
  down_until: withDefault(nullable(string), () => INITIAL_HEALTH.down_until),
  // Since 2026-11-29 (two trials after outages): absent on older items (see `healthFromItem`).
  trials_to_pass: optional(number),
  // Written by the first versions that fed outages to health (2026-11-29), before `trials_to_pass`; still written
  // beside it for one release (the repository's health write), and read only where `trials_to_pass` is absent.
  down_for_outages: optional(boolean),
  revision: withDefault(number, () => INITIAL_HEALTH.revision),
});

const decodeConnection = /* @__PURE__ */ itemDecoder('connection', connectionFields, {
  omit: ['kind', 'consecutive_failures', 'down_until', 'down_for_outages', 'trials_to_pass', 'revision'],
});
const decodeHealth = /* @__PURE__ */ itemDecoder('connection', healthFields, { keep: 'drop' });

/**
 * An item without `trials_to_pass` was stored before a connection down for outages needed two trials: one down for
 * outages then (`down_for_outages` set) has one trial to pass, so that its next trial decides alone, as it did.
 */
function healthFromItem(item: Record<string, unknown>): ConnectionHealth {
  const { trials_to_pass, down_for_outages, ...health } = decodeHealth(item);
  return {
    ...health,
    trials_to_pass: trials_to_pass ?? (down_for_outages ? 1 : INITIAL_HEALTH.trials_to_pass),
  };
}

/** A stored connection item: the connection, and its health beside it (one read serves both). */
export function connectionStateFromItem(item: Record<string, unknown>): ConnectionState {
  return { connection: decodeConnection(item), health: healthFromItem(item) };
}

/** The item of a new connection, with its initial health. */
export function connectionToItem(connection: PspConnection) {
  return {
    ...connectionKeys.connection(connection.account, connection.mode, connection.id),
    ...connectionKeys.byId(connection.id),
    kind: 'connection',
    ...connection,
    ...INITIAL_HEALTH,
  };
}

const routingRule = () =>
  objectOf<RoutingRule>({
    name: string,
    // The condition and the target were checked whole by `PUT /v1/routing` before they were stored.
    when: wholeMap(),
    // biome-ignore lint/suspicious/noThenProperty: the rule's own field name; this table is never awaited
    then: wholeMap(),
  });

/** The routing document of an (account, mode), without the item's own `kind`, `account` and `mode`. */
export const routingFromItem = /* @__PURE__ */ itemDecoder<Routing>(
  'routing',
  () => ({ rules: arrayOf(routingRule()), default: arrayOf(string) }),
  { keep: 'drop' },
);
