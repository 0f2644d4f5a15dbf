import { type CommandHandlerDeps, createCommandButtons, createCommandHandlers } from './command-handlers';
import { COMMANDS, STAFF_COMMANDS } from './definitions';
import { PRIVACY_DELETE_BUTTON } from './privacy.command';

// the handlers are only built here, never run: no dependency is touched
const deps = {} as unknown as CommandHandlerDeps;

describe('command handlers', () => {
  it('has exactly one handler per command definition', () => {
    expect(Object.keys(createCommandHandlers(deps)).sort()).toEqual(COMMANDS.map((c) => c.name).sort());
  });

  it('marks as staff-only exactly the commands Discord hides behind Manage Server', () => {
    const handlers = createCommandHandlers(deps);
    const staffOnly = Object.entries(handlers)
      .filter(([, h]) => h.staffOnly)
      .map(([name]) => name)
      .sort();
    expect(staffOnly).toEqual([...STAFF_COMMANDS].sort());
    expect(staffOnly).not.toContain('privacy');
  });

  it('routes the /privacy delete confirmation button', () => {
    expect(createCommandButtons(deps).map((b) => b.prefix)).toEqual([PRIVACY_DELETE_BUTTON]);
  });
});
