// Every workflow the worker runs. Deterministic code only: no I/O, no clocks, no randomness outside the SDK.
export { walletRecoveryWorkflow } from "./wallet-recovery.js";
export { exportUsersWorkflow } from "./export-users.js";
// Redeliveries, and original deliveries started before the endpoint actors existed, which still finish.
export { webhookDeliveryWorkflow } from "./webhook-delivery.js";
export { webhookEndpointWorkflow } from "./webhook-endpoint.js";
// The actor of one WaaS wallet's key shares.
export { waasWalletWorkflow } from "./waas-wallet.js";
// One export of a WaaS wallet's key, a child of the wallet's actor.
export { walletExportWorkflow } from "./wallet-export.js";
