import { matchesSchema, resolveSchema } from './schema-validators';

/**
 * The fields of a body (that already matches its schema) that the description does not
 * document, as dotted paths: `embeds.0.colour`. Discord ignores such a field, so it is not
 * refused, but sending one is a departure (the sender believes it does something). A union
 * is followed into the first variant the value matches; an object that allows other fields
 * (`additionalProperties`) or combines schemas (`allOf`) is not looked into further.
 */
export function undocumentedFields(schema: unknown, value: unknown, path: string[] = [], out: string[] = []): string[] {
  const resolved = resolveSchema(schema);
  if (!resolved || value === null || typeof value !== 'object') return out;
  const union = (resolved.anyOf ?? resolved.oneOf) as object[] | undefined;
  if (Array.isArray(union)) {
    const variant = union.find((candidate) => matchesSchema(candidate, value));
    if (variant) undocumentedFields(variant, value, path, out);
    return out;
  }
  if (Array.isArray(value)) {
    if (resolved.items) value.forEach((item, index) => undocumentedFields(resolved.items, item, [...path, String(index)], out));
    return out;
  }
  const properties = resolved.properties as Record<string, unknown> | undefined;
  if (!properties || resolved.allOf) return out;
  for (const [key, field] of Object.entries(value as Record<string, unknown>)) {
    if (key in properties) undocumentedFields(properties[key], field, [...path, key], out);
    else if (resolved.additionalProperties === undefined && resolved.patternProperties === undefined) out.push([...path, key].join('.'));
  }
  return out;
}
