import { specDocument, type SpecOperation, type SpecParameter } from './spec-document';

export type SpecMethod = 'get' | 'put' | 'post' | 'delete' | 'patch';

/** A documented operation a request's method and path resolved to. */
export interface LocatedOperation {
  /** The description's template, e.g. `/guilds/{guild_id}/members/{user_id}`. */
  template: string;
  method: SpecMethod;
  operation: SpecOperation;
  /** Path-level and operation-level parameters (the operation's win by name and place). */
  parameters: SpecParameter[];
  /** Decoded path segments by the template's parameter names. */
  pathValues: Record<string, string>;
}

interface IndexedPath {
  template: string;
  segments: Array<{ literal: string } | { param: string }>;
  literals: number;
}

let index: Map<number, IndexedPath[]> | undefined;

/** The description's paths grouped by segment count, built once. */
function pathIndex(): Map<number, IndexedPath[]> {
  if (index) return index;
  index = new Map();
  for (const template of Object.keys(specDocument().paths)) {
    const segments = template
      .split('/')
      .filter(Boolean)
      .map((part) => {
        const param = /^\{(.+)\}$/.exec(part);
        return param ? { param: param[1] ?? '' } : { literal: part };
      });
    const entry = { template, segments, literals: segments.filter((s) => 'literal' in s).length };
    const bucket = index.get(segments.length) ?? [];
    bucket.push(entry);
    index.set(segments.length, bucket);
  }
  return index;
}

function mergeParameters(pathLevel: SpecParameter[] = [], operationLevel: SpecParameter[] = []): SpecParameter[] {
  const merged = new Map<string, SpecParameter>();
  for (const parameter of [...pathLevel, ...operationLevel]) merged.set(`${parameter.in}:${parameter.name}`, parameter);
  return [...merged.values()];
}

/**
 * The documented operation for `method` on decoded `segments`: literal segments win over
 * parameters (`/users/@me` before `/users/{user_id}`), as Discord's router does. `pathKnown`
 * tells a documented path used with an undocumented method from an unknown path.
 */
export function locateOperation(method: string, segments: string[]): { located: LocatedOperation } | { pathKnown: boolean } {
  const lower = method.toLowerCase() as SpecMethod;
  let best: { entry: IndexedPath; values: Record<string, string> } | null = null;
  let pathKnown = false;
  for (const entry of pathIndex().get(segments.length) ?? []) {
    const values: Record<string, string> = {};
    const matches = entry.segments.every((part, i) => {
      const segment = segments[i] ?? '';
      if ('literal' in part) return part.literal === segment;
      values[part.param] = segment;
      return segment.length > 0;
    });
    if (!matches) continue;
    pathKnown = true;
    if (!specDocument().paths[entry.template]?.[lower]) continue;
    if (!best || entry.literals > best.entry.literals) best = { entry, values };
  }
  if (!best) return { pathKnown };
  const item = specDocument().paths[best.entry.template] ?? {};
  const operation = item[lower] as SpecOperation;
  return {
    located: {
      template: best.entry.template,
      method: lower,
      operation,
      parameters: mergeParameters(item.parameters, operation.parameters),
      pathValues: best.values,
    },
  };
}
