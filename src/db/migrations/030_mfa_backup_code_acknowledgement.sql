-- Whether the user has confirmed keeping their recovery codes (the client's mfaBackupCodeAcknowledgement):
-- pending from the moment a set is shown, complete once the user says so (updateSelf); null: no codes yet.
ALTER TABLE users ADD COLUMN mfa_backup_code_acknowledgement text
  CHECK (mfa_backup_code_acknowledgement IN ('pending', 'complete'));
