import type { ActivityOptions } from "@temporalio/workflow";

/**
 * How the WaaS workflows (the wallet actor, the export) run their key-share steps. Bad input fails at once
 * (the activities throw non-retryable failures); anything else (the database away, a worker killed mid-step)
 * is retried, and each step finds what an earlier attempt did. 10 s bounds how long a step whose worker was
 * killed (kill -9) holds the wallet before it is retried; a step takes milliseconds (bench/waas-durability.ts,
 * docs/reliability.md).
 */
export const SHARE_STEP_OPTIONS: ActivityOptions = {
  startToCloseTimeout: "10 seconds",
  retry: { initialInterval: "500 milliseconds", maximumInterval: "10 seconds", maximumAttempts: 20 },
};
