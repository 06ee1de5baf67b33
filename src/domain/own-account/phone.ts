import { parsePhoneNumberFromString } from "libphonenumber-js/max";
import { badRequest } from "../../errors.js";
import type { PhoneInput } from "../verifications/phone.js";

/**
 * The parts the codes capability takes (calling code, national number, country) of a number the profile
 * gives whole. Only an international number (+ and calling code) names its country; anything else is
 * refused rather than guessed.
 */
export function phoneInputOf(e164: string): PhoneInput {
  const parsed = e164.startsWith("+") ? parsePhoneNumberFromString(e164) : undefined;
  if (!parsed?.country)
    throw badRequest("invalid_phone_number", "phoneNumber must be an international number: + then the country calling code and the number", { field: "phoneNumber" });
  return { phoneCountryCode: parsed.countryCallingCode, phoneNumber: parsed.nationalNumber, isoCountryCode: parsed.country };
}
