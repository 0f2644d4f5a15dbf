import { APPEAL_MESSAGE_MAX, checkAppealText, isAppealable } from './appeals';

describe('appeal text', () => {
  it.each([
    ['', 'The message cannot be empty'],
    ['   \n ', 'The message cannot be empty'],
    ['x'.repeat(APPEAL_MESSAGE_MAX + 1), `The message can be at most ${APPEAL_MESSAGE_MAX} characters`],
    ['<script>alert(1)</script>', 'The message must be plain text, without HTML'],
    ['hello <b>staff</b>', 'The message must be plain text, without HTML'],
    ['see </p>', 'The message must be plain text, without HTML'],
    ['<!-- hidden -->', 'The message must be plain text, without HTML'],
    ['<img src=x onerror=alert(1)>', 'The message must be plain text, without HTML'],
  ])('refuses %j', (text, error) => {
    expect(checkAppealText(text, APPEAL_MESSAGE_MAX)).toEqual({ ok: false, error });
  });

  it.each([null, undefined, 42, {}, ['a']])('refuses %j as not text', (value) => {
    expect(checkAppealText(value, APPEAL_MESSAGE_MAX)).toEqual({ ok: false, error: 'The message must be text' });
  });

  it('accepts plain text, trimmed, up to the limit, and text that only looks like a comparison', () => {
    expect(checkAppealText('  I <3 this server, and 2 < 3  ', APPEAL_MESSAGE_MAX)).toEqual({
      ok: true,
      text: 'I <3 this server, and 2 < 3',
    });
    expect(checkAppealText(` ${'x'.repeat(APPEAL_MESSAGE_MAX)} `, APPEAL_MESSAGE_MAX)).toEqual({
      ok: true,
      text: 'x'.repeat(APPEAL_MESSAGE_MAX),
    });
  });

  it('names what it checks', () => {
    expect(checkAppealText('', 500, 'The reason')).toEqual({ ok: false, error: 'The reason cannot be empty' });
  });

  it('lets only a certain alt or Limited Access appeal', () => {
    expect(['certain_alt', 'suspected_alt', 'limited', 'verified', 'pending'].filter((s) => isAppealable(s as never))).toEqual([
      'certain_alt',
      'limited',
    ]);
  });
});
