-- The published client reads each exchange rate as a currency: its name and whether it is fiat or crypto
-- sit beside the rate, so that a rate added afterwards carries its own (no lookup table in code).
ALTER TABLE exchange_rates ADD COLUMN IF NOT EXISTS name text;
ALTER TABLE exchange_rates ADD COLUMN IF NOT EXISTS type text;
UPDATE exchange_rates SET
  name = CASE symbol
    WHEN 'USDC' THEN 'USD Coin' WHEN 'USDT' THEN 'Tether USD' WHEN 'DAI' THEN 'Dai'
    WHEN 'ETH' THEN 'Ether' WHEN 'BTC' THEN 'Bitcoin' WHEN 'SOL' THEN 'Solana' WHEN 'USD' THEN 'US Dollar'
    ELSE symbol END,
  type = CASE WHEN symbol IN ('USD', 'EUR', 'GBP', 'JPY', 'CHF', 'CAD', 'AUD') THEN 'fiat' ELSE 'crypto' END
WHERE name IS NULL OR type IS NULL;
ALTER TABLE exchange_rates ALTER COLUMN name SET NOT NULL;
ALTER TABLE exchange_rates ALTER COLUMN type SET NOT NULL;
ALTER TABLE exchange_rates ADD CONSTRAINT exchange_rates_type_check CHECK (type IN ('fiat', 'crypto'));
