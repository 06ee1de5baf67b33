import { describe, expect, it } from "vitest";
import { privateResolution } from "../../../src/domain/webhooks/url.js";

describe("privateResolution (delivery-time check of live endpoints)", () => {
  it("refuses literal loopback, private and link-local addresses", async () => {
    for (const url of ["https://127.0.0.1/x", "https://10.1.2.3/x", "https://[::1]/x", "https://169.254.169.254/latest"])
      expect(await privateResolution(url), url).toMatch(/not a public address/);
  });

  it("refuses a name that resolves inwards", async () => {
    expect(await privateResolution("https://localhost:8443/hooks")).toMatch(/localhost resolves to (127\.0\.0\.1|::1)/);
  });

  it("lets a public address through", async () => {
    expect(await privateResolution("https://93.184.216.34/hooks")).toBeNull();
  });
});
