// An import that closes a loop fails: between two modules under src/modules/, or between files elsewhere.
// Type-only imports count too: a loop in the types is still a loop in the design.
import path from 'node:path';
import { findPath, importGraph, isTestFile, repoRoot, resolveImport, unitOf } from './import-graph.mjs';

export default {
  meta: {
    type: 'problem',
    docs: { description: 'Forbid import cycles between modules and between files' },
    schema: [],
    messages: { cycle: 'Import cycle: {{route}}. Move the shared piece to a types file or src/shared, or invert the dependency.' },
  },
  create(context) {
    const file = context.filename;
    if (isTestFile(file)) return {};
    const from = unitOf(file);
    function check(node) {
      const source = node.source && node.source.value;
      if (typeof source !== 'string') return;
      const target = resolveImport(file, source);
      if (!target || isTestFile(target)) return;
      const graph = importGraph();
      const to = unitOf(target);
      const back = to === from ? findPath(graph.files, target, file) : findPath(graph.units, to, from);
      if (!back) return;
      const route = to === from ? [file, ...back].map((f) => path.relative(repoRoot, f)) : [from, ...back];
      context.report({ node: node.source, messageId: 'cycle', data: { route: route.join(' → ') } });
    }
    return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check, ImportExpression: check };
  },
};
