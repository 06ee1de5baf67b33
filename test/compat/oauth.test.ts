import { oauthApi } from "./scenarios/oauth.js";
import { runCompat } from "./runner.js";

runCompat("OAuth 2 / OpenID Connect sign-in", oauthApi);
