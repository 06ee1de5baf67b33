import { BillingService, file_sigil_billing_v0_billing_service } from "../../gen/sigil/billing/v0/billing_service_pb.js";
import { CustomHostnamesService, file_sigil_environments_v0_custom_hostnames_service } from "../../gen/sigil/environments/v0/custom_hostnames_service_pb.js";
import { DeeplinkUrlsService, file_sigil_environments_v0_deeplink_urls_service } from "../../gen/sigil/environments/v0/deeplink_urls_service_pb.js";
import { ExchangeRatesService, file_sigil_environments_v0_exchange_rates_service } from "../../gen/sigil/environments/v0/exchange_rates_service_pb.js";
import { OriginsService, file_sigil_environments_v0_origins_service } from "../../gen/sigil/environments/v0/origins_service_pb.js";
import { SdkViewsService, file_sigil_environments_v0_sdk_views_service } from "../../gen/sigil/environments/v0/sdk_views_service_pb.js";
import { TestAccountsService, file_sigil_environments_v0_test_accounts_service } from "../../gen/sigil/environments/v0/test_accounts_service_pb.js";
import { SsoProvidersService, file_sigil_sso_v0_sso_providers_service } from "../../gen/sigil/sso/v0/sso_providers_service_pb.js";
import type { ApiModule } from "../module.js";
import { registerEnvironmentSettings } from "./environment.js";
import { registerOrganizationExtras } from "./organization.js";

/** Environment settings (origins, deeplinks, SDK views, custom hostnames, test account, exchange rates) and organization extras (billing, SSO). */
export const environmentSettingsModule: ApiModule = {
  services: [
    OriginsService,
    DeeplinkUrlsService,
    SdkViewsService,
    CustomHostnamesService,
    TestAccountsService,
    ExchangeRatesService,
    BillingService,
    SsoProvidersService,
  ],
  files: [
    file_sigil_environments_v0_origins_service,
    file_sigil_environments_v0_deeplink_urls_service,
    file_sigil_environments_v0_sdk_views_service,
    file_sigil_environments_v0_custom_hostnames_service,
    file_sigil_environments_v0_test_accounts_service,
    file_sigil_environments_v0_exchange_rates_service,
    file_sigil_billing_v0_billing_service,
    file_sigil_sso_v0_sso_providers_service,
  ],
  register(router, deps) {
    registerEnvironmentSettings(router, deps);
    registerOrganizationExtras(router, deps);
  },
};
