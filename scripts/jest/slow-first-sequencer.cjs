// Runs the longest test files first, so that no worker is left with a long file while the others are idle
// at the end of the run. Jest's own sequencer does this from the durations it cached on an earlier run; on a
// fresh clone (CI) it has none and falls back to file size, which put the files that start the product as a
// child process or drive Chromium (small files, minutes long) last, and the small unit files that wait on
// real time (a rate-limit window, an idle connection; seconds each, little CPU) at the very end, where three
// workers waiting left the two cores idle. So a file without a cached duration takes the one recorded in
// durations.json (seconds, from one-worker runs of each project; `node scripts/test.mjs --record-durations`
// rewrites it from a full run). A file in neither (new since) counts as its size, ten times that when it
// starts processes.
const Sequencer = require('@jest/test-sequencer').default;
const fs = require('node:fs');
const path = require('node:path');

const STARTS_PROCESSES = /(\.e2e\.ts|\.process\.test\.ts|[\\/]drills[\\/].*\.test\.ts)$/;
const ROOT = path.resolve(__dirname, '../..');
/** @type {Record<string, number>} seconds by path from the repository's root */
const RECORDED = require('./durations.json');

const recorded = (test) => {
  const seconds = RECORDED[path.relative(ROOT, test.path).split(path.sep).join('/')];
  return seconds === undefined ? undefined : seconds * 1000;
};

class SlowFirstSequencer extends Sequencer {
  sort(tests) {
    const failed = new Map(tests.map((test) => [test, this.hasFailed(test)]));
    const duration = new Map(tests.map((test) => [test, this.time(test) ?? recorded(test)]));
    const estimate = new Map(tests.map((test) => [test, fs.statSync(test.path).size * (STARTS_PROCESSES.test(test.path) ? 10 : 1)]));
    return [...tests].sort((a, b) => {
      if (failed.get(a) !== failed.get(b)) return failed.get(a) ? -1 : 1;
      const [timeA, timeB] = [duration.get(a), duration.get(b)];
      // as jest does: a file without a duration (new since the last run) goes before the timed ones
      if ((timeA == null) !== (timeB == null)) return timeA == null ? -1 : 1;
      return timeA != null && timeB != null ? timeB - timeA : estimate.get(b) - estimate.get(a);
    });
  }
}

module.exports = SlowFirstSequencer;
