import type { Group, GroupPoint } from "./group.js";

/**
 * Shamir and Feldman arithmetic over a curve's scalar field. Share indexes are small positive integers
 * (1..holders), used directly as the x coordinate.
 */

/** f(x) = a0 + a1·x + ... by Horner's rule. */
export function evaluate(g: Group, coefficients: bigint[], x: number): bigint {
  const X = BigInt(x);
  let y = g.Fn.ZERO;
  for (let j = coefficients.length - 1; j >= 0; j--) y = g.Fn.add(g.Fn.mul(y, X), coefficients[j]);
  return y;
}

/** Feldman: the public image of f(x), Σ C_j·x^j, computed from the commitments C_j = a_j·G alone. */
export function evaluateCommitments(g: Group, commitments: GroupPoint[], x: number): GroupPoint {
  const X = BigInt(x);
  let power = g.Fn.ONE;
  let acc = commitments[0];
  for (let j = 1; j < commitments.length; j++) {
    power = g.Fn.mul(power, X);
    acc = acc.add(commitments[j].multiplyUnsafe(power));
  }
  return acc;
}

/** The Lagrange coefficient of `i` for interpolating at 0 over `indexes`: Π_{j≠i} j / (j − i). */
export function lagrangeAtZero(g: Group, indexes: number[], i: number): bigint {
  let num = g.Fn.ONE;
  let den = g.Fn.ONE;
  for (const j of indexes) {
    if (j === i) continue;
    num = g.Fn.mul(num, BigInt(j));
    den = g.Fn.mul(den, g.Fn.sub(BigInt(j), BigInt(i)));
  }
  return g.Fn.div(num, den);
}

/** A polynomial of degree threshold−1 with the given constant term and random other coefficients. */
export function randomPolynomial(constant: bigint, threshold: number, random: () => bigint): bigint[] {
  const coefficients = [constant];
  for (let j = 1; j < threshold; j++) coefficients.push(random());
  return coefficients;
}
