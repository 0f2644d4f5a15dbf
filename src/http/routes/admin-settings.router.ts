import { settingsChangeSchema, type GuildNamesCheck, type SettingsService, type SettingsView } from '../../modules/settings';
import { staffActor } from '../../modules/staff';
import { currentStaff } from '../middleware/staff-session';
import { validate } from '../middleware/validate';
import { validated, type StaffRoute } from './staff-route-table';

function settingsView(view: SettingsView) {
  return {
    version: view.version,
    updatedAt: view.updatedAt?.toISOString() ?? null,
    settings: view.effective,
    defaults: view.defaults,
    stored: view.stored,
  };
}

/** The owner's settings: every staff member may read them, super admins (and the owner) change them. */
export function adminSettingsRoutes(deps: { settings: SettingsService; guildNames?: GuildNamesCheck }): StaffRoute[] {
  return [
    {
      method: 'get',
      path: '/admin/settings',
      access: 'staff',
      handlers: [
        async (_req, res) => {
          res.json(settingsView(await deps.settings.view()));
        },
      ],
    },
    {
      method: 'put',
      path: '/admin/settings',
      access: 'super_admin',
      handlers: [
        validate(settingsChangeSchema),
        async (req, res) => {
          const view = await deps.settings.update(staffActor(currentStaff(res)), validated(req, settingsChangeSchema), deps.guildNames);
          res.json({ success: true, ...settingsView(view) });
        },
      ],
    },
  ];
}
