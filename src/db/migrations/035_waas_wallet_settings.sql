-- A threshold WaaS wallet's user-controlled settings: whether its user denied delegated access.
-- While true, no delegated share of the wallet is delivered (deliverDelegatedShare answers 403).
ALTER TABLE waas_wallets ADD COLUMN has_denied_delegated_access boolean NOT NULL DEFAULT false;
