// A module under src/modules/<name>/ is entered from outside only through its index.ts.
// Files inside the same module may import each other freely.
import path from 'node:path';
import { modulesRoot } from './import-graph.mjs';

/** Returns the module name and the path inside it, or null when `file` is not inside src/modules/<name>/. */
function moduleOf(file) {
  const rel = path.relative(modulesRoot, file);
  if (rel.startsWith('..') || path.isAbsolute(rel)) return null;
  const [name, ...rest] = rel.split(path.sep);
  if (!name || rest.length === 0) return null;
  return { name, inner: rest.join('/') };
}

function isEntry(inner) {
  return inner === '' || /^index(\.(ts|js))?$/.test(inner);
}

export default {
  meta: {
    type: 'problem',
    docs: { description: 'Enter a module under src/modules/<name>/ only through its index.ts' },
    schema: [],
    messages: { internal: "'{{source}}' reaches inside module '{{name}}'; import from its index.ts instead." },
  },
  create(context) {
    const from = moduleOf(context.filename);
    function check(node) {
      const source = node.source && node.source.value;
      if (typeof source !== 'string' || !source.startsWith('.')) return;
      const target = path.resolve(path.dirname(context.filename), source);
      const rel = path.relative(modulesRoot, target);
      if (rel.startsWith('..') || path.isAbsolute(rel)) return;
      const [name, ...rest] = rel.split(path.sep);
      if (!name) return;
      if (from && from.name === name) return;
      if (isEntry(rest.join('/'))) return;
      context.report({ node: node.source, messageId: 'internal', data: { source, name } });
    }
    return {
      ImportDeclaration: check,
      ExportNamedDeclaration: check,
      ExportAllDeclaration: check,
      ImportExpression: check,
    };
  },
};
