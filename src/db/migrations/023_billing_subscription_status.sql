-- A subscription's status is derived from these (src/domain/billing/service.ts): a trial that has not ended
-- reads "trialing", a cancellation that has taken effect "canceled", otherwise "active". There is no
-- payment processor and no API sets them yet: the operator does (as with plans that are not self-serve).
ALTER TABLE billing_subscriptions
  ADD COLUMN trial_ends_at timestamptz,
  ADD COLUMN canceled_at timestamptz;
