import { describeMachineSpeed, measureMachineSpeed, probeMachineSpeed, splitByMachineSpeed } from './machine-speed';

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

  it('probes with a quarter of the work, taking less time than the whole reference', () => {
    const whole = measureMachineSpeed(3, 1).minMs;
    const probes = Array.from({ length: 5 }, () => probeMachineSpeed());
    expect(Math.min(...probes)).toBeGreaterThan(0);
    expect(Math.min(...probes)).toBeLessThan(whole);
  });

  it('splits values by the speed of the machine when each was taken, leaving out the unprobed', () => {
    const flows = [
      { id: 'a', probe: 10 },
      { id: 'b', probe: 12.5 },
      { id: 'c', probe: 12.6 },
      { id: 'd', probe: 24 },
      { id: 'e', probe: undefined },
    ];
    const { fast, slow, fastestMs } = splitByMachineSpeed(flows, (f) => f.probe);
    expect(fastestMs).toBe(10);
    expect(fast.map((f) => f.id)).toEqual(['a', 'b']);
    expect(slow.map((f) => f.id)).toEqual(['c', 'd']);
    expect(splitByMachineSpeed(flows, (f) => f.probe, 3).slow).toEqual([]);
  });
});
