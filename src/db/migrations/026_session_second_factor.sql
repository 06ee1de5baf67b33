-- A session opened by a first factor alone (the environment requires MFA) carries the scope
-- requiresAdditionalAuth; the scope it gets once a second factor passes waits here until then.
ALTER TABLE sessions ADD COLUMN pending_scope text;
