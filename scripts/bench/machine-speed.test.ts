import { describeMachineSpeed, measureMachineSpeed } from './machine-speed';

describe('the machine reference', () => {
  it('times every run and orders them', () => {
    const speed = measureMachineSpeed(3, 1);
    expect(speed.runs).toBe(3);
    expect(speed.minMs).toBeGreaterThan(0);
    expect(speed.minMs).toBeLessThanOrEqual(speed.medianMs);
    expect(speed.medianMs).toBeLessThanOrEqual(speed.maxMs);
  });

  it('refuses a number of runs that is not a whole number ≥ 1', () => {
    expect(() => measureMachineSpeed(0)).toThrow('runs must be a whole number ≥ 1');
    expect(() => measureMachineSpeed(2.5)).toThrow('runs must be a whole number ≥ 1');
  });

  it('says which hour a figure ran in', () => {
    expect(describeMachineSpeed({ medianMs: 14.44, minMs: 13.86, maxMs: 16.02, runs: 9 })).toBe(
      'machine reference 13.9 ms (the fastest of 9 runs of a fixed workload, median 14.4; larger = slower hour)',
    );
  });
});
