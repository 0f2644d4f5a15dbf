// A stand-alone module (the Discord emulator, src/discord-emulator) is a product of its own:
// everything else enters it only through its index.ts, and it imports nothing from the rest of
// the repository (only packages and its own files), so it could be lifted out as it is.
import path from 'node:path';
import { aliasTarget, repoRoot } from './import-graph.mjs';

/** The file or folder an import names, or null for a package. */
function targetOf(fromFile, spec) {
  if (spec.startsWith('.')) return path.resolve(path.dirname(fromFile), spec);
  return aliasTarget(spec);
}

function isInside(dir, file) {
  const rel = path.relative(dir, file);
  return !rel.startsWith('..') && !path.isAbsolute(rel);
}

function isEntry(dir, target) {
  const rel = path.relative(dir, target);
  return rel === '' || /^index(\.(ts|js))?$/.test(rel);
}

export default {
  meta: {
    type: 'problem',
    docs: { description: 'Enter a stand-alone module only through its index.ts; the module imports nothing outside itself' },
    schema: [{ type: 'object', properties: { dir: { type: 'string' } }, required: ['dir'], additionalProperties: false }],
    messages: {
      internal: "'{{source}}' reaches inside {{dir}}; import from its index.ts instead.",
      outside:
        "'{{source}}' is outside {{dir}}, which imports nothing from the rest of the repository (give it its own copy or move the piece into it).",
    },
  },
  create(context) {
    const dir = path.join(repoRoot, context.options[0].dir);
    const inside = isInside(dir, context.filename);
    function check(node) {
      const source = node.source && node.source.value;
      if (typeof source !== 'string') return;
      const target = targetOf(context.filename, source);
      if (!target) return;
      if (inside && !isInside(dir, target))
        context.report({ node: node.source, messageId: 'outside', data: { source, dir: context.options[0].dir } });
      if (!inside && isInside(dir, target) && !isEntry(dir, target))
        context.report({ node: node.source, messageId: 'internal', data: { source, dir: context.options[0].dir } });
    }
    return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check, ImportExpression: check };
  },
};
