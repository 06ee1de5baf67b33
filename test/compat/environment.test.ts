import { originsApi } from "./scenarios/origins.js";
import { deeplinkUrlsApi } from "./scenarios/deeplink-urls.js";
import { customHostnamesApi } from "./scenarios/custom-hostnames.js";
import { sDKViewsApi } from "./scenarios/sdk-views.js";
import { customNetworksApi } from "./scenarios/custom-networks.js";
import { nameServicesApi } from "./scenarios/name-services.js";
import { globalWalletsApi } from "./scenarios/global-wallets.js";
import { globalWalletAccessControlApi } from "./scenarios/global-wallet-access-control.js";
import { globalWalletConnectionsApi } from "./scenarios/global-wallet-connections.js";
import { runCompat } from "./runner.js";

runCompat("environment", { ...originsApi, ...deeplinkUrlsApi, ...customHostnamesApi, ...sDKViewsApi, ...customNetworksApi, ...nameServicesApi, ...globalWalletsApi, ...globalWalletAccessControlApi, ...globalWalletConnectionsApi });
