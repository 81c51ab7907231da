/** A routing document that splits euro links 50/50 between two connections, each the other's failover. */
export function splitRouting(connections: readonly { id: string }[]) {
  return {
    rules: [
      {
        name: 'split',
        when: { currency: ['EUR'] },
        then: { split: connections.map((connection) => ({ connection: connection.id, weight: 50 })) },
      },
    ],
    default: connections.map((connection) => connection.id),
  };
}
