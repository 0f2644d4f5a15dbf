/** The emulator enforces the same permission algorithm the bot's self-check predicts with. */
export { ALL_PERMISSIONS, hasPermission } from '../permissions';
