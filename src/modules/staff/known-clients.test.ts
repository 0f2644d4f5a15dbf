import { createManualClock } from '../../clock';
import { createKnownClients } from './known-clients';

describe('the known clients the sign-in gate lets past', () => {
  const setUp = (stored: string[][], refreshMs = 60_000) => {
    const clock = createManualClock();
    const reads: Date[] = [];
    const answers = [...stored];
    const known = createKnownClients({
      clock,
      refreshMs,
      read: async (now) => {
        reads.push(now);
        const answer = answers.shift();
        if (!answer) throw new Error('database unreachable');
        return answer;
      },
    });
    return { clock, reads, known };
  };

  it('reads the stored known clients at the first sign-in, in the background', async () => {
    const { known, reads } = setUp([['known:a']]);
    expect(known.has('known:a')).toBe(false); // the read has only started
    await known.reading;
    expect(known.has('known:a')).toBe(true);
    expect(known.has('known:b')).toBe(false);
    expect(reads).toHaveLength(1);
  });

  it('reads again once the last read is older than refreshMs, keeping successes made meanwhile', async () => {
    const { known, reads, clock } = setUp([['known:a'], ['known:b']]);
    known.has('x');
    await known.reading;
    clock.advance(59_000);
    known.has('x');
    expect(reads).toHaveLength(1);
    clock.advance(1_000);
    expect(known.has('known:a')).toBe(true); // still the earlier read's answer
    known.add('known:c'); // a success while the read is under way
    await known.reading;
    expect(['known:a', 'known:b', 'known:c'].map((key) => known.has(key))).toEqual([false, true, true]);
    expect(reads).toHaveLength(2);
  });

  it('keeps what it read before when a read fails, and adds its own successes at once', async () => {
    const { known, clock } = setUp([['known:a']]);
    known.has('x');
    await known.reading;
    clock.advance(60_000);
    known.has('x');
    await known.reading; // fails
    expect(known.has('known:a')).toBe(true);
    known.add('known:d');
    expect(known.has('known:d')).toBe(true);
  });
});
