import { afterAll, beforeAll } from "vitest";
import { DEFAULT_RAMP_SETTINGS, type RampSettings } from "../../src/config-ramps.js";
import { startPricePeer, type PricePeer } from "../e2e/support/price-peer.js";
import { startRampPeer, type RampPeer } from "../e2e/support/ramp-peer.js";
import { PEER_KEY_ID, PEER_SECRET } from "../e2e/support/vendor-peer.js";
import { runCompat } from "./runner.js";
import { sdkRampsApi } from "./scenarios/sdk-ramps.js";

// The vendors are filled in once the peers are up: this hook runs before the runner's, which starts the
// app with this (shared) settings object.
const ramps: RampSettings = { ...DEFAULT_RAMP_SETTINGS };
let prices: PricePeer | undefined;
let provider: RampPeer | undefined;
beforeAll(async () => {
  [prices, provider] = await Promise.all([startPricePeer(), startRampPeer()]);
  prices.rates = { EUR: "0.92" };
  prices.prices = { ETH: "3000" };
  ramps.priceSource = { url: prices.url, keyId: PEER_KEY_ID, secret: PEER_SECRET };
  ramps.rampProvider = { url: provider.url, keyId: PEER_KEY_ID, secret: PEER_SECRET };
});
afterAll(async () => {
  await Promise.all([prices?.close(), provider?.close()]);
});

runCompat("rates and ramps from their providers", sdkRampsApi, { ramps });
