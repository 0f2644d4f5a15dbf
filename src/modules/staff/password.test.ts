import bcrypt from 'bcryptjs';
import { createPasswordHasher, passwordProblem } from './password';

describe('passwordProblem', () => {
  it.each([
    ['', 'Password must be at least 8 characters'],
    ['1234567', 'Password must be at least 8 characters'],
    ['12345678', null],
    ['ééééééé', 'Password must be at least 8 characters'], // 7 characters, 14 bytes
    ['x'.repeat(72), null],
    ['x'.repeat(73), 'Password must be at most 72 bytes'],
    ['😀'.repeat(18), null], // 72 bytes
    ['😀'.repeat(19), 'Password must be at most 72 bytes'],
  ])('%j → %s', (password, problem) => expect(passwordProblem(password)).toBe(problem));
});

describe('createPasswordHasher', () => {
  const hasher = createPasswordHasher(4);

  it('hashes with the given cost and verifies', async () => {
    const hash = await hasher.hash('correct horse');
    expect(bcrypt.getRounds(hash)).toBe(4);
    expect(await hasher.verify('correct horse', hash)).toBe(true);
    expect(await hasher.verify('wrong horse', hash)).toBe(false);
  });

  it('uses cost 12 by default', async () => {
    expect(bcrypt.getRounds(await createPasswordHasher().hash('x'.repeat(8)))).toBe(12);
  });

  it('never accepts an input longer than 72 bytes, even when its prefix matches', async () => {
    const hash = await hasher.hash('p'.repeat(72));
    expect(await hasher.verify('p'.repeat(72), hash)).toBe(true);
    expect(await hasher.verify('p'.repeat(80), hash)).toBe(false);
  });

  it('burns a check without an account', async () => {
    expect(await hasher.burn('anything')).toBe(false);
  });
});
