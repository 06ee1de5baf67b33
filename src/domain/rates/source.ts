/**
 * The price source, as a port (implemented in src/adapters/price-source.ts). Every method answers what the
 * source said, or throws provider_unavailable (503). Values are what the source sent, never filled in.
 */
export interface PriceSource {
  /** Fiat rates: how many units of each currency one `base` is worth (EUR -> 0.92 for base USD). */
  rates(base: string): Promise<Record<string, number>>;
  /**
   * The price in `currency` of each asset id: a currency symbol (ETH) or a token `<FAMILY>:<networkId>:<address>`
   * (EVM:1:0x..., SOL:101:<mint>; the native currency under its placeholder address). Ids the source does
   * not price are absent.
   */
  prices(ids: readonly string[], currency: string): Promise<Record<string, number>>;
}
