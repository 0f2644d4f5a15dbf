// The retention module's public entry: code outside src/modules/retention/ imports only from here.
export { purgeExpired } from './retention.service';
