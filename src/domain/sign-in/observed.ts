import { DomainError } from "../../errors.js";
import type { Deps } from "../deps.js";
import type { SignInMethod } from "../observer.js";

/**
 * Runs one sign-in (proof of the credential, then the pipeline) and reports how it ended: a failure is
 * reported under its error code (a wrong code, a bad signature, a refused policy), which is what an operator
 * watches for credential stuffing or a broken provider.
 */
export async function observedSignIn<T>(deps: Pick<Deps, "observer">, method: SignInMethod, work: () => Promise<T>): Promise<T> {
  try {
    const result = await work();
    deps.observer.signIn(method, "success");
    return result;
  } catch (err) {
    deps.observer.signIn(method, err instanceof DomainError ? err.code : "internal");
    throw err;
  }
}
