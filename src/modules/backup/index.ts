export { BackupFileError, backupFileName, assertWritableFolder } from './backup-file';
export { writeSnapshot } from './snapshot';
export { restoreSnapshot } from './restore';
export { requestBackup, startBackupTrigger } from './backup-trigger';
export { runDailyBackup } from './daily-backup';
