import { getCountryCallingCode, isSupportedCountry, parsePhoneNumberFromString, type CountryCode } from "libphonenumber-js/max";
import { badRequest } from "../../errors.js";

/** A phone number as the client gives it (country calling code, national number, ISO country). */
export interface PhoneInput {
  phoneCountryCode: string;
  phoneNumber: string;
  isoCountryCode: string;
}

/** The number, validated: E.164 is its identity; the parts are what the client shows. */
export interface Phone {
  e164: string;
  phoneNumber: string;
  phoneCountryCode: string;
  isoCountryCode: string;
}

const invalid = () =>
  badRequest("invalid_phone_number", "phoneCountryCode, phoneNumber and isoCountryCode do not make a valid phone number of that country");

/**
 * The three parts must make one valid number (libphonenumber-js with its full metadata): the ISO country's
 * calling code is phoneCountryCode, and the national number is a valid number of that calling code. Not
 * necessarily of that very country: countries share calling codes (US and CA, GB and GG, ...) and clients
 * pick the country from the calling code.
 */
export function normalisePhone(input: PhoneInput): Phone {
  const iso = input.isoCountryCode.trim().toUpperCase();
  const callingCode = input.phoneCountryCode.trim().replace(/^\+/, "");
  if (!isSupportedCountry(iso) || getCountryCallingCode(iso as CountryCode) !== callingCode) throw invalid();
  let parsed;
  try {
    parsed = parsePhoneNumberFromString(input.phoneNumber.trim(), iso as CountryCode);
  } catch {
    throw invalid();
  }
  if (!parsed || !parsed.isValid() || parsed.countryCallingCode !== callingCode) throw invalid();
  return { e164: parsed.number, phoneNumber: parsed.nationalNumber, phoneCountryCode: callingCode, isoCountryCode: iso };
}

/**
 * The parts of a number given whole (a profile's phoneNumber). Only an international number (+ and calling
 * code) names its country; anything else is refused rather than guessed.
 */
export function phoneInputOf(e164: string): PhoneInput {
  const parsed = e164.startsWith("+") ? parsePhoneNumberFromString(e164) : undefined;
  if (!parsed?.country)
    throw badRequest("invalid_phone_number", "phoneNumber must be an international number: + then the country calling code and the number", { field: "phoneNumber" });
  return { phoneCountryCode: parsed.countryCallingCode, phoneNumber: parsed.nationalNumber, isoCountryCode: parsed.country };
}
