import type { ApiModule } from "../module.js";

// Placeholder until this area's services land: no services yet.
export const tenancyModule: ApiModule = {
  services: [],
  files: [],
  register: () => {},
};
