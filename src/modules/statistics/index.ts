/** The statistics module, as the rest of the server uses it. */
export { readStatistics } from './statistics.repository';
