import type { AssetDiff, SimulatedAsset } from "../../domain/simulations/report.js";

/** The message form of an asset: the native currency's null address is an unset field (sent as null). */
export const toAsset = (a: SimulatedAsset) => ({ ...a, address: a.address ?? undefined });

/** An asset diff as sigil.simulations.v0.AssetDiff, for every chain's answer. */
export const toAssetDiff = (d: AssetDiff) => ({ ...d, asset: toAsset(d.asset) });
