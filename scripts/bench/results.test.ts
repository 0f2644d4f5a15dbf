import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeResultsFile } from './results';

describe("the bench's results file", () => {
  it("keeps each run's report under its time, and the newest as latest.txt", () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-results-'));
    try {
      const first = writeResultsFile('run one\n', new Date('2026-11-29T03:00:00.000Z'), folder);
      writeResultsFile('run two\n', new Date('2026-11-29T04:00:00.000Z'), folder);
      expect(path.basename(first)).toBe('2026-11-29T03-00-00-000Z.txt');
      expect(fs.readFileSync(first, 'utf8')).toBe('run one\n');
      expect(fs.readFileSync(path.join(folder, 'latest.txt'), 'utf8')).toBe('run two\n');
      expect(fs.readdirSync(folder).sort()).toEqual(['2026-11-29T03-00-00-000Z.txt', '2026-11-29T04-00-00-000Z.txt', 'latest.txt']);
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });
});
