import { OrganizationsApi, SsoProviderEnum } from "@dynamic-labs/sdk-api";
import type { Scenarios } from "../harness.js";

/** OrganizationsApi: one scenario per operation, keyed `OrganizationsApi.<operation>`, run in this order. */
export const organizationsApi: Scenarios = {
  "OrganizationsApi.getOrganizationsForMember": ({ memberApi }) => memberApi(OrganizationsApi).getOrganizationsForMember(),
  "OrganizationsApi.createOrganization": async ({ memberApi, state }) => {
    const res = await memberApi(OrganizationsApi).createOrganization({
      organizationRequest: { name: "Second org", description: "made by the compat suite", websiteUrl: "https://example.com" },
    });
    // A second organization of the owner's: members scenarios delegate its ownership without touching the tenant's.
    state.secondOrganizationId = res.organization!.id;
  },
  "OrganizationsApi.getOrganizationById": ({ memberApi, tenant }) =>
    memberApi(OrganizationsApi).getOrganizationById({ organizationId: tenant.organizationId }),
  "OrganizationsApi.updateOrganizationById": ({ memberApi, tenant }) =>
    memberApi(OrganizationsApi).updateOrganizationById({
      organizationId: tenant.organizationId,
      organizationFields: { name: "Renamed org", description: "new words", websiteUrl: "https://example.org" },
    }),
  "OrganizationsApi.updateOrganizationAddressById": ({ memberApi, tenant }) =>
    memberApi(OrganizationsApi).updateOrganizationAddressById({
      organizationId: tenant.organizationId,
      organizationAddressFields: { city: "Berlin", region: "Berlin", postalCode: "10115", country: "DE" },
    }),
  "OrganizationsApi.getBillingSubscriptionByOrganization": ({ memberApi, tenant }) =>
    memberApi(OrganizationsApi).getBillingSubscriptionByOrganization({ organizationId: tenant.organizationId }),
  "OrganizationsApi.upgradeSubscriptionForOrganization": ({ memberApi, tenant }) =>
    memberApi(OrganizationsApi).upgradeSubscriptionForOrganization({ organizationId: tenant.organizationId }),
  "OrganizationsApi.applyCouponForSubscription": ({ memberApi, tenant }) =>
    memberApi(OrganizationsApi).applyCouponForSubscription({
      organizationId: tenant.organizationId,
      billingSubscriptionCoupon: { coupon: "WELCOME20" },
    }),
  "OrganizationsApi.createSsoProvider": async ({ memberApi, tenant, state }) => {
    const sso = await memberApi(OrganizationsApi).createSsoProvider({
      organizationId: tenant.organizationId,
      ssoProviderCreateRequest: {
        clientId: "client-id",
        clientSecret: "client-secret",
        ssoDomain: "login.example.com",
        // E-mail domains route to one organization across the service: test files share one database.
        emailDomain: `${tenant.organizationId.slice(0, 8)}.example.com`,
        provider: SsoProviderEnum.Okta,
      },
    });
    state.ssoProviderId = sso.id;
  },
  "OrganizationsApi.getSsoProviderForOrganization": ({ memberApi, tenant }) =>
    memberApi(OrganizationsApi).getSsoProviderForOrganization({ organizationId: tenant.organizationId }),
  "OrganizationsApi.updateSsoProvider": ({ memberApi, tenant, state }) =>
    memberApi(OrganizationsApi).updateSsoProvider({
      organizationId: tenant.organizationId,
      ssoProviderId: state.ssoProviderId,
      ssoProviderUpdateRequest: { enforceOnlySSO: false, ssoDomain: "sso.example.com" },
    }),
  "OrganizationsApi.deleteSsoProvider": ({ memberApi, tenant, state }) =>
    memberApi(OrganizationsApi).deleteSsoProvider({ organizationId: tenant.organizationId, ssoProviderId: state.ssoProviderId }),
};
