-- WaaS policy rules take the published client's shape: each rule has its own ruleId (what updates and
-- deletes name it by), ruleType instead of type, one chain instead of a list, maxPerCall instead of maxValue.
-- A stored rule over several chains (or over all of them: an empty list) becomes one rule per chain, its name
-- suffixed with the chain so that names stay unique within the policy.
UPDATE waas_policies p SET rules = (
  SELECT COALESCE(jsonb_agg(
    jsonb_build_object(
      'ruleId', gen_random_uuid()::text,
      'name', CASE WHEN c.n > 1 THEN (r.rule->>'name') || ' (' || c.chain || ')' ELSE r.rule->>'name' END,
      'ruleType', r.rule->>'type',
      'chain', c.chain,
      'addresses', COALESCE(r.rule->'addresses', '[]'::jsonb),
      'maxPerCall', COALESCE(r.rule->'maxValue', 'null'::jsonb),
      'methods', COALESCE(r.rule->'methods', '[]'::jsonb)
    ) ORDER BY r.ord, c.ord), '[]'::jsonb)
  FROM jsonb_array_elements(p.rules) WITH ORDINALITY AS r(rule, ord)
  CROSS JOIN LATERAL (
    SELECT x.chain, x.ord, count(*) OVER () AS n
    FROM jsonb_array_elements_text(
      CASE WHEN jsonb_array_length(COALESCE(r.rule->'chains', '[]'::jsonb)) = 0 THEN '["EVM", "SOL"]'::jsonb ELSE r.rule->'chains' END
    ) WITH ORDINALITY AS x(chain, ord)
  ) c
)
WHERE EXISTS (SELECT 1 FROM jsonb_array_elements(p.rules) AS e(rule) WHERE NOT e.rule ? 'ruleId');
