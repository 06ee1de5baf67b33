// Every workflow the worker runs. Deterministic code only: no I/O, no clocks, no randomness outside the SDK.
export { walletRecoveryWorkflow } from "./wallet-recovery.js";
export { exportUsersWorkflow } from "./export-users.js";
export { webhookDeliveryWorkflow } from "./webhook-delivery.js";
