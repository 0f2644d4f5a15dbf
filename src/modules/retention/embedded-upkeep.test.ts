import { analyzeStatements } from './embedded-upkeep';

describe('the embedded engine’s ANALYZE, in pieces', () => {
  it('analyzes a table whose columns keep the default target in one statement', () => {
    expect(analyzeStatements({ name: 'discord_outbox', wide: [], other: ['id', 'status'], hasExpressionIndex: false })).toEqual([
      'ANALYZE discord_outbox',
    ]);
  });

  it('gives each wider column a statement of its own, then the rest together', () => {
    expect(
      analyzeStatements({
        name: 'members',
        wide: ['discord_id', 'username'],
        other: ['id', 'status', '"Odd name"'],
        hasExpressionIndex: false,
      }),
    ).toEqual(['ANALYZE members (discord_id)', 'ANALYZE members (username)', 'ANALYZE members (id, status, "Odd name")']);
  });

  it('keeps a table with an expression index whole (its statistics come only from a whole-table ANALYZE)', () => {
    expect(analyzeStatements({ name: 'staff', wide: ['username'], other: ['id'], hasExpressionIndex: true })).toEqual(['ANALYZE staff']);
  });

  it('has no "rest" statement when every column is wide', () => {
    expect(analyzeStatements({ name: 'pgboss.job', wide: ['name'], other: [], hasExpressionIndex: false })).toEqual([
      'ANALYZE pgboss.job (name)',
    ]);
  });
});
