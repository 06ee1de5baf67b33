-- Environment security settings by the published client's names. The JWT lifetime moves from
-- security.jwtExpirationSeconds to security.jwtDuration {amount, unit} in the largest unit that says it
-- exactly (whole minutes, rounded up: the old minimum was 60 seconds), and the redirect targets of
-- security.allowedRedirectUrls become deeplink URLs, the client's home for them (sign-in already accepted
-- both). Values that are not of the expected JSON type are dropped: they never took effect.
UPDATE environments
SET settings = jsonb_set(
  settings #- '{security,jwtExpirationSeconds}',
  '{security,jwtDuration}',
  (SELECT CASE
     WHEN m % 1440 = 0 THEN jsonb_build_object('amount', m / 1440, 'unit', 'days')
     WHEN m % 60 = 0 THEN jsonb_build_object('amount', m / 60, 'unit', 'hours')
     ELSE jsonb_build_object('amount', m, 'unit', 'minutes')
   END
   FROM (SELECT ceil((settings #>> '{security,jwtExpirationSeconds}')::numeric / 60)::int AS m) AS minutes))
WHERE jsonb_typeof(settings #> '{security,jwtExpirationSeconds}') = 'number'
  AND (settings #>> '{security,jwtExpirationSeconds}')::numeric > 0;

UPDATE environments SET settings = settings #- '{security,jwtExpirationSeconds}'
WHERE settings #> '{security,jwtExpirationSeconds}' IS NOT NULL;

INSERT INTO deeplink_urls (id, environment_id, url)
SELECT gen_random_uuid(), e.id, trim(u.url)
FROM environments e
CROSS JOIN LATERAL jsonb_array_elements_text(
  CASE WHEN jsonb_typeof(e.settings #> '{security,allowedRedirectUrls}') = 'array' THEN e.settings #> '{security,allowedRedirectUrls}' ELSE '[]'::jsonb END
) AS u(url)
WHERE length(trim(u.url)) BETWEEN 1 AND 2048
ON CONFLICT (environment_id, url) DO NOTHING;

UPDATE environments SET settings = settings #- '{security,allowedRedirectUrls}'
WHERE settings #> '{security,allowedRedirectUrls}' IS NOT NULL;
