import type { ConnectRouter } from "@connectrpc/connect";
import { SdkEvmSimulationService } from "../../gen/sigil/simulations/v0/sdk_evm_simulation_service_pb.js";
import type { Deps } from "../../domain/deps.js";
import { simulateEvmTransaction } from "../../domain/simulations/evm-transaction.js";
import { simulateUserOperation } from "../../domain/simulations/evm-user-op.js";
import type { SimulationReport } from "../../domain/simulations/evm-report.js";
import { publicEnvironmentOf } from "../tenant-context.js";
import { toAsset, toAssetDiff } from "./messages.js";

/** The report as sigil.simulations.v0.Simulation. */
const toSimulation = (r: SimulationReport) => ({
  ...r,
  inAssets: r.inAssets.map(toAssetDiff),
  outAssets: r.outAssets.map(toAssetDiff),
  assetExposures: r.assetExposures.map((e) => ({ ...e, asset: toAsset(e.asset) })),
  balanceChanges: r.balanceChanges.map((c) => ({ ...c, asset: toAsset(c.asset) })),
});

export function registerSdkEvmSimulations(router: ConnectRouter, deps: Deps) {
  router.service(SdkEvmSimulationService, {
    async simulateEvmTransaction(req, ctx) {
      const report = await simulateEvmTransaction(deps, publicEnvironmentOf(ctx), { chainId: req.chainId, from: req.from, to: req.to, data: req.data, value: req.value });
      return { simulation: toSimulation(report) };
    },
    async simulateUserOp(req, ctx) {
      const report = await simulateUserOperation(deps, publicEnvironmentOf(ctx), { chainId: req.chainId, entryPoint: req.entryPoint, operation: req.operation });
      return { simulation: toSimulation(report) };
    },
  });
}
