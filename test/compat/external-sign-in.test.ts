import { afterAll } from "vitest";
import { DEFAULT_EXTERNAL_SIGN_IN_SETTINGS } from "../../src/config.js";
import { SocialHubPeer } from "../e2e/support/social-hub-peer.js";
import { externalSignInApi, useSocialHub } from "./scenarios/external-sign-in.js";
import { runCompat } from "./runner.js";

// The decentralized-social network's hub, on loopback for the whole file.
const hub = await SocialHubPeer.start();
useSocialHub(hub);
afterAll(() => hub.stop());

runCompat("external JWT, chat and decentralized-social sign-in", externalSignInApi, {
  externalSignIn: { ...DEFAULT_EXTERNAL_SIGN_IN_SETTINGS, socialHubUrl: hub.url },
});
