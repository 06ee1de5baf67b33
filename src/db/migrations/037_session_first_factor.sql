-- The credential a session signed in with (its first factor): the kind (wallet, email, phone, oauth,
-- external, passkey) and the id of the verified credential, wallet credential or passkey (NULL for an
-- external identity, which has no row of its own). A second factor must be another credential than this
-- one: an e-mail code to the address that signed the session in proves nothing new. NULL for sessions
-- opened before it was kept: the e-mail factor is then refused (nothing tells which address it repeats).
ALTER TABLE sessions ADD COLUMN first_factor_kind text;
ALTER TABLE sessions ADD COLUMN first_factor_id text;
