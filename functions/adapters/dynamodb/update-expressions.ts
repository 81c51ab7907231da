/**
 * `SET #name = :name, ...` for each attribute that is defined, with the expression's names and values, for an
 * UpdateCommand to spread and extend with its own REMOVE, condition, names and values. Placeholders repeat the
 * attribute's name, so a condition may name `#status` beside a `status` it sets.
 */
export function setAttributes(attributes: Readonly<Record<string, unknown>>) {
  const entries = Object.entries(attributes).filter(([, value]) => value !== undefined);
  return {
    UpdateExpression: `SET ${entries.map(([name]) => `#${name} = :${name}`).join(', ')}`,
    ExpressionAttributeNames: Object.fromEntries(entries.map(([name]) => [`#${name}`, name])),
    ExpressionAttributeValues: Object.fromEntries(entries.map(([name, value]) => [`:${name}`, value])),
  };
}
